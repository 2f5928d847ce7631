import useSWR from 'swr';
import useSWRMutation from 'swr/mutation';
import { api, type Schemas } from '@/api/client';
import { settleConsole, unwrapConsole } from './session';

export type AdminWordset = Schemas['AdminWordset'];
export type AdminWordsetDetail = Schemas['AdminWordsetDetail'];
export type WordsetQueue = 'pending' | 'approved' | 'rejected';

/** Word sets of a status: waiting ones oldest first, decided ones newest first. */
export function useAdminWordsets(status: WordsetQueue) {
  return useSWR<AdminWordset[], Error>(
    `admin/wordsets?status=${status}`,
    async () => (await unwrapConsole(api.GET('/admin/wordsets', { params: { query: { status } } }))).wordsets,
  );
}

/** A word set with its refund account: asked only when the operator opens it (the look is audited). */
export function fetchAdminWordset(id: number) {
  return settleConsole(api.GET('/admin/wordsets/{id}', { params: { path: { id } } }));
}

export function useApproveWordset() {
  return useSWRMutation('POST /admin/wordsets/approve', (_key: string, { arg }: { arg: number }) =>
    settleConsole(api.POST('/admin/wordsets/{id}/approve', { params: { path: { id: arg } } })),
  );
}

export function useRejectWordset() {
  return useSWRMutation('POST /admin/wordsets/reject', (_key: string, { arg }: { arg: { id: number; reason: string } }) =>
    settleConsole(api.POST('/admin/wordsets/{id}/reject', { params: { path: { id: arg.id } }, body: { reason: arg.reason } })),
  );
}

export function useRecordRefund() {
  return useSWRMutation('POST /admin/wordsets/refunded', (_key: string, { arg }: { arg: number }) =>
    settleConsole(api.POST('/admin/wordsets/{id}/refunded', { params: { path: { id: arg } } })),
  );
}
