/**
 * The five terms of the service: the short type used in /terms/{type} and in the agreement
 * modal, the page slug it redirects to, and whether agreeing is required to use the service.
 */
export const termsItems = [
  { type: 'service', slug: 'service-agreement', required: true },
  { type: 'privacy', slug: 'privacy-policy', required: true },
  { type: 'youth', slug: 'youth-protection', required: true },
  { type: 'improve', slug: 'improve-consent', required: false },
  { type: 'alarm', slug: 'notification-consent', required: false },
] as const;

export type TermsType = (typeof termsItems)[number]['type'];
export type TermsPageSlug = (typeof termsItems)[number]['slug'];

export function termsPath(slug: TermsPageSlug): string {
  return `/terms/${slug}`;
}
