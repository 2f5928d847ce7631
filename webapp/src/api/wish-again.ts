import useSWRMutation from 'swr/mutation';
import { api } from './client';
import { settle } from './outcome';

/**
 * "다시 만나고 싶어요" after a chat of the caller's that ended within the hour. `paired` is
 * true only when the partner had said it too; false says nothing of the partner.
 */
export function wishAgain(roomId: string) {
  return settle(api.POST('/again/wish', { body: { roomId } }));
}

export function useWishAgain() {
  return useSWRMutation('POST /again/wish', (_key: string, { arg }: { arg: string }) => wishAgain(arg));
}
