import useSWRMutation from 'swr/mutation';
import { api, type Schemas } from '@/api/client';
import { settle } from '@/api/outcome';

export type RefundBody = Schemas['RefundBody'];

/** The four words and the refund account, bought with a paid transfer. */
export function submitWordset(body: RefundBody) {
  return settle(api.POST('/sp_payments/update-refund', { body }));
}

export function useSubmitWordset() {
  return useSWRMutation('POST /sp_payments/update-refund', (_key: string, { arg }: { arg: RefundBody }) => submitWordset(arg));
}
