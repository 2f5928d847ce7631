import useSWRMutation from 'swr/mutation';
import { api, type Schemas } from '@/api/client';
import { settle } from '@/api/outcome';

export type CheckUserBody = Schemas['UsernameBody'];

export function checkUser(body: CheckUserBody) {
  return settle(api.POST('/password/check-user', { body }));
}

export function useCheckUser() {
  return useSWRMutation('POST /password/check-user', (_key: string, { arg }: { arg: CheckUserBody }) => checkUser(arg));
}
