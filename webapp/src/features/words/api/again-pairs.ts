import useSWR from 'swr';
import { useAuthCheck } from '@/api/auth-check';
import { api, type Schemas } from '@/api/client';
import { unwrap } from '@/api/outcome';

export type AgainPair = Schemas['PairView'];

export const againPairsKey = '/again/pairs';

export function fetchAgainPairs() {
  return unwrap(api.GET('/again/pairs'));
}

/** The user's pairs that hold now (both wished to meet again), newest first; not asked while logged out. */
export function useAgainPairs() {
  const { data: auth } = useAuthCheck();
  return useSWR(auth?.loggedIn === true ? againPairsKey : null, fetchAgainPairs);
}
