import useSWRMutation from 'swr/mutation';
import { api, type Schemas } from '@/api/client';
import { settle } from '@/api/outcome';

export type LoginBody = Schemas['LoginBody'];

export function login(body: LoginBody) {
  return settle(api.POST('/auth/login', { body }));
}

export function useLogin() {
  return useSWRMutation('POST /auth/login', (_key: string, { arg }: { arg: LoginBody }) => login(arg));
}
