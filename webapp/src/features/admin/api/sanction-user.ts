import useSWRMutation from 'swr/mutation';
import { api, type Schemas } from '@/api/client';
import { settleConsole } from './session';

export type SanctionBody = Schemas['SanctionBody'];

export function useSanctionUser(id: number) {
  return useSWRMutation(['POST /admin/users/sanctions', id], (_key, { arg }: { arg: SanctionBody }) =>
    settleConsole(api.POST('/admin/users/{id}/sanctions', { params: { path: { id } }, body: arg })),
  );
}
