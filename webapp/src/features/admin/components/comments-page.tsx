import { Link } from 'react-router';
import { koAdmin } from '@/i18n/ko-admin';
import { useHideComment, useReviewComments } from '../api/comments';
import { formatDateTime } from '../lib/format';
import { HideableList } from './hideable-list';

/** /admin/comments: the board's comments, newest first, with hiding. */
export function CommentsPage() {
  const t = koAdmin.comments;
  const { data, error, mutate } = useReviewComments();
  const { trigger, isMutating } = useHideComment();
  return (
    <HideableList
      texts={t}
      items={data}
      error={error}
      reload={() => mutate()}
      content={(comment) => comment.content}
      meta={(comment) => (
        <>
          <span>{comment.nickname}</span>
          {comment.userId !== undefined ? <Link to={`/admin/users/${comment.userId}`}>{t.member(comment.userId)}</Link> : <span>{t.guest}</span>}
          <time dateTime={comment.createdAt}>{formatDateTime(comment.createdAt)}</time>
          <span>{comment.ip}</span>
        </>
      )}
      hide={(id, reason) => trigger({ id, reason })}
      busy={isMutating}
    />
  );
}
