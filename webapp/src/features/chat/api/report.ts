import useSWRMutation from 'swr/mutation';
import { api, type Schemas } from '@/api/client';
import { settle } from '@/api/outcome';

export type ReportBody = Schemas['ReportBody'];

/**
 * Reports the partner of a chat. The server ends an open chat (this user is told
 * `chatEndedByReport`, the partner only that this user left) and never matches the two again.
 */
export function report(body: ReportBody) {
  return settle(api.POST('/report', { body }));
}

export function useReport() {
  return useSWRMutation('POST /report', (_key: string, { arg }: { arg: ReportBody }) => report(arg));
}
