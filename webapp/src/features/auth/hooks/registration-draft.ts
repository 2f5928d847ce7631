/**
 * The username and password chosen on /register, and the optional consent to notifications
 * given in the terms modal, held in memory until /verify-mvp registers the account. Never
 * written to storage: a reload forgets them and sends the user back.
 */
export interface RegistrationDraft {
  username: string;
  password: string;
  /** The terms modal's optional 알림 수신 동의, sent with the registration. */
  alarm: boolean;
}

let draft: RegistrationDraft | null = null;

export function saveRegistrationDraft(value: RegistrationDraft): void {
  draft = { ...value };
}

export function readRegistrationDraft(): RegistrationDraft | null {
  return draft;
}

export function clearRegistrationDraft(): void {
  draft = null;
}

/** The optional consents the terms modal hands to /register in the navigation state. */
export interface OptionalConsents {
  improve: boolean;
  alarm: boolean;
}

/**
 * Whether the navigation state of /register carries the alarm consent. Anything else (a visit
 * without the terms modal, a state of another shape) is no consent.
 */
export function alarmConsentOf(state: unknown): boolean {
  if (typeof state !== 'object' || state === null || !('optionalConsents' in state)) return false;
  const consents: unknown = state.optionalConsents;
  return typeof consents === 'object' && consents !== null && 'alarm' in consents && consents.alarm === true;
}
