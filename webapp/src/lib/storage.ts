/**
 * The local-storage keys of the specification. The password is never stored: between sign-up
 * and phone verification it stays in memory only.
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
}
