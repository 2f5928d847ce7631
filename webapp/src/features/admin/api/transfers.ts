import useSWR from 'swr';
import useSWRMutation from 'swr/mutation';
import { api, type Schemas } from '@/api/client';
import { settleConsole, unwrapConsole } from './session';

export type TransferQueue = Schemas['TransferQueue'];
export type AdminTransfer = Schemas['AdminTransfer'];
export type AdminDeposit = Schemas['AdminDeposit'];

/** Transfers not paid, and deposits the bank reported that paid nothing. */
export function useAdminTransfers() {
  return useSWR<TransferQueue, Error>('admin/transfers', () => unwrapConsole(api.GET('/admin/transfers')));
}

export function useConfirmTransfer() {
  return useSWRMutation('POST /admin/transfers/confirm', (_key: string, { arg }: { arg: { id: number; depositId?: number } }) =>
    settleConsole(api.POST('/admin/transfers/{id}/confirm', { params: { path: { id: arg.id } }, body: { depositId: arg.depositId } })),
  );
}
