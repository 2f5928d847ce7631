/** The /wordset form's fields and their errors, by the spec's rules (section 5). */
import { ko } from '@/i18n/ko';
import { collapseSpaces, validateRefundAccount, validateRefundBank, validateWordsetWord } from '@/lib/validation';

/** The bank choice that asks for a typed bank name. */
export const OTHER = 'other';

/** What the form holds. */
export interface WordsetDraft {
  words: [string, string, string, string];
  /** One of the listed banks, `other`, or '' before a choice. */
  bankChoice: string;
  bankCustom: string;
  account: string;
}

export type DraftErrors = {
  words: (string | null)[];
  bank: string | null;
  account: string | null;
};

/** The bank the draft names. */
export function draftBank(draft: WordsetDraft): string {
  return draft.bankChoice === OTHER ? collapseSpaces(draft.bankCustom) : draft.bankChoice;
}

/** Every field's error (the spec's rules), or null where it is valid. */
export function draftErrors(draft: WordsetDraft): DraftErrors {
  const v = ko.validation;
  const trimmed = draft.words.map((word) => word.trim());
  const words = trimmed.map((word, i) => {
    const error = validateWordsetWord(word);
    if (error) return v[error];
    return trimmed.indexOf(word) < i ? v.WORDSET_WORDS_DUPLICATE : null;
  });
  const bankError = validateRefundBank(draftBank(draft));
  const accountError = validateRefundAccount(draft.account);
  return { words, bank: bankError ? v[bankError] : null, account: accountError ? v[accountError] : null };
}

export function draftValid(errors: DraftErrors): boolean {
  return errors.words.every((e) => e === null) && errors.bank === null && errors.account === null;
}

