import { termsItems, type TermsType } from '@/config/terms';

/** Each of the five terms, ticked or not in the terms modal. */
export type TermsAgreement = Record<TermsType, boolean>;

/**
 * The username and password chosen on /register and the terms agreed to before, held in
 * memory until /verify-mvp registers the account. Never written to storage: a reload forgets
 * them and sends the user back.
 */
export interface RegistrationDraft {
  username: string;
  password: string;
  /** The terms modal's answers, every one sent with the registration (the server records them). */
  terms: TermsAgreement;
}

let draft: RegistrationDraft | null = null;
let agreed: TermsAgreement | null = null;

export function saveRegistrationDraft(value: RegistrationDraft): void {
  draft = { ...value, terms: { ...value.terms } };
}

export function readRegistrationDraft(): RegistrationDraft | null {
  return draft;
}

export function clearRegistrationDraft(): void {
  draft = null;
  agreed = null;
}

/** Keeps the terms modal's answers for the sign-up pages, back and forth between them. */
export function saveTermsAgreement(value: TermsAgreement): void {
  agreed = { ...value };
}

/** Whether every required term is among the answers. */
export function agreesToRequired(answers: TermsAgreement): boolean {
  return termsItems.every((item) => !item.required || answers[item.type]);
}

/** The answers of the terms modal, when every required term was agreed to; otherwise none. */
export function readTermsAgreement(): TermsAgreement | null {
  if (!agreed) return null;
  return agreesToRequired(agreed) ? { ...agreed } : null;
}
