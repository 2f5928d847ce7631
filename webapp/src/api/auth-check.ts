import useSWR from 'swr';
import { api } from './client';
import { unwrap } from './outcome';

export const authCheckKey = '/auth/check';

export function fetchAuthCheck() {
  return unwrap(api.GET('/auth/check'));
}

/** Whether the session cookie belongs to a logged-in user. */
export function useAuthCheck() {
  return useSWR<Awaited<ReturnType<typeof fetchAuthCheck>>, Error>(authCheckKey, fetchAuthCheck);
}
