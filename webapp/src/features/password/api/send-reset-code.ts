import useSWRMutation from 'swr/mutation';
import { api, type Schemas } from '@/api/client';
import { settle } from '@/api/outcome';

export type SendResetCodeBody = Schemas['UsernameBody'];

export function sendResetCode(body: SendResetCodeBody) {
  return settle(api.POST('/password/send-code', { body }));
}

export function useSendResetCode() {
  return useSWRMutation('POST /password/send-code', (_key: string, { arg }: { arg: SendResetCodeBody }) => sendResetCode(arg));
}
