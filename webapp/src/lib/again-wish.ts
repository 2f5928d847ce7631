import { readSession, sessionKeys, writeSession } from './storage';

/** What a wish to meet again was answered: noted, or both wished it. */
export type WishAnswer = 'wished' | 'paired';

/** Rooms remembered at most: a tab's last few chats. */
const KEPT = 10;

function readAll(): [string, WishAnswer][] {
  const raw = readSession(sessionKeys.againWishes);
  if (raw === null) return [];
  try {
    const value: unknown = JSON.parse(raw);
    if (!Array.isArray(value)) return [];
    return value.filter(
      (entry): entry is [string, WishAnswer] =>
        Array.isArray(entry) && typeof entry[0] === 'string' && (entry[1] === 'wished' || entry[1] === 'paired'),
    );
  } catch {
    return [];
  }
}

/**
 * The answer to this tab's wish after the chat of `roomId`, if one was made: the ended chat's
 * overlay and the mood question after it show the same confirmation, not the button again.
 */
export function recallWish(roomId: string): WishAnswer | null {
  return readAll().find(([room]) => room === roomId)?.[1] ?? null;
}

export function rememberWish(roomId: string, answer: WishAnswer): void {
  const others = readAll().filter(([room]) => room !== roomId);
  writeSession(sessionKeys.againWishes, JSON.stringify([...others, [roomId, answer]].slice(-KEPT)));
}
