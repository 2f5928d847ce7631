import useSWRMutation from 'swr/mutation';
import { api, type Schemas } from '@/api/client';
import { settle } from '@/api/outcome';

export type EndMatchBody = Schemas['EndBody'];

export function endMatch(body: EndMatchBody) {
  return settle(api.POST('/match/end', { body }));
}

export function useEndMatch() {
  return useSWRMutation('POST /match/end', (_key: string, { arg }: { arg: EndMatchBody }) => endMatch(arg));
}
