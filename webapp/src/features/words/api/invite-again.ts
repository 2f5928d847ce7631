import useSWRMutation from 'swr/mutation';
import { api } from '@/api/client';
import { settle } from '@/api/outcome';

/**
 * 다시 텔레파시: invites the other of pair `pairId` into a new chat under their word. The answer
 * is never told: a chat opens (`matched` with `again`) before `expiresAt`, or it did not.
 */
export function inviteAgain(pairId: number) {
  return settle(api.POST('/again/invite', { body: { pairId } }));
}

export function useInviteAgain() {
  return useSWRMutation('POST /again/invite', (_key: string, { arg }: { arg: number }) => inviteAgain(arg));
}
