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
  /** A chat that ended while this device was away (not a key of the specification). */
  missedChatEnd: 'missedChatEnd',
} as const;

export type StorageKey = (typeof storageKeys)[keyof typeof storageKeys];

/** The session-storage keys: what belongs to this tab only and ends with it. */
export const sessionKeys = {
  registrationDraft: 'registrationDraft',
  /** What this tab's wishes to meet again were answered, by room (`lib/again-wish.ts`). */
  againWishes: 'againWishes',
  /** The words this tab picked in its latest round, for that round's echo (`features/home/lib/my-picks.ts`). */
  roundPicks: 'roundPicks',
} as const;

export type SessionKey = (typeof sessionKeys)[keyof typeof sessionKeys];

/**
 * Storage can throw (private mode, disabled storage); the app then simply forgets: a read
 * finds nothing, and a write or a removal does nothing (the value is only a convenience).
 */
function read(area: () => Storage, key: string): string | null {
  try {
    return area().getItem(key);
  } catch {
    return null;
  }
}

function write(area: () => Storage, key: string, value: string | null): void {
  try {
    if (value === null) area().removeItem(key);
    else area().setItem(key, value);
  } catch {
    // Nothing to do: see above.
  }
}

const local = () => window.localStorage;
const session = () => window.sessionStorage;

export function readLocal(key: StorageKey): string | null {
  return read(local, key);
}

export function writeLocal(key: StorageKey, value: string): void {
  write(local, key, value);
}

export function removeLocal(key: StorageKey): void {
  write(local, key, null);
}

/** What logging out or withdrawing leaves behind: nothing of the account. */
export function clearAccountStorage(): void {
  for (const key of Object.values(storageKeys)) removeLocal(key);
  for (const key of Object.values(sessionKeys)) removeSession(key);
}

/** Session storage fails like local storage, and the app forgets alike. */
export function readSession(key: SessionKey): string | null {
  return read(session, key);
}

export function writeSession(key: SessionKey, value: string): void {
  write(session, key, value);
}

export function removeSession(key: SessionKey): void {
  write(session, key, null);
}
