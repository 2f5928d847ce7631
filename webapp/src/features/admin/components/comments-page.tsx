import { useState } from 'react';
import { Link } from 'react-router';
import { toast } from 'sonner';
import { Button } from '@/components/button';
import { koAdmin } from '@/i18n/ko-admin';
import { useHideComment, useReviewComments, type ReviewComment } from '../api/comments';
import { formatDateTime } from '../lib/format';
import { ReasonDialog } from './reason-dialog';
import { ConsolePageHeader, EmptyState, ErrorState, LoadingState } from './states';

function HideDialog({ comment, onClose, onHidden }: { comment: ReviewComment | null; onClose: () => void; onHidden: () => Promise<unknown> }) {
  const t = koAdmin.comments;
  const { trigger, isMutating } = useHideComment();
  return (
    <ReasonDialog
      open={comment !== null}
      title={t.hideTitle}
      message={t.hideMessage}
      target={comment ? <p className="lift-form__target">{comment.content}</p> : null}
      reasonLabel={t.hideReason}
      confirm={t.hideConfirm}
      pending={t.hiding}
      failed={t.hideFailed}
      variant="danger"
      busy={isMutating}
      submit={(reason) => (comment ? trigger({ id: comment.id, reason }) : Promise.resolve({ ok: false, network: true }))}
      onDone={async (outcome) => {
        if (!outcome.ok) return;
        toast.success(t.hideDone);
        await onHidden();
      }}
      onClose={onClose}
    />
  );
}

/** /admin/comments: the board's comments, newest first, with hiding. */
export function CommentsPage() {
  const t = koAdmin.comments;
  const { data, error, mutate } = useReviewComments();
  const [hiding, setHiding] = useState<ReviewComment | null>(null);

  return (
    <>
      <ConsolePageHeader title={t.title} lead={t.lead} />
      {data ? (
        data.length === 0 ? (
          <EmptyState>{t.empty}</EmptyState>
        ) : (
          <ul className="comment-review" aria-label={t.title}>
            {data.map((comment) => (
              <li key={comment.id} className="comment-review__item" data-hidden={comment.hiddenAt !== undefined || undefined}>
                <div className="comment-review__body">
                  <p className="comment-review__content">{comment.content}</p>
                  <p className="comment-review__meta muted">
                    <span>{comment.nickname}</span>
                    {comment.userId !== undefined ? (
                      <Link to={`/admin/users/${comment.userId}`}>{t.member(comment.userId)}</Link>
                    ) : (
                      <span>{t.guest}</span>
                    )}
                    <time dateTime={comment.createdAt}>{formatDateTime(comment.createdAt)}</time>
                    <span>{comment.ip}</span>
                  </p>
                </div>
                {comment.hiddenAt !== undefined ? (
                  <span className="comment-review__hidden">{t.hidden(formatDateTime(comment.hiddenAt))}</span>
                ) : (
                  <Button
                    size="sm"
                    variant="secondary"
                    onClick={() => {
                      setHiding(comment);
                    }}
                  >
                    {t.hide}
                  </Button>
                )}
              </li>
            ))}
          </ul>
        )
      ) : error ? (
        <ErrorState error={error} onRetry={() => void mutate()} />
      ) : (
        <LoadingState />
      )}
      <HideDialog
        comment={hiding}
        onClose={() => {
          setHiding(null);
        }}
        onHidden={() => mutate()}
      />
    </>
  );
}
