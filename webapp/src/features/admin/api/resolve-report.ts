import useSWRMutation from 'swr/mutation';
import { api, type Schemas } from '@/api/client';
import { settleConsole } from './session';

export type ResolveBody = Schemas['ResolveBody'];

export function useResolveReport(id: number) {
  return useSWRMutation(['POST /admin/reports/resolve', id], (_key, { arg }: { arg: ResolveBody }) =>
    settleConsole(api.POST('/admin/reports/{id}/resolve', { params: { path: { id } }, body: arg })),
  );
}
