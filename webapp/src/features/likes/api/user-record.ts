import useSWR from 'swr';
import { api } from '@/api/client';
import { unwrap } from '@/api/outcome';

export const userRecordKey = (id: number) => `/user/${id}`;

export function fetchUserRecord(id: number) {
  return unwrap(api.GET('/user/{id}', { params: { path: { id } } }));
}

export type UserRecord = Awaited<ReturnType<typeof fetchUserRecord>>;

/** The user's own record (`real_name`, null until given); not requested without an id. */
export function useUserRecord(id: number | undefined) {
  return useSWR<UserRecord, Error>(id === undefined ? null : userRecordKey(id), () => fetchUserRecord(id ?? 0));
}
