/**
 * Input rules of the product specification (section 5), mirroring the server's domain rules.
 * Both sides are tested against testdata/validation-cases.json. Each check answers the error
 * code of the first rule broken, or null when the input is valid; ko.validation holds the text.
 */
import { limits } from '@/config/limits';
import type { ValidationCode } from '@/i18n/ko';

const USERNAME = /^[a-z0-9_]{4,20}$/;
const PHONE = /^01[016789]\d{7,8}$/;
const NICKNAME = /^[가-힣ㄱ-ㅎㅏ-ㅣa-zA-Z0-9]+$/;
const NICKNAME_MAX = 20;
const PASSWORD_MIN = 8;
const PASSWORD_MAX = 64;
const EARLIEST_BIRTH_YEAR = 1900;

/** Length in characters (code points), as a person and the server count them. */
export function charLength(value: string): number {
  return Array.from(value).length;
}

/** The first `max` characters (code points) of `value`; a surrogate pair is never cut in two. */
export function capLength(value: string, max: number): string {
  const chars = Array.from(value);
  return chars.length <= max ? value : chars.slice(0, max).join('');
}

export function validateUsername(input: string): ValidationCode | null {
  if (input.trim() === '') return 'USERNAME_REQUIRED';
  return USERNAME.test(input) ? null : 'USERNAME_INVALID';
}

/**
 * The server's three kinds of character: letters of any script (Korean too), ASCII digits, and
 * symbols (anything else but white space, which counts as none).
 */
function characterClasses(password: string): number {
  const letters = /\p{L}/u.test(password);
  const digits = /[0-9]/.test(password);
  const symbols = /[^\p{L}0-9\s]/u.test(password);
  return [letters, digits, symbols].filter(Boolean).length;
}

/**
 * The one password rule, wherever a password is chosen (sign-up, reset, change): 8 to 64
 * characters holding two of the three kinds. Its text, `ko.validation.PASSWORD_WEAK`, is
 * what the pages show under the field.
 */
function passwordRule(input: string): ValidationCode | null {
  const length = charLength(input);
  if (length > PASSWORD_MAX) return 'PASSWORD_TOO_LONG';
  if (length < PASSWORD_MIN || characterClasses(input) < 2) return 'PASSWORD_WEAK';
  return null;
}

export function validateRegisterPassword(input: string): ValidationCode | null {
  if (input === '') return 'FIELDS_REQUIRED';
  return passwordRule(input);
}

export type NewPasswordContext = 'register' | 'reset' | 'change';

/**
 * A new password and its confirmation: the password rule, then the two alike. Sign-up's
 * confirmation is the page's own guard against a typo (the server takes none there); it says
 * what the reset says, in the same words.
 */
export function validateNewPassword(
  password: string,
  confirmation: string,
  context: NewPasswordContext,
): ValidationCode | null {
  const mismatch = context === 'change' ? 'NEW_PASSWORD_MISMATCH' : 'RESET_PASSWORD_MISMATCH';
  if (password === '') return context === 'register' ? 'FIELDS_REQUIRED' : mismatch;
  return passwordRule(password) ?? (password === confirmation ? null : mismatch);
}

/**
 * The confirmation typed so far can no longer become the password: it differs, and is not the
 * password's beginning still being typed.
 */
export function confirmationDiffers({ password, confirmation }: { password: string; confirmation: string }): boolean {
  if (confirmation === '' || confirmation === password) return false;
  return !(confirmation.length < password.length && password.startsWith(confirmation));
}

/** The phone number as digits only: hyphens and spaces people type are dropped. */
export function normalizePhone(input: string): string {
  return input.replace(/[\s-]/g, '');
}

/** Digits a phone field holds at most: 010-1234-5678. */
const PHONE_DIGITS = 11;

/**
 * A phone number as people read it, from whatever was typed: 010-1234-5678, 011-123-4567
 * (an old number of ten digits), and the first digits grouped the same way while typing.
 */
export function formatPhone(input: string): string {
  const digits = input.replace(/\D/g, '').slice(0, PHONE_DIGITS);
  if (digits.length <= 3) return digits;
  if (digits.length <= 7) return `${digits.slice(0, 3)}-${digits.slice(3)}`;
  // Ten digits of an old 011, 016… number split 3-3-4; 010 numbers always have eleven.
  const middle = digits.length === 10 && !digits.startsWith('010') ? 3 : 4;
  return `${digits.slice(0, 3)}-${digits.slice(3, 3 + middle)}-${digits.slice(3 + middle)}`;
}

/**
 * What a phone field shows after an edit, formatted. Deleting one of its hyphens deletes the
 * digit before it, or the hyphen would come straight back and the field could not be emptied.
 */
export function editPhone(previous: string, typed: string, caret: number | null): string {
  const digits = typed.replace(/\D/g, '');
  const hyphenDeleted = typed.length === previous.length - 1 && digits === previous.replace(/\D/g, '');
  if (!hyphenDeleted) return formatPhone(digits);
  const before = typed.slice(0, caret ?? typed.length).replace(/\D/g, '').length;
  return formatPhone(digits.slice(0, Math.max(before - 1, 0)) + digits.slice(before));
}

