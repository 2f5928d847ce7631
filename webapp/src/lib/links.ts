import type { AppConfig } from '@/api/app-config';
import { ko } from '@/i18n/ko';

/** Where one of the app's links goes: another site (a new tab), an email, or a page of the app. */
export type Destination = { kind: 'site'; href: string } | { kind: 'mail'; href: string } | { kind: 'page'; to: string };

/** The operator's pages the app links to, as configured; what is not configured is not linked. */
export interface OperatorLinks {
  /** The community gallery of the bottom navigation; none configured, no such item. */
  community?: string;
  /** The payment inquiry form, or else a mail to the operator; neither, no such button. */
  paymentInquiry?: Destination;
  /**
   * The operator's FAQ, or else the help page, which opens at its top as every page does
   * (its questions are a tap below the title): landing halfway down hid the page's title.
   */
  faq: Destination;
}

export function operatorLinks(config: AppConfig | undefined): OperatorLinks {
  const links = config?.links;
  const email = config?.business.email;
  const subject = encodeURIComponent(`[${ko.mypage.paymentInquiry}]`);
  return {
    community: links?.community,
    paymentInquiry: links?.paymentInquiry
      ? { kind: 'site', href: links.paymentInquiry }
      : email
        ? { kind: 'mail', href: `mailto:${email}?subject=${subject}` }
        : undefined,
    faq: links?.faq ? { kind: 'site', href: links.faq } : { kind: 'page', to: '/helppage' },
  };
}
