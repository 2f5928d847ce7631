import useSWRMutation from 'swr/mutation';
import { api } from '@/api/client';
import { settle } from '@/api/outcome';

/** Never be matched with the partner of that room again (the block holds both ways). */
export function blockPartner(roomId: string) {
  return settle(api.POST('/match/block', { body: { roomId } }));
}

export function useBlockPartner() {
  return useSWRMutation('POST /match/block', (_key: string, { arg }: { arg: string }) => blockPartner(arg));
}
