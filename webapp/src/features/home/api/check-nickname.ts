import { api } from '@/api/client';
import { settle } from '@/api/outcome';

/** Asks the server whether a nickname would be saved (its rules and the abuse filter), saving nothing. */
export function checkNickname(nickname: string) {
  return settle(api.POST('/nickname/check', { body: { nickname } }));
}
