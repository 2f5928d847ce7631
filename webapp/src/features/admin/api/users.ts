import useSWR from 'swr';
import { api, type Schemas } from '@/api/client';
import { unwrapConsole } from './session';

export type UserBrief = Schemas['UserBrief'];

/** Users whose id or username is `q`, or whose nickname starts with it; nothing is asked for an empty `q`. */
export function useUserSearch(q: string) {
  return useSWR<Schemas['UserList'], Error>(
    q === '' ? null : ['admin/users', q],
    () => unwrapConsole(api.GET('/admin/users', { params: { query: { q } } })),
    { revalidateOnFocus: false, revalidateOnReconnect: false },
  );
}
