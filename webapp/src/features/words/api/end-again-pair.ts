import useSWRMutation from 'swr/mutation';
import { api } from '@/api/client';
import { settle } from '@/api/outcome';

/** Takes pair `id` back, for both: neither can invite the other again. */
export function endAgainPair(id: number) {
  return settle(api.DELETE('/again/pairs/{id}', { params: { path: { id } } }));
}

export function useEndAgainPair() {
  return useSWRMutation('DELETE /again/pairs', (_key: string, { arg }: { arg: number }) => endAgainPair(arg));
}
