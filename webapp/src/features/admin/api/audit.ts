import useSWRInfinite from 'swr/infinite';
import { api, type Schemas } from '@/api/client';
import { unwrapConsole } from './session';

export type AuditItem = Schemas['AuditItem'];
type AuditPage = Schemas['AuditPage'];

/** The audit log, 100 lines a page, newest first; each next page starts before the last line shown. */
export function useAuditLog() {
  return useSWRInfinite<AuditPage, Error>(
    (index: number, previous: AuditPage | null) => {
      if (index === 0) return ['admin/audit', null];
      const before = previous?.nextBefore;
      return before === undefined ? null : ['admin/audit', before];
    },
    ([, before]: readonly [string, number | null]) =>
      unwrapConsole(api.GET('/admin/audit', { params: { query: before === null ? {} : { before } } })),
    { revalidateFirstPage: false, revalidateOnFocus: false },
  );
}
