import { useCallback } from 'react';
import useSWR, { useSWRConfig } from 'swr';
import { useAuthCheck } from './auth-check';
import { api } from './client';
import { unwrap } from './outcome';

export const megaphoneCountKey = '/user/megaphone-count';

export function fetchMegaphoneCount() {
  return unwrap(api.GET('/user/megaphone-count'));
}

/** The logged-in user's megaphone count; not requested while logged out. */
export function useMegaphoneCount() {
  const { data: auth } = useAuthCheck();
  return useSWR(auth?.loggedIn === true ? megaphoneCountKey : null, fetchMegaphoneCount);
}

/** Shows a count the server just told (a grant, a megaphone sent from any tab) at once. */
export function useSetMegaphoneCount() {
  const { mutate } = useSWRConfig();
  return useCallback(
    (count: number) => mutate(megaphoneCountKey, { success: true, count, message: '' }, { revalidate: false }),
    [mutate],
  );
}
