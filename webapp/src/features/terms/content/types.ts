/** Identifies one terms document; also the URL segment of its page. */
export type TermsSlug =
  | 'service-agreement'
  | 'privacy-policy'
  | 'youth-protection'
  | 'improve-consent'
  | 'notification-consent';

/**
 * One section (조항) of a document. Paragraphs are shown first, then the items as a list;
 * item texts carry no list numbers of their own.
 */
export interface TermsSection {
  heading: string;
  paragraphs?: readonly string[];
  items?: readonly string[];
}

export interface TermsDocument {
  slug: TermsSlug;
  title: string;
  /** 'YYYY-MM-DD' */
  effectiveDate: string;
  required: boolean;
  intro?: string;
  sections: readonly TermsSection[];
}
