import useSWR from 'swr';
import { api, type Schemas } from '@/api/client';
import { unwrapConsole } from './session';

export type ReportDetail = Schemas['ReportDetail'];
export type TranscriptLine = Schemas['TranscriptLine'];
export type UserHistory = Schemas['UserHistory'];

export function reportKey(id: number) {
  return ['admin/report', id] as const;
}

/** A report with its chat and both users' history. Every read is audited: no refetch on focus. */
export function useReport(id: number) {
  return useSWR<ReportDetail, Error>(
    reportKey(id),
    () => unwrapConsole(api.GET('/admin/reports/{id}', { params: { path: { id } } })),
    { revalidateOnFocus: false, revalidateOnReconnect: false },
  );
}