export function validatePhone(input: string): ValidationCode | null {
  const phone = normalizePhone(input);
  if (phone === '') return 'PHONE_REQUIRED';
  return PHONE.test(phone) ? null : 'PHONE_INVALID';
}

/** Keeps digits only and at most 8 of them, for the birthdate field. */
export function sanitizeBirthdateInput(input: string): string {
  return input.replace(/\D/g, '').slice(0, 8);
}

/** YYYYMMDD or YYYY-MM-DD to YYYY-MM-DD, or null when it is not a real date. */
export function birthdateToIso(input: string): string | null {
  const match = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(input);
  if (!match) return null;
  const [, y = '', m = '', d = ''] = match;
  const year = Number(y);
  const month = Number(m);
  const day = Number(d);
  const date = new Date(Date.UTC(year, month - 1, day));
  const real =
    date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  if (!real || year < EARLIEST_BIRTH_YEAR || date.getTime() > Date.now()) return null;
  return `${y}-${m}-${d}`;
}

export function validateBirthdate(input: string): ValidationCode | null {
  return birthdateToIso(input) === null ? 'BIRTHDATE_INVALID' : null;
}

export function validateGender(input: string | null): ValidationCode | null {
  return input === '남성' || input === '여성' ? null : 'GENDER_INVALID';
}

export function validateCode(input: string): ValidationCode | null {
  return input.trim() === '' ? 'CODE_REQUIRED' : null;
}

export function validateNickname(input: string): ValidationCode | null {
  const nickname = input.trim();
  if (nickname === '') return 'NICKNAME_REQUIRED';
  return charLength(nickname) <= NICKNAME_MAX && NICKNAME.test(nickname) ? null : 'NICKNAME_INVALID';
}

/** A report: at least one reason or some text, the text at most 200 characters once trimmed. */
export function validateReport(reasons: readonly string[], extra: string): ValidationCode | null {
  const text = extra.trim();
  if (charLength(text) > limits.reportExtraMaxLength) return 'REPORT_TOO_LONG';
  if (reasons.length === 0 && text === '') return 'REPORT_EMPTY';
  return null;
}

const SYLLABLES = /^[가-힣]+$/;
const NAME = /^[가-힣a-zA-Z ]+$/;
const REAL_NAME_MAX = 20;
const WORD_MAX = 6;
const BANK_MIN = 2;
const BANK_MAX = 20;
const ACCOUNT = /^\d{4,20}$/;

/** Trimmed, with each run of white space made one space (as the server keeps names). */
export function collapseSpaces(input: string): string {
  return input.trim().split(/\s+/).filter(Boolean).join(' ');
}

/** The name transfers are made under: Hangul syllables, English letters and spaces, 20 at most. */
export function validateRealName(input: string): ValidationCode | null {
  const name = collapseSpaces(input);
  if (name === '') return 'REAL_NAME_REQUIRED';
  return NAME.test(name) && charLength(name) <= REAL_NAME_MAX ? null : 'REAL_NAME_INVALID';
}

/**
 * A word field as the user types: anything but Hangul is dropped and at most 6 characters kept.
 * Jamo stay while a syllable is being composed; the rule then asks for whole syllables.
 */
export function sanitizeWordInput(input: string): string {
  return capLength(input.replace(/[^가-힣ㄱ-ㅎㅏ-ㅣ]/g, ''), WORD_MAX);
}

/** One word of a custom set: 1 to 6 Hangul syllables. */
export function validateWordsetWord(input: string): ValidationCode | null {
  const word = input.trim();
  if (word === '') return 'WORDSET_WORDS_REQUIRED';
  return SYLLABLES.test(word) && charLength(word) <= WORD_MAX ? null : 'WORDSET_WORD_INVALID';
}

/** Four words, each valid, no two the same: the first error, or null. */
export function validateWordset(words: readonly string[]): ValidationCode | null {
  if (words.length !== 4) return 'WORDSET_WORDS_REQUIRED';
  for (const word of words) {
    const error = validateWordsetWord(word);
    if (error) return error;
  }
  const trimmed = words.map((word) => word.trim());
  return new Set(trimmed).size === trimmed.length ? null : 'WORDSET_WORDS_DUPLICATE';
}

/** A refund bank: Korean or English letters and spaces, 2 to 20 characters. */
export function validateRefundBank(input: string): ValidationCode | null {
  const bank = collapseSpaces(input);
  const length = charLength(bank);
  return NAME.test(bank) && length >= BANK_MIN && length <= BANK_MAX ? null : 'REFUND_BANK_INVALID';
}

/** The account number as digits only: hyphens and spaces people type are dropped. */
export function normalizeAccount(input: string): string {
  return input.replace(/[\s-]/g, '');
}

/** A refund account: 4 to 20 digits. */
export function validateRefundAccount(input: string): ValidationCode | null {
  return ACCOUNT.test(normalizeAccount(input.trim())) ? null : 'REFUND_ACCOUNT_INVALID';
}
