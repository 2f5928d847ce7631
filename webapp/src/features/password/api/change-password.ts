import useSWRMutation from 'swr/mutation';
import { api, type Schemas } from '@/api/client';
import { settle } from '@/api/outcome';

export type ChangePasswordBody = Schemas['ChangeBody'];

export function changePassword(body: ChangePasswordBody) {
  return settle(api.POST('/password/change', { body }));
}

export function useChangePassword() {
  return useSWRMutation('POST /password/change', (_key: string, { arg }: { arg: ChangePasswordBody }) => changePassword(arg));
}
