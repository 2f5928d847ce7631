/**
 * The username and password chosen on /register, held in memory until /verify-mvp registers
 * the account. Never written to storage: a reload forgets them and sends the user back.
 */
export interface RegistrationDraft {
  username: string;
  password: string;
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
