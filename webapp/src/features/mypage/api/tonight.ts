import useSWR from 'swr';
import { useAuthCheck } from '@/api/auth-check';
import { api } from '@/api/client';
import { unwrap } from '@/api/outcome';

export const tonightKey = '/match/tonight';

export function fetchTonight() {
  return unwrap(api.GET('/match/tonight'));
}

/** Tonight's word: the one whose rooms seated the most people this evening, and how many; no word before anyone met. */
export type Tonight = Awaited<ReturnType<typeof fetchTonight>>;

/** Tonight's word, for My page; not requested while logged out. */
export function useTonight() {
  const { data: auth } = useAuthCheck();
  return useSWR<Tonight, Error>(auth?.loggedIn === true ? tonightKey : null, fetchTonight);
}
