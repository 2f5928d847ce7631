const DAY_MS = 24 * 60 * 60 * 1000;

/** Whole days left of a pair lasting until `until` (RFC 3339) at `now` (Unix ms), a day begun counting as one. */
export function daysLeft(until: string, now: number): number {
  return Math.max(1, Math.ceil((Date.parse(until) - now) / DAY_MS));
}
