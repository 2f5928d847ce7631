import { useCallback } from 'react';
import { useSWRConfig } from 'swr';
import { keyText } from '../lib/swr-key';

function isConsoleKey(key: unknown): boolean {
  return keyText(key).includes('admin/');
}

/**
 * Forgets everything the console read (the operator first of all), without asking again: after
 * a logout or a lost session, no page may decide on what the old session was allowed to see.
 */
export function useClearConsoleCache() {
  const { mutate } = useSWRConfig();
  return useCallback(() => mutate(isConsoleKey, undefined, { revalidate: false }), [mutate]);
}
