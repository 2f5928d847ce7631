/**
 * External pages the app links to. They open in a new tab. The operator replaces these
 * placeholder addresses with the real gallery, form and FAQ pages before launch.
 */
export const externalLinks = {
  /** The community gallery in the bottom navigation. */
  community: 'https://community.telepathy.example/gallery',
  /** The payment inquiry form on My page. */
  paymentInquiry: 'https://forms.telepathy.example/payment-inquiry',
  /** The FAQ page on My page. */
  faq: 'https://help.telepathy.example/faq',
} as const;
