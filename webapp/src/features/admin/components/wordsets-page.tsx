import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { toast } from 'sonner';
import { serverMessage } from '@/api/outcome';
import { Button } from '@/components/button';
import { koAdmin } from '@/i18n/ko-admin';
import {
  fetchAdminWordset,
  useAdminWordsets,
  useApproveWordset,
  useRecordRefund,
  useRejectWordset,
  type AdminWordset,
  type AdminWordsetDetail,
  type WordsetQueue,
} from '../api/wordsets';
import { formatDateTime } from '../lib/format';
import { QueueTabs, type QueueTab } from './queue-tabs';
import { ReasonDialog } from './reason-dialog';
import { ConsolePageHeader, EmptyState, ErrorState, LoadingState } from './states';

function RejectDialog({ set, onClose, onDone }: { set: AdminWordset | null; onClose: () => void; onDone: () => Promise<unknown> }) {
  const t = koAdmin.wordsets;
  const { trigger, isMutating } = useRejectWordset();
  return (
    <ReasonDialog
      open={set !== null}
      title={t.rejectTitle}
      message={t.rejectMessage}
      target={set ? <p className="lift-form__target">{set.words.join(' · ')}</p> : null}
      reasonLabel={t.rejectReason}
      confirm={t.rejectConfirm}
      pending={t.rejecting}
      failed={t.rejectFailed}
      variant="danger"
      busy={isMutating}
      submit={(reason) => (set ? trigger({ id: set.id, reason }) : Promise.resolve({ ok: false, network: true }))}
      onDone={async (outcome) => {
        if (outcome.ok) toast.success(t.rejectDone);
        await onDone();
      }}
      onClose={onClose}
    />
  );
}

/** The refund account of a set, asked when the operator opens it (the look is audited). */
function RefundAccount({ set }: { set: AdminWordset }) {
  const t = koAdmin.wordsets;
  const [detail, setDetail] = useState<AdminWordsetDetail | null>(null);
  const [loading, setLoading] = useState(false);

  async function show() {
    setLoading(true);
    const outcome = await fetchAdminWordset(set.id);
    setLoading(false);
    if (outcome.ok) setDetail(outcome.data);
    else if (!outcome.network && outcome.status !== 401) toast.error(serverMessage(outcome) ?? koAdmin.app.loadFailed);
    else if (outcome.network) toast.error(koAdmin.app.networkFailed);
  }

  if (!detail) {
    return (
      <Button size="sm" variant="secondary" loading={loading} onClick={() => void show()}>
        {t.showRefund}
      </Button>
    );
  }
  const refund = detail.refund;
  return (
    <p className="review-item__refund">
      <span className="muted">{t.refundAccount}: </span>
      {refund ? (
        <strong>{t.refundLine(refund.bank, refund.account, refund.holder ?? t.noHolder)}</strong>
      ) : (
        t.refundGone
      )}
    </p>
  );
}

