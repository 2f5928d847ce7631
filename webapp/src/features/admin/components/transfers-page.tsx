import { useId, useState } from 'react';
import { Link } from 'react-router';
import { toast } from 'sonner';
import { serverMessage } from '@/api/outcome';
import { Button } from '@/components/button';
import { Modal } from '@/components/modal';
import { koAdmin } from '@/i18n/ko-admin';
import { useAdminTransfers, useConfirmTransfer, type AdminDeposit, type AdminTransfer } from '../api/transfers';
import { formatDateTime } from '../lib/format';
import { ConsolePageHeader, EmptyState, ErrorState, LoadingState } from './states';

interface ConfirmDialogProps {
  transfer: AdminTransfer | null;
  deposits: AdminDeposit[];
  onClose: () => void;
  onDone: () => Promise<unknown>;
}

/** Confirming a transfer by hand, optionally with the reported deposit its money came in. */
function ConfirmTransferDialog({ transfer, deposits, onClose, onDone }: ConfirmDialogProps) {
  const t = koAdmin.transfers;
  const selectId = useId();
  const { trigger, isMutating } = useConfirmTransfer();
  const [depositId, setDepositId] = useState('');
  const [error, setError] = useState<string | null>(null);
  const candidates = transfer ? deposits.filter((d) => d.amount === transfer.amount) : [];

  function close() {
    setDepositId('');
    setError(null);
    onClose();
  }

  async function confirm() {
    if (!transfer) return;
    const outcome = await trigger({ id: transfer.id, depositId: depositId === '' ? undefined : Number(depositId) });
    if (!outcome.ok) {
      if (outcome.network) setError(koAdmin.app.networkFailed);
      else if (outcome.status !== 401) setError(serverMessage(outcome) ?? t.confirmFailed);
      await onDone();
      return;
    }
    toast.success(t.confirmed);
    await onDone();
    close();
  }

  return (
    <Modal
      open={transfer !== null}
      title={t.confirmTitle}
      description={transfer ? t.confirmMessage(transfer.depositor, t.won(transfer.amount)) : null}
      onClose={isMutating ? undefined : close}
    >
      {candidates.length > 0 ? (
        <div className="form">
          <label className="console-field__label" htmlFor={selectId}>
            {t.withDeposit}
          </label>
          <select
            id={selectId}
            className="console-select"
            value={depositId}
            onChange={(event) => {
              setDepositId(event.target.value);
            }}
          >
            <option value="">{t.noDeposit}</option>
            {candidates.map((d) => (
              <option key={d.id} value={d.id}>
                {t.depositNumber(d.id)} · {d.depositor} · {t.won(d.amount)} · {d.depositedAt}
              </option>
            ))}
          </select>
        </div>
      ) : null}
      {error ? (
        <p className="form-message form-message--error" role="alert">
          {error}
        </p>
      ) : null}
      <div className="modal__actions modal__actions--row">
        <Button variant="secondary" block onClick={close} disabled={isMutating}>
          {koAdmin.app.cancel}
        </Button>
        <Button block loading={isMutating} onClick={() => void confirm()}>
          {isMutating ? t.confirming : t.confirm}
        </Button>
      </div>
    </Modal>
  );
}

/** /admin/transfers: transfers waiting for their deposit, and deposits that matched none. */
export function TransfersPage() {
  const t = koAdmin.transfers;
  const { data, error, mutate } = useAdminTransfers();
  const [confirming, setConfirming] = useState<AdminTransfer | null>(null);

  if (!data) {
    return (
      <>
        <ConsolePageHeader title={t.title} lead={t.lead} />
        {error ? <ErrorState error={error} onRetry={() => void mutate()} /> : <LoadingState />}
      </>
    );
  }

  return (
    <>
      <ConsolePageHeader title={t.title} lead={t.lead} />
      <section className="console-section" aria-labelledby="transfers-waiting">
        <h2 id="transfers-waiting" className="console-section__title">
          {t.waiting}
        </h2>
        {data.transfers.length === 0 ? (
          <EmptyState>{t.waitingEmpty}</EmptyState>
        ) : (
          <ul className="review-list" aria-label={t.waiting}>
            {data.transfers.map((transfer) => (
              <li key={transfer.id} className="review-item">
                <div className="review-item__body">
                  <p className="review-item__title">
                    <span>{t.number(transfer.id)}</span>
                    <span className="review-item__code">{transfer.depositor}</span>
                    <span className={`review-chip review-chip--${transfer.status}`}>{t.status[transfer.status]}</span>
                  </p>
                  <dl className="review-item__facts">
                    <div>
                      <dt>{t.amount}</dt>
                      <dd>{t.won(transfer.amount)}</dd>
                    </div>
                    <div>
                      <dt>{t.member}</dt>
                      <dd>
                        <Link to={`/admin/users/${transfer.userId}`}>{transfer.nickname ?? transfer.username}</Link>
                        <span className="muted"> ({transfer.username})</span>
                      </dd>
                    </div>
                    <div>
                      <dt>{t.realName}</dt>
                      <dd>{transfer.realName ?? '-'}</dd>
                    </div>
                    <div>
                      <dt>{t.createdAt}</dt>
                      <dd>{formatDateTime(transfer.createdAt)}</dd>
                    </div>
                    <div>
                      <dt>{t.expiresAt}</dt>
                      <dd>{formatDateTime(transfer.expiresAt)}</dd>
                    </div>
                  </dl>
                </div>
                <Button
                  size="sm"
                  onClick={() => {
                    setConfirming(transfer);
                  }}
                >
                  {t.confirm}
                </Button>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section className="console-section" aria-labelledby="transfers-deposits">
        <h2 id="transfers-deposits" className="console-section__title">
          {t.deposits}
        </h2>
        {data.deposits.length === 0 ? (
          <EmptyState>{t.depositsEmpty}</EmptyState>
        ) : (
          <ul className="review-list" aria-label={t.deposits}>
            {data.deposits.map((deposit) => (
              <li key={deposit.id} className="review-item">
                <div className="review-item__body">
                  <p className="review-item__title">
                    <span>{t.depositNumber(deposit.id)}</span>
                    <span className="review-item__code">{deposit.depositor}</span>
                    <span className="review-chip review-chip--expired">{t.outcome[deposit.outcome] ?? deposit.outcome}</span>
                  </p>
                  <dl className="review-item__facts">
                    <div>
                      <dt>{t.amount}</dt>
                      <dd>{t.won(deposit.amount)}</dd>
                    </div>
                    <div>
                      <dt>{t.depositedAt}</dt>
                      <dd>{deposit.depositedAt}</dd>
                    </div>
                    <div>
                      <dt>{t.receivedAt}</dt>
                      <dd>{formatDateTime(deposit.receivedAt)}</dd>
                    </div>
                  </dl>
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>
      <ConfirmTransferDialog
        transfer={confirming}
        deposits={data.deposits}
        onClose={() => {
          setConfirming(null);
        }}
        onDone={() => mutate()}
      />
    </>
  );
}
