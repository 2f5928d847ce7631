/**
 * The local-storage keys of the specification. The sign-up password is never among them: a
 * sign-up in progress waits in the tab's session storage (`sessionKeys`).
 */
export const storageKeys = {
  username: 'username',
  nickname: 'nickname',
  needNicknameSetup: 'needNicknameSetup',
  seenMegaphoneIntro: 'seenMegaphoneIntro',
  chatInfo: 'chatInfo',
  feedbackInfo: 'feedbackInfo',
} as const;

export type StorageKey = (typeof storageKeys)[keyof typeof storageKeys];

/** The session-storage keys: what belongs to this tab only and ends with it. */
export const sessionKeys = {
  registrationDraft: 'registrationDraft',
} as const;

export type SessionKey = (typeof sessionKeys)[keyof typeof sessionKeys];

/** Storage can throw (private mode, disabled storage); the app then simply forgets. */
export function readLocal(key: StorageKey): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

export function writeLocal(key: StorageKey, value: string): void {
  try {
    window.localStorage.setItem(key, value);
  } catch {
    // Nothing to do: the value is only a convenience.
  }
}

export function removeLocal(key: StorageKey): void {
  try {
    window.localStorage.removeItem(key);
  } catch {
    // Nothing to do: see writeLocal.
  }
}

/** What logging out or withdrawing leaves behind: nothing of the account. */
export function clearAccountStorage(): void {
  for (const key of Object.values(storageKeys)) removeLocal(key);
  for (const key of Object.values(sessionKeys)) removeSession(key);
}

/** Session storage fails like local storage (see readLocal), and the app forgets alike. */
export function readSession(key: SessionKey): string | null {
  try {
    return window.sessionStorage.getItem(key);
  } catch {
    return null;
  }
}

export function writeSession(key: SessionKey, value: string): void {
  try {
    window.sessionStorage.setItem(key, value);
  } catch {
    // Nothing to do: see writeLocal.
  }
}

export function removeSession(key: SessionKey): void {
  try {
    window.sessionStorage.removeItem(key);
  } catch {
    // Nothing to do: see writeLocal.
  }
}
