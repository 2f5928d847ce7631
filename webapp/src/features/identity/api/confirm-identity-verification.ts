import useSWRMutation from 'swr/mutation';
import { api, type Schemas } from '@/api/client';
import { settle } from '@/api/outcome';

export type ConfirmIdentityBody = Schemas['ConfirmBody'];

export function confirmIdentityVerification(body: ConfirmIdentityBody) {
  return settle(api.POST('/verify/confirm', { body }));
}

export function useConfirmIdentityVerification() {
  return useSWRMutation('POST /verify/confirm', (_key: string, { arg }: { arg: ConfirmIdentityBody }) =>
    confirmIdentityVerification(arg),
  );
}
