/**
 * An SWR cache key as text, to pick the console's entries by name. Entries SWR keeps for itself
 * carry no key of ours (`undefined`), which JSON.stringify would not turn into text.
 */
export function keyText(key: unknown): string {
  if (typeof key === 'string') return key;
  if (Array.isArray(key)) return JSON.stringify(key);
  return '';
}
