import { useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { toast } from 'sonner';
import { useProfile } from '@/api/profile';
import { Button, ButtonLink } from '@/components/button';
import { Icon } from '@/components/icons';
import { Modal } from '@/components/modal';
import { Card } from '@/components/page';
import { Spinner } from '@/components/spinner';
import { limits } from '@/config/limits';
import { ko } from '@/i18n/ko';
import { useCreateTransfer, type TransferOpened } from '../api/create-transfer';
import { useMyTransfers, type Destination, type TransferItem } from '../api/my-transfers';
import { useMyWordsets } from '../api/my-wordsets';
import { useUserRecord } from '../api/user-record';
import { useTransferCheck } from '../hooks/use-transfer-check';
import { BANK_APP_DELAY_MS, CHECK_SECONDS, isMobileDevice, tossLink, type TransferView } from '../lib/transfer';
import { PurchaseHistory } from './purchase-history';
import { RealNameModal } from './real-name-modal';
import { TransferDetails } from './transfer-details';
import { TransferQr } from './transfer-qr';
import '../likes.css';

/** Where the purchase stands (spec section 4). */
type Phase =
  | { kind: 'idle' }
  | { kind: 'pending'; transfer: TransferView }
  | { kind: 'checking'; transfer: TransferView; startedAt: number }
  | { kind: 'paid'; transfer: TransferView }
  | { kind: 'expired'; transfer: TransferView };

function viewOf(opened: TransferOpened): TransferView {
  return {
    id: opened.id,
    depositor: opened.depositor,
    amount: opened.amount,
    bank: opened.destination.bank,
    account: opened.destination.account,
    holder: opened.destination.holder,
  };
}

function viewOfItem(item: TransferItem, destination: Destination): TransferView {
  return { id: item.id, depositor: item.depositor, amount: item.amount, bank: destination.bank, account: destination.account, holder: destination.holder };
}

const RING = 2 * Math.PI * 44;

/** The 60-second check as a ring that empties, with the seconds left. */
function CheckCountdown({ remaining }: { remaining: number }) {
  const t = ko.likes;
  return (
    <div className="check-countdown" role="timer" aria-label={t.secondsLeftLabel(remaining)}>
      <svg viewBox="0 0 100 100" className="check-countdown__ring" aria-hidden="true">
        <circle cx="50" cy="50" r="44" className="check-countdown__track" />
        <circle
          cx="50"
          cy="50"
          r="44"
          className="check-countdown__bar"
          strokeDasharray={RING}
          strokeDashoffset={RING * (1 - remaining / CHECK_SECONDS)}
          transform="rotate(-90 50 50)"
        />
      </svg>
      <span className="check-countdown__value" aria-hidden="true">
        {t.secondsLeft(remaining)}
      </span>
    </div>
  );
}

/** /likes: buying a custom word set by bank transfer, and the user's payments and sets. */
export function LikesPage() {
  const t = ko.likes;
  const navigate = useNavigate();
  const { data: profile, error: profileError, mutate: reloadProfile } = useProfile();
  const userId = profile?.id;
  const record = useUserRecord(userId);
  const transfers = useMyTransfers();
  const wordsets = useMyWordsets(userId);
  const { trigger: create, isMutating: creating } = useCreateTransfer();
  const [phase, setPhase] = useState<Phase>({ kind: 'idle' });
  const [askName, setAskName] = useState(false);
  const [mobile] = useState(isMobileDevice);
  const [openingApp, setOpeningApp] = useState(false);
  const bankAppTimer = useRef<ReturnType<typeof setTimeout> | null>(null);

  const checking = phase.kind === 'checking' ? phase : null;
  const { remaining } = useTransferCheck({
    transferId: checking?.transfer.id ?? null,
    startedAt: checking?.startedAt ?? 0,
    onPaid: () => {
      if (checking) setPhase({ kind: 'paid', transfer: checking.transfer });
      void transfers.mutate();
    },
    onExpired: () => {
      if (checking) setPhase({ kind: 'expired', transfer: checking.transfer });
      void transfers.mutate();
    },
  });

  function startChecking(transfer: TransferView) {
    setPhase({ kind: 'checking', transfer, startedAt: Date.now() });
  }

  /** On a phone: the banking app opens, and checking starts 2 seconds later. */
  function openBankApp(transfer: TransferView) {
    setOpeningApp(true);
    window.location.href = tossLink(transfer);
    if (bankAppTimer.current) clearTimeout(bankAppTimer.current);
    bankAppTimer.current = setTimeout(() => {
      startChecking(transfer);
    }, BANK_APP_DELAY_MS);
  }

  /**
   * The account, amount and memo first, with copy buttons; a banking app opens only when the
   * user asks (it cannot carry the memo, which the deposit is matched by).
   */
  function showPending(transfer: TransferView) {
    setOpeningApp(false);
    setPhase({ kind: 'pending', transfer });
  }

  async function buy(realName: string) {
    const outcome = await create({ user_id: userId, name: realName, amount: limits.wordsetPriceWon });
    if (!outcome.ok) {
      toast.error((outcome.network ? undefined : outcome.message) ?? t.openFailed);
      return;
    }
    void transfers.mutate();
    showPending(viewOf(outcome.data));
  }

  function onBuy() {
    const realName = record.data?.real_name;
    if (realName) void buy(realName);
    else setAskName(true);
  }

  function backToIdle() {
    if (bankAppTimer.current) clearTimeout(bankAppTimer.current);
    setPhase({ kind: 'idle' });
  }

  if (profileError || record.error) {
    return (
      <main className="page-body">
        <h1 className="page-title">{t.title}</h1>
        <Card className="empty-state">
          <p className="empty-state__text">{t.loadFailed}</p>
          <Button
            variant="secondary"
            onClick={() => {
              void reloadProfile();
              void record.mutate();
            }}
          >
            {t.retry}
          </Button>
        </Card>
      </main>
    );
  }

  if (!profile || !record.data) {
    return (
      <main className="page-body">
        <h1 className="page-title">{t.title}</h1>
        <div className="center">
          <Spinner label={ko.app.loading} />
        </div>
      </main>
    );
  }

  const destination = transfers.data?.destination;
  // A payment confirmed but not yet spent on words: the way on is to write them, not to pay again.
  const unused = transfers.data?.payments.find((payment) => payment.status === 'paid' && !payment.used);

  return (
    <main className="page-body likes-page">
      <h1 className="page-title">{t.title}</h1>

      <div className="likes-layout">
        <div className="likes-layout__flow">
          {phase.kind === 'idle' || phase.kind === 'paid' ? (
            <Card className="likes-offer">
              <div className="likes-offer__head">
                <span className="likes-offer__icon">
                  <Icon name="sparkles" size={28} />
                </span>
                <div>
                  <p className="likes-offer__price">{t.price}</p>
                  <p className="likes-offer__note">{t.priceNote}</p>
                </div>
              </div>
              <p className="likes-offer__lead">{t.lead}</p>
              <ul className="likes-offer__points">
                {t.points.map((point) => (
                  <li key={point}>
                    <Icon name="check" size={18} />
                    <span>{point}</span>
                  </li>
                ))}
              </ul>
              {unused ? (
                <div className="likes-offer__unused" role="status">
                  <p className="likes-offer__unused-title">{t.unusedTitle}</p>
                  <p className="likes-offer__unused-text">{t.unusedText(unused.id)}</p>
                  <ButtonLink block to={`/wordset?payment=${unused.id}`}>
                    {t.toWordset}
                  </ButtonLink>
                </div>
              ) : null}
              <Button block variant={unused ? 'secondary' : 'primary'} loading={creating} onClick={onBuy}>
                {creating ? t.opening : unused ? t.buyAnother : t.buy}
              </Button>
            </Card>
          ) : null}

          {phase.kind === 'pending' ? (
            <Card className="transfer-card" as="section">
              <h2 className="transfer-card__title">{t.pendingTitle}</h2>
              <p className="transfer-card__lead">{t.pendingLead}</p>
              <div className="transfer-card__body">
                {mobile ? null : <TransferQr transfer={phase.transfer} />}
                <TransferDetails transfer={phase.transfer} />
              </div>
              {mobile ? (
                <p className="transfer-card__note" role="status">
                  {openingApp ? t.openingBankApp : t.memoFirst}
                </p>
              ) : null}
              <div className="transfer-card__actions">
                {mobile ? (
                  <>
                    <Button variant="secondary" block onClick={() => openBankApp(phase.transfer)}>
                      {t.openBankApp}
                    </Button>
                    <p className="transfer-card__hint">{t.otherBankApp}</p>
                  </>
                ) : null}
                <Button block onClick={() => startChecking(phase.transfer)}>
                  {t.sent}
                </Button>
                <Button variant="ghost" block onClick={backToIdle}>
                  {t.cancel}
                </Button>
              </div>
            </Card>
          ) : null}

          {phase.kind === 'checking' ? (
            <Card className="transfer-card transfer-card--checking">
              <CheckCountdown remaining={remaining} />
              <h2 className="transfer-card__title">{t.checkingTitle}</h2>
              <p className="transfer-card__lead">{t.checkingLead}</p>
              <TransferDetails transfer={phase.transfer} />
              <Button variant="ghost" block onClick={backToIdle}>
                {t.cancel}
              </Button>
            </Card>
          ) : null}

          {phase.kind === 'expired' ? (
            <Card className="transfer-card transfer-card--expired">
              <span className="transfer-card__icon" aria-hidden="true">
                <Icon name="alert" size={30} />
              </span>
              <h2 className="transfer-card__title">{t.expiredTitle}</h2>
              <p className="transfer-card__lead">{t.expiredText}</p>
              <Button block onClick={backToIdle}>
                {t.backToIdle}
              </Button>
            </Card>
          ) : null}
        </div>

        <PurchaseHistory
          payments={transfers.data?.payments}
          wordsets={wordsets.data}
          busy={phase.kind === 'pending' || phase.kind === 'checking'}
          onResume={(payment) => {
            if (destination) setPhase({ kind: 'pending', transfer: viewOfItem(payment, destination) });
          }}
        />
      </div>

      <RealNameModal
        open={askName}
        userId={profile.id}
        onClose={() => {
          setAskName(false);
        }}
        onSaved={async (name) => {
          setAskName(false);
          await record.mutate();
          await buy(name);
        }}
      />

      <Modal
        open={phase.kind === 'paid'}
        title={t.paidTitle}
        description={t.paidText}
        role="alertdialog"
        onClose={backToIdle}
      >
        <div className="modal__actions">
          <Button
            block
            onClick={() => {
              if (phase.kind === 'paid') void navigate(`/wordset?payment=${phase.transfer.id}`);
            }}
          >
            {t.toWordset}
          </Button>
          <Button variant="ghost" block onClick={backToIdle}>
            {t.later}
          </Button>
        </div>
      </Modal>
    </main>
  );
}
