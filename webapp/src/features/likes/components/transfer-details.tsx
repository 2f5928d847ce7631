import { toast } from 'sonner';
import { ko } from '@/i18n/ko';
import type { TransferView } from '../lib/transfer';

async function copy(text: string, what: string) {
  try {
    await navigator.clipboard.writeText(text);
    toast.success(ko.likes.copied(what));
  } catch {
    toast.error(ko.likes.copyFailed);
  }
}

interface RowProps {
  label: string;
  value: string;
  /** What the copy button copies, named for the toast; no button without it. */
  copyName?: string;
  strong?: boolean;
}

function Row({ label, value, copyName, strong = false }: RowProps) {
  return (
    <div className="transfer-details__row" data-strong={strong || undefined}>
      <dt>{label}</dt>
      <dd>
        <span className="transfer-details__value">{value}</span>
        {copyName ? (
          <button
            type="button"
            className="transfer-details__copy"
            aria-label={`${copyName} ${ko.likes.copy}`}
            onClick={() => void copy(value, copyName)}
          >
            {ko.likes.copy}
          </button>
        ) : null}
      </dd>
    </div>
  );
}

/** Where to send the money, how much, and the memo that identifies the transfer. */
export function TransferDetails({ transfer }: { transfer: TransferView }) {
  const t = ko.likes;
  return (
    <dl className="transfer-details" aria-label={t.pendingTitle}>
      <Row label={t.bank} value={transfer.bank} />
      <Row label={t.account} value={transfer.account} copyName={t.account} />
      <Row label={t.holder} value={transfer.holder} />
      <Row label={t.amount} value={t.amountValue(transfer.amount)} />
      <Row label={t.depositor} value={transfer.depositor} copyName={t.depositorShort} strong />
    </dl>
  );
}
