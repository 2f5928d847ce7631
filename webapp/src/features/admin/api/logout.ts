import useSWRMutation from 'swr/mutation';
import { api } from '@/api/client';
import { settle } from '@/api/outcome';

export function useAdminLogout() {
  return useSWRMutation('POST /admin/logout', () => settle(api.POST('/admin/logout')));
}
