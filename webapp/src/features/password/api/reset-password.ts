import useSWRMutation from 'swr/mutation';
import { api, type Schemas } from '@/api/client';
import { settle } from '@/api/outcome';

export type ResetPasswordBody = Schemas['ResetBody'];

export function resetPassword(body: ResetPasswordBody) {
  return settle(api.POST('/password/reset', { body }));
}

export function useResetPassword() {
  return useSWRMutation('POST /password/reset', (_key: string, { arg }: { arg: ResetPasswordBody }) => resetPassword(arg));
}
