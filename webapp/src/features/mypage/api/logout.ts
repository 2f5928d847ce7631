import useSWRMutation from 'swr/mutation';
import { api } from '@/api/client';
import { settle } from '@/api/outcome';

export function logout() {
  return settle(api.POST('/auth/logout'));
}

export function useLogout() {
  return useSWRMutation('POST /auth/logout', () => logout());
}
