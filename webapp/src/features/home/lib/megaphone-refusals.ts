import type { Schemas } from '@/api/client';

/**
 * The server's refusals of what a megaphone says: the composer shows them under its field,
 * where the text can be changed, so the main page does not toast them as well.
 */
export const megaphoneTextRefusals: ReadonlySet<Schemas['ErrorCode']> = new Set<Schemas['ErrorCode']>([
  'MEGAPHONE_EMPTY',
  'MEGAPHONE_TOO_LONG',
  'CONTENT_NOT_ALLOWED',
  'MEGAPHONE_CONTACT',
]);
