import { useState } from 'react';
import { Link } from 'react-router';
import { toast } from 'sonner';
import { Button } from '@/components/button';
import { koAdmin } from '@/i18n/ko-admin';
import { useHideMegaphone, useReviewMegaphones, type ReviewMegaphone } from '../api/megaphones';
import { formatDateTime } from '../lib/format';
import { ReasonDialog } from './reason-dialog';
import { ConsolePageHeader, EmptyState, ErrorState, LoadingState } from './states';

function HideDialog({ megaphone, onClose, onHidden }: { megaphone: ReviewMegaphone | null; onClose: () => void; onHidden: () => Promise<unknown> }) {
  const t = koAdmin.megaphones;
  const { trigger, isMutating } = useHideMegaphone();
  return (
    <ReasonDialog
      open={megaphone !== null}
      title={t.hideTitle}
      message={t.hideMessage}
      target={megaphone ? <p className="lift-form__target">{megaphone.message}</p> : null}
      reasonLabel={t.hideReason}
      confirm={t.hideConfirm}
      pending={t.hiding}
      failed={t.hideFailed}
      variant="danger"
      busy={isMutating}
      submit={(reason) => (megaphone ? trigger({ id: megaphone.id, reason }) : Promise.resolve({ ok: false, network: true }))}
      onDone={async (outcome) => {
        if (!outcome.ok) return;
        toast.success(t.hideDone);
        await onHidden();
      }}
      onClose={onClose}
    />
  );
}

/** /admin/megaphones: the megaphones sent, newest first, with hiding. */
export function MegaphonesPage() {
  const t = koAdmin.megaphones;
  const { data, error, mutate } = useReviewMegaphones();
  const [hiding, setHiding] = useState<ReviewMegaphone | null>(null);

  return (
    <>
      <ConsolePageHeader title={t.title} lead={t.lead} />
      {data ? (
        data.length === 0 ? (
          <EmptyState>{t.empty}</EmptyState>
        ) : (
          <ul className="comment-review" aria-label={t.title}>
            {data.map((megaphone) => (
              <li key={megaphone.id} className="comment-review__item" data-hidden={megaphone.hiddenAt !== undefined || undefined}>
                <div className="comment-review__body">
                  <p className="comment-review__content">{megaphone.message}</p>
                  <p className="comment-review__meta muted">
                    <span>{megaphone.nickname}</span>
                    <Link to={`/admin/users/${String(megaphone.userId)}`}>{t.member(megaphone.userId)}</Link>
                    <time dateTime={megaphone.sentAt}>{formatDateTime(megaphone.sentAt)}</time>
                  </p>
                </div>
                {megaphone.hiddenAt !== undefined ? (
                  <span className="comment-review__hidden">{t.hidden(formatDateTime(megaphone.hiddenAt))}</span>
                ) : (
                  <Button
                    size="sm"
                    variant="secondary"
                    onClick={() => {
                      setHiding(megaphone);
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
        megaphone={hiding}
        onClose={() => {
          setHiding(null);
        }}
        onHidden={() => mutate()}
      />
    </>
  );
}
