import useSWR from 'swr';
import { useAuthCheck } from '@/api/auth-check';
import { api, type Schemas } from '@/api/client';
import { unwrap } from '@/api/outcome';

export const myTransfersKey = '/sp_payments/mine';

export function fetchMyTransfers() {
  return unwrap(api.GET('/sp_payments/mine'));
}

export type MyTransfers = Awaited<ReturnType<typeof fetchMyTransfers>>;
export type TransferItem = Schemas['TransferItem'];
export type Destination = Schemas['Destination'];

/** The user's transfers, newest first; not requested while logged out. */
export function useMyTransfers() {
  const { data: auth } = useAuthCheck();
  return useSWR<MyTransfers, Error>(auth?.loggedIn === true ? myTransfersKey : null, fetchMyTransfers);
}
