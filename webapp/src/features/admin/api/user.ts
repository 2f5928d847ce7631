import useSWR from 'swr';
import { api, type Schemas } from '@/api/client';
import { unwrapConsole } from './session';

export type UserDetail = Schemas['UserDetail'];
export type SanctionItem = Schemas['SanctionItem'];
export type ReportBrief = Schemas['ReportBrief'];
export type Restriction = Schemas['AccountRestricted'];

/** A user's page. Every read is audited: no refetch on focus. */
export function useUser(id: number) {
  return useSWR<UserDetail, Error>(
    ['admin/user', id],
    () => unwrapConsole(api.GET('/admin/users/{id}', { params: { path: { id } } })),
    { revalidateOnFocus: false, revalidateOnReconnect: false },
  );
}
