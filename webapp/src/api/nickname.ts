import useSWRMutation from 'swr/mutation';
import { api, type Schemas } from '@/api/client';
import { settle } from '@/api/outcome';

export type SetNicknameBody = Schemas['NicknameBody'];

/**
 * Asks the server whether a nickname would be saved (its rules, the abuse filter, and whether
 * another account has it), saving nothing.
 */
export function checkNickname(nickname: string) {
  return settle(api.POST('/nickname/check', { body: { nickname } }));
}

export function setNickname(body: SetNicknameBody) {
  return settle(api.POST('/nickname/set-nickname', { body }));
}

export function useSetNickname() {
  return useSWRMutation('POST /nickname/set-nickname', (_key: string, { arg }: { arg: SetNicknameBody }) =>
    setNickname(arg),
  );
}
