import useSWRMutation from 'swr/mutation';
import { api, type Schemas } from '@/api/client';
import { settle } from '@/api/outcome';

export type SetNicknameBody = Schemas['NicknameBody'];

export function setNickname(body: SetNicknameBody) {
  return settle(api.POST('/nickname/set-nickname', { body }));
}

export function useSetNickname() {
  return useSWRMutation('POST /nickname/set-nickname', (_key: string, { arg }: { arg: SetNicknameBody }) =>
    setNickname(arg),
  );
}
