import useSWRMutation from 'swr/mutation';
import { api, type Schemas } from '@/api/client';
import { settle } from '@/api/outcome';

export type RealNameBody = Schemas['RealNameBody'];

export function updateRealName(body: RealNameBody) {
  return settle(api.POST('/user/update-realname', { body }));
}

export function useUpdateRealName() {
  return useSWRMutation('POST /user/update-realname', (_key: string, { arg }: { arg: RealNameBody }) => updateRealName(arg));
}
