import { api, type Schemas } from '@/api/client';
import { settle } from '@/api/outcome';

export type TransferStatus = Schemas['TransferStatus'];

/** A transfer's status, polled each second while the page checks for the deposit. */
export function fetchTransferStatus(id: number) {
  return settle(api.GET('/sp_payments/status/{id}', { params: { path: { id } } }));
}
