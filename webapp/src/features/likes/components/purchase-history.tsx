import { Button, ButtonLink } from '@/components/button';
import { Card } from '@/components/page';
import { ko } from '@/i18n/ko';
import { formatShortKoreanDate } from '@/lib/date';
import type { TransferItem } from '../api/my-transfers';
import type { MyWordset } from '../api/my-wordsets';

interface PurchaseHistoryProps {
  payments: TransferItem[] | undefined;
  wordsets: MyWordset[] | undefined;
  /** Shows an open transfer's details again. */
  onResume: (payment: TransferItem) => void;
  /** Whether a transfer is on screen above (then no other one is resumed). */
  busy: boolean;
}

function paymentStatus(payment: TransferItem): { label: string; tone: string } {
  const labels = ko.likes.paymentStatus;
  if (payment.status === 'paid') return payment.used ? { label: labels.used, tone: 'done' } : { label: labels.paid, tone: 'ok' };
  if (payment.status === 'expired') return { label: labels.expired, tone: 'muted' };
  return { label: labels.pending, tone: 'wait' };
}

/** The user's transfers and word sets, with what each waits for. */
export function PurchaseHistory({ payments, wordsets, onResume, busy }: PurchaseHistoryProps) {
  const t = ko.likes;
  return (
    <div className="likes-history">
      <Card className="likes-history__section">
        <h2 className="card-title">{t.paymentsTitle}</h2>
        {payments === undefined ? null : payments.length === 0 ? (
          <p className="card-text muted">{t.paymentsEmpty}</p>
        ) : (
          <ul className="history-list" aria-label={t.paymentsTitle}>
            {payments.map((payment) => {
              const status = paymentStatus(payment);
              return (
                <li key={payment.id} className="history-item">
                  <div className="history-item__main">
                    <p className="history-item__title">
                      {t.paymentLabel(payment.id)} · {t.amountValue(payment.amount)}
                    </p>
                    <p className="history-item__meta">
                      {payment.depositor} · {formatShortKoreanDate(payment.createdAt)}
                    </p>
                  </div>
                  <div className="history-item__side">
                    <span className={`status-chip status-chip--${status.tone}`}>{status.label}</span>
                    {payment.status === 'paid' && !payment.used ? (
                      <ButtonLink size="sm" to={`/wordset?payment=${payment.id}`}>
                        {t.writeWords}
                      </ButtonLink>
                    ) : payment.status === 'pending' ? (
                      <Button
                        size="sm"
                        variant="secondary"
                        disabled={busy}
                        onClick={() => {
                          onResume(payment);
                        }}
                      >
                        {t.resume}
                      </Button>
                    ) : null}
                  </div>
                </li>
              );
            })}
          </ul>
        )}
      </Card>
      <Card className="likes-history__section">
        <h2 className="card-title">{t.setsTitle}</h2>
        {wordsets === undefined ? null : wordsets.length === 0 ? (
          <p className="card-text muted">{t.setsEmpty}</p>
        ) : (
          <ul className="history-list" aria-label={t.setsTitle}>
            {wordsets.map((set) => (
              <li key={set.id} className="history-item history-item--set">
                <div className="history-item__main">
                  <ul className="word-chips" aria-label={set.words.join(', ')}>
                    {set.words.map((word) => (
                      <li key={word} className="word-chip">
                        {word}
                      </li>
                    ))}
                  </ul>
                  <p className="history-item__meta">
                    {formatShortKoreanDate(set.createdAt)} ·{' '}
                    {set.status === 'pending'
                      ? t.setPendingNote
                      : set.status === 'approved'
                        ? t.setApprovedNote
                        : set.refundedAt
                          ? t.refundDone
                          : t.refundPending}
                  </p>
                  {set.status === 'rejected' && set.reason ? <p className="history-item__reason">{t.rejectReason(set.reason)}</p> : null}
                </div>
                <div className="history-item__side">
                  <span className={`status-chip status-chip--${set.status === 'approved' ? 'ok' : set.status === 'rejected' ? 'bad' : 'wait'}`}>
                    {t.setStatus[set.status]}
                  </span>
                </div>
              </li>
            ))}
          </ul>
        )}
      </Card>
    </div>
  );
}
