import useSWRMutation from 'swr/mutation';
import { api } from '@/api/client';
import { settle } from '@/api/outcome';

export function withdraw() {
  return settle(api.POST('/auth/withdraw'));
}

export function useWithdraw() {
  return useSWRMutation('POST /auth/withdraw', () => withdraw());
}
