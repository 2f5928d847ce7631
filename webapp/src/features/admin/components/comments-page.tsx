import { useState } from 'react';
import { Link } from 'react-router';
import { toast } from 'sonner';
import { serverMessage } from '@/api/outcome';
import { Button } from '@/components/button';
import { Modal } from '@/components/modal';
import { koAdmin } from '@/i18n/ko-admin';
import { useHideComment, useReviewComments, type ReviewComment } from '../api/comments';
import { checkDecision, REASON_MAX_CHARS } from '../lib/decision';
import { formatDateTime } from '../lib/format';
import { ConsolePageHeader, EmptyState, ErrorState, LoadingState } from './states';
import { TextAreaField } from './text-area-field';

function HideDialog({ comment, onClose, onHidden }: { comment: ReviewComment | null; onClose: () => void; onHidden: () => Promise<unknown> }) {
  const t = koAdmin.comments;
  const { trigger, isMutating } = useHideComment();
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const length = Array.from(reason).length;

  function close() {
    setReason('');
    setError(null);
    onClose();
  }

  async function hide() {
    if (!comment) return;
    // The reason follows a sanction's rule: 1–200 characters.
    const checked = checkDecision({ action: 'warn', days: '', reason });
    if (!checked.ok) {
      setError(checked.errors.reason ?? null);
      return;
    }
    const outcome = await trigger({ id: comment.id, reason: checked.decision.reason });
    if (!outcome.ok) {
      if (outcome.network) setError(koAdmin.app.networkFailed);
      else if (outcome.status !== 401) setError(serverMessage(outcome) ?? t.hideFailed);
      return;
    }
    toast.success(t.hideDone);
    await onHidden();
    close();
  }

  return (
    <Modal open={comment !== null} title={t.hideTitle} description={t.hideMessage} onClose={isMutating ? undefined : close}>
      <div className="form lift-form">
        {comment ? <p className="lift-form__target">{comment.content}</p> : null}
        <TextAreaField
          label={t.hideReason}
          rows={3}
          value={reason}
          error={error}
          count={{ length, max: REASON_MAX_CHARS, text: koAdmin.resolve.counter(length, REASON_MAX_CHARS) }}
          onChange={(event) => {
            setReason(event.target.value);
          }}
        />
      </div>
      <div className="modal__actions modal__actions--row">
        <Button variant="secondary" block onClick={close} disabled={isMutating}>
          {koAdmin.app.cancel}
        </Button>
        <Button variant="danger" block loading={isMutating} onClick={() => void hide()}>
          {isMutating ? t.hiding : t.hideConfirm}
        </Button>
      </div>
    </Modal>
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
