import useSWR from 'swr';
import useSWRMutation from 'swr/mutation';
import { api, type Schemas } from '@/api/client';
import { settle } from '@/api/outcome';
import { limits } from '@/config/limits';

export type CommentItem = Schemas['CommentItem'];

const KEY = 'GET /comments';

async function fetchComments(): Promise<CommentItem[]> {
  const outcome = await settle(api.GET('/comments'));
  if (!outcome.ok) throw new Error('comments');
  return outcome.data;
}

/** The board's newest comments, refreshed every 10 seconds while it is shown. */
export function useComments() {
  return useSWR<CommentItem[], Error>(KEY, fetchComments, { refreshInterval: limits.commentRefreshMs });
}

export function postComment(content: string) {
  return settle(api.POST('/comments', { body: { content } }));
}

export function usePostComment() {
  return useSWRMutation(KEY, (_key: string, { arg }: { arg: string }) => postComment(arg), {
    populateCache: false,
    revalidate: true,
  });
}
