import useSWRMutation from 'swr/mutation';
import { api, type Schemas } from '@/api/client';
import { settle } from '@/api/outcome';

export type RegisterBody = Schemas['RegisterBody'];

export function register(body: RegisterBody) {
  return settle(api.POST('/register', { body }));
}

export function useRegister() {
  return useSWRMutation('POST /register', (_key: string, { arg }: { arg: RegisterBody }) => register(arg));
}
