import useSWRMutation from 'swr/mutation';
import { api } from '@/api/client';
import { settleConsole } from './session';

export function useLiftSanction() {
  return useSWRMutation('POST /admin/sanctions/lift', (_key: string, { arg }: { arg: { id: number; reason: string } }) =>
    settleConsole(api.POST('/admin/sanctions/{id}/lift', { params: { path: { id: arg.id } }, body: { reason: arg.reason } })),
  );
}
