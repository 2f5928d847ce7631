import useSWR from 'swr';
import useSWRMutation from 'swr/mutation';
import { api, type Schemas } from '@/api/client';
import { settleConsole, unwrapConsole } from './session';

export type ReviewMegaphone = Schemas['ReviewMegaphone'];

/** Megaphones as operators see them: the newest 200, hidden ones too. */
export function useReviewMegaphones() {
  return useSWR<ReviewMegaphone[], Error>('admin/megaphones', async () => (await unwrapConsole(api.GET('/admin/megaphones'))).megaphones);
}

export function useHideMegaphone() {
  return useSWRMutation('POST /admin/megaphones/hide', (_key: string, { arg }: { arg: { id: number; reason: string } }) =>
    settleConsole(api.POST('/admin/megaphones/{id}/hide', { params: { path: { id: arg.id } }, body: { reason: arg.reason } })),
  );
}
