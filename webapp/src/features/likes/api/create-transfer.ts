import useSWRMutation from 'swr/mutation';
import { api, type Schemas } from '@/api/client';
import { settle } from '@/api/outcome';

export type CreateTransferBody = Schemas['CreateTransferBody'];
export type TransferOpened = Schemas['TransferOpened'];

export function createTransfer(body: CreateTransferBody) {
  return settle(api.POST('/sp_payments/create', { body }));
}

/** Opens a bank transfer of 1,000 won, or answers the one still open. */
export function useCreateTransfer() {
  return useSWRMutation('POST /sp_payments/create', (_key: string, { arg }: { arg: CreateTransferBody }) => createTransfer(arg));
}
