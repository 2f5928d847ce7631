import useSWR from 'swr';
import useSWRMutation from 'swr/mutation';
import { api, type Schemas } from '@/api/client';
import { settleConsole, unwrapConsole } from './session';

export type ReviewComment = Schemas['ReviewComment'];

/** The comment board as operators see it: the newest 200, hidden ones too. */
export function useReviewComments() {
  return useSWR<ReviewComment[], Error>('admin/comments', async () => (await unwrapConsole(api.GET('/admin/comments'))).comments);
}

export function useHideComment() {
  return useSWRMutation('POST /admin/comments/hide', (_key: string, { arg }: { arg: { id: number; reason: string } }) =>
    settleConsole(api.POST('/admin/comments/{id}/hide', { params: { path: { id: arg.id } }, body: { reason: arg.reason } })),
  );
}
