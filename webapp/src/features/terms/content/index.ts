import type { Business } from '@/api/app-config';
import { improveConsent } from './improve-consent';
import { notificationConsent } from './notification-consent';
import { privacyPolicy } from './privacy-policy';
import { serviceAgreement } from './service-agreement';
import type { TermsDocument, TermsSlug } from './types';
import { youthProtection } from './youth-protection';

export type { TermsDocument, TermsSection, TermsSlug } from './types';

/**
 * Every terms document by slug, written with the operator's configured facts. Each document's
 * `slug` equals its key.
 */
export const termsDocuments: Record<TermsSlug, (business: Business) => TermsDocument> = {
  'service-agreement': serviceAgreement,
  'privacy-policy': privacyPolicy,
  'youth-protection': youthProtection,
  'improve-consent': improveConsent,
  'notification-consent': notificationConsent,
};

/** The slugs in the order the consent screen lists them: required first, then optional. */
export const termsSlugs: readonly TermsSlug[] = [
  'service-agreement',
  'privacy-policy',
  'youth-protection',
  'improve-consent',
  'notification-consent',
];

export { improveConsent, notificationConsent, privacyPolicy, serviceAgreement, youthProtection };
