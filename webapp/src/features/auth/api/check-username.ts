import useSWRMutation from 'swr/mutation';
import { api, type Schemas } from '@/api/client';
import { settle } from '@/api/outcome';

export type CheckUsernameBody = Schemas['UsernameBody'];

export function checkUsername(body: CheckUsernameBody) {
  return settle(api.POST('/auth/check-username', { body }));
}

export function useCheckUsername() {
  return useSWRMutation('POST /auth/check-username', (_key: string, { arg }: { arg: CheckUsernameBody }) =>
    checkUsername(arg),
  );
}
