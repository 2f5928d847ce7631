import { readSession, sessionKeys, writeSession } from '@/lib/storage';

interface Picks {
  round: number;
  words: string[];
}

function read(): Picks | null {
  const raw = readSession(sessionKeys.roundPicks);
  if (raw === null) return null;
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value !== 'object' || value === null) return null;
    const { round, words } = value as Record<string, unknown>;
    if (typeof round !== 'number' || !Array.isArray(words)) return null;
    return { round, words: words.filter((word): word is string => typeof word === 'string') };
  } catch {
    return null;
  }
}

/**
 * Notes that this tab picked `word` in `round`, so the round's echo, told after it closed
 * (when the page may have been a chat in between), can mark the user's own words. Only the
 * latest round is kept; a move to another word within it keeps both, as the echo counts both.
 */
export function notePick(round: number, word: string): void {
  const known = read();
  const words = known?.round === round ? known.words.filter((w) => w !== word) : [];
  writeSession(sessionKeys.roundPicks, JSON.stringify({ round, words: [...words, word] }));
}

/** The words this tab picked in `round`. */
export function picksOf(round: number): string[] {
  const known = read();
  return known?.round === round ? known.words : [];
}
