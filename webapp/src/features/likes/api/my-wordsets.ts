import useSWR from 'swr';
import { api, type Schemas } from '@/api/client';
import { unwrap } from '@/api/outcome';

export const myWordsetsKey = (id: number) => `/wordsets/mine/${id}`;

export function fetchMyWordsets(id: number) {
  return unwrap(api.GET('/wordsets/mine/{id}', { params: { path: { id } } }));
}

export type MyWordset = Schemas['MyWordset'];

/** The user's word sets with their review, newest first; not requested without an id. */
export function useMyWordsets(id: number | undefined) {
  return useSWR<MyWordset[], Error>(id === undefined ? null : myWordsetsKey(id), async () => (await fetchMyWordsets(id ?? 0)).wordsets);
}
