import useSWRMutation from 'swr/mutation';
import { api, type Schemas } from '@/api/client';
import { settle } from '@/api/outcome';

export type ReportBody = Schemas['ReportBody'];

/**
 * Reports the partner of a chat. The server ends an open chat for both members with
 * `chatEndedByReport` and never matches the two again.
 */
export function report(body: ReportBody) {
  return settle(api.POST('/report', { body }));
}

export function useReport() {
  return useSWRMutation('POST /report', (_key: string, { arg }: { arg: ReportBody }) => report(arg));
}
