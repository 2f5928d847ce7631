import useSWRMutation from 'swr/mutation';
import { api, type Schemas } from '@/api/client';
import { settle } from '@/api/outcome';

export type AdminLoginBody = Schemas['AdminLoginBody'];

export function useAdminLogin() {
  return useSWRMutation('POST /admin/login', (_key: string, { arg }: { arg: AdminLoginBody }) =>
    settle(api.POST('/admin/login', { body: arg })),
  );
}
