import useSWR from 'swr';
import { useAuthCheck } from './auth-check';
import { api } from './client';
import { unwrap } from './outcome';

export const wordHistoryKey = '/word-history';

export function fetchWordHistory() {
  return unwrap(api.GET('/word-history'));
}

export type WordHistory = Awaited<ReturnType<typeof fetchWordHistory>>;

/** The words the user shared with partners, newest first; not requested while logged out. */
export function useWordHistory() {
  const { data: auth } = useAuthCheck();
  return useSWR<WordHistory, Error>(auth?.loggedIn === true ? wordHistoryKey : null, fetchWordHistory);
}