function WordsetRow({ set, onChanged, onReject }: { set: AdminWordset; onChanged: () => Promise<unknown>; onReject: (set: AdminWordset) => void }) {
  const t = koAdmin.wordsets;
  const approve = useApproveWordset();
  const refund = useRecordRefund();

  async function act(run: () => Promise<{ ok: boolean; network?: boolean; status?: number; message?: string }>, done: string, failed: string) {
    const outcome = await run();
    if (outcome.ok) toast.success(done);
    else if (outcome.network) toast.error(koAdmin.app.networkFailed);
    else if (outcome.status !== 401) toast.error(outcome.message ?? failed);
    await onChanged();
  }

  return (
    <li className="review-item" data-overdue={(set.status === 'pending' && set.overdue) || undefined}>
      <div className="review-item__body">
        <p className="review-item__title">
          <span>{t.number(set.id)}</span>
          {set.status === 'pending' && set.overdue ? <span className="review-chip review-chip--expired">{t.overdue}</span> : null}
          {set.refundDue ? <span className="review-chip review-chip--due">{t.refundDue}</span> : null}
        </p>
        <ul className="review-words" aria-label={set.words.join(', ')}>
          {set.words.map((word) => (
            <li key={word}>{word}</li>
          ))}
        </ul>
        <dl className="review-item__facts">
          <div>
            <dt>{t.member}</dt>
            <dd>
              <Link to={`/admin/users/${set.userId}`}>{set.nickname ?? set.username}</Link>
              <span className="muted"> ({set.username})</span>
            </dd>
          </div>
          <div>
            <dt>{t.submittedAt}</dt>
            <dd>{formatDateTime(set.createdAt)}</dd>
          </div>
          {set.reviewedAt ? (
            <div>
              <dt>{t.reviewedAt}</dt>
              <dd>
                {formatDateTime(set.reviewedAt)} · {set.reviewedBy ?? t.cli}
                {set.activeFromRound !== undefined ? ` · ${t.fromRound(set.activeFromRound)}` : ''}
              </dd>
            </div>
          ) : null}
          {set.reason ? (
            <div>
              <dt>{t.reason}</dt>
              <dd>{set.reason}</dd>
            </div>
          ) : null}
          {set.refundedAt ? (
            <div>
              <dt>{t.refundAccount}</dt>
              <dd>{t.refunded(formatDateTime(set.refundedAt))}</dd>
            </div>
          ) : null}
        </dl>
        {set.status === 'pending' || set.refundDue ? <RefundAccount set={set} /> : null}
      </div>
      <div className="review-item__actions">
        {set.status === 'pending' ? (
          <>
            <Button
              size="sm"
              loading={approve.isMutating}
              onClick={() => void act(() => approve.trigger(set.id), t.approved_, t.approveFailed)}
            >
              {approve.isMutating ? t.approving : t.approve}
            </Button>
            <Button
              size="sm"
              variant="danger"
              onClick={() => {
                onReject(set);
              }}
            >
              {t.reject}
            </Button>
          </>
        ) : set.refundDue ? (
          <Button size="sm" loading={refund.isMutating} onClick={() => void act(() => refund.trigger(set.id), t.markedRefunded, t.refundFailed)}>
            {refund.isMutating ? t.marking : t.markRefunded}
          </Button>
        ) : null}
      </div>
    </li>
  );
}

/** /admin/wordsets: the review queue of custom word sets, and the refunds rejections owe. */
export function WordsetsPage() {
  const t = koAdmin.wordsets;
  const [params, setParams] = useSearchParams();
  const requested = params.get('status');
  const status: WordsetQueue = requested === 'approved' || requested === 'rejected' ? requested : 'pending';
  const { data, error, mutate } = useAdminWordsets(status);
  const [rejecting, setRejecting] = useState<AdminWordset | null>(null);
  const tabs: (QueueTab<WordsetQueue> & { empty: string })[] = [
    { value: 'pending', label: t.pending, empty: t.emptyPending },
    { value: 'approved', label: t.approved, empty: t.emptyApproved },
    { value: 'rejected', label: t.rejected, empty: t.emptyRejected },
  ];
  const current = tabs.find((tab) => tab.value === status) ?? tabs[0];

  return (
    <>
      <ConsolePageHeader title={t.title} lead={t.lead} />
      <QueueTabs
        label={t.tabs}
        tabs={tabs}
        selected={status}
        onSelect={(value) => {
          setParams(value === 'pending' ? {} : { status: value });
        }}
      />
      {data ? (
        data.length === 0 ? (
          <EmptyState>{current?.empty}</EmptyState>
        ) : (
          <ul className="review-list" aria-label={current?.label}>
            {data.map((set) => (
              <WordsetRow key={set.id} set={set} onChanged={() => mutate()} onReject={setRejecting} />
            ))}
          </ul>
        )
      ) : error ? (
        <ErrorState error={error} onRetry={() => void mutate()} />
      ) : (
        <LoadingState />
      )}
      <RejectDialog
        set={rejecting}
        onClose={() => {
          setRejecting(null);
        }}
        onDone={() => mutate()}
      />
    </>
  );
}
