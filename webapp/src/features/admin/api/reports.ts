import useSWR from 'swr';
import { api, type Schemas } from '@/api/client';
import { unwrapConsole } from './session';

export type ReportItem = Schemas['ReportItem'];
export type QueueStatus = 'open' | 'closed';

const REFRESH_MS = 30_000;

/** The queue: open reports oldest first, or resolved ones latest first. */
export function useReports(status: QueueStatus) {
  return useSWR<Schemas['ReportList'], Error>(
    ['admin/reports', status],
    () => unwrapConsole(api.GET('/admin/reports', { params: { query: { status } } })),
    { refreshInterval: REFRESH_MS },
  );
}
