import { useCallback } from 'react';
import { useSWRConfig } from 'swr';
import { clearAccountStorage } from '@/lib/storage';
import { authCheckKey } from './auth-check';
import { profileKey } from './profile';

/**
 * Updates the cached login state right away after logging in or out, so route guards decide on
 * the new state instead of a stale one while the server is asked again.
 */
export function useSessionCache() {
  const { mutate } = useSWRConfig();

  const markLoggedIn = useCallback(async () => {
    await mutate(authCheckKey, { loggedIn: true }, { revalidate: false });
    await mutate(profileKey);
  }, [mutate]);

  const markLoggedOut = useCallback(async () => {
    clearAccountStorage();
    await mutate(profileKey, undefined, { revalidate: false });
    await mutate(authCheckKey, { loggedIn: false }, { revalidate: false });
  }, [mutate]);

  return { markLoggedIn, markLoggedOut };
}
