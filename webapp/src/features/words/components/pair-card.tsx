import { useEffect, useId, useState } from 'react';
import { toast } from 'sonner';
import { useSWRConfig } from 'swr';
import { ConfirmDialog } from '@/components/alert-dialog';
import { Button } from '@/components/button';
import { Icon } from '@/components/icons';
import { ko } from '@/i18n/ko';
import { secondsUntil } from '@/lib/countdown';
import { formatShortKoreanDateTime } from '@/lib/date';
import { serverNow, useServerNow } from '@/lib/server-clock';
import { againPairsKey, type AgainPair } from '../api/again-pairs';
import { useEndAgainPair } from '../api/end-again-pair';
import { useAgainInvite } from '../hooks/use-again-invite';
import { daysLeft } from '../lib/days-left';

/** The wait's seconds are redrawn this often, so they turn over on time. */
const TICK_MS = 250;

interface PairCardProps {
  pair: AgainPair;
  /** The chat's partner as the word history names them; absent when the history does not list the chat. */
  partnerNickname?: string;
  /** When the chat was, RFC 3339 (the history's); the pair's start otherwise. */
  connectedAt: string;
  /** The service is open (null: not known yet, and the server decides). */
  isOpen: boolean | null;
}

/**
 * The card of a word both members wished to meet again after: during open hours
 * 다시 텔레파시 invites the other into a new chat under it, and the card waits out the
 * invitation's minute; how long the pair lasts; and 그만 만나기 takes the pair back for both.
 */
export function PairCard({ pair, partnerNickname, connectedAt, isOpen }: PairCardProps) {
  const invite = useAgainInvite(pair.id);
  const { trigger: endPair, isMutating: ending } = useEndAgainPair();
  const { mutate } = useSWRConfig();
  const [askStop, setAskStop] = useState(false);
  const wordId = useId();
  const noteId = useId();
  const closed = isOpen === false;
  const { state } = invite;
  const waiting = state.kind === 'waiting';

  async function stop() {
    const outcome = await endPair(pair.id);
    setAskStop(false);
    if (outcome.ok) {
      toast.success(outcome.data.message || ko.again.stopped);
    } else {
      toast.error(outcome.network ? ko.again.stopServerError : (outcome.message ?? ko.again.stopFailed));
    }
    void mutate(againPairsKey);
  }

  return (
    <li className="card word-card pair-card">
      <div className="pair-card__head">
        <span id={wordId} className="word-card__word">
          {pair.word}
        </span>
        <span className="pair-card__tag">
          <Icon name="heart" size={14} />
          {ko.again.pairTag}
          <span aria-hidden="true">·</span>
          {ko.again.daysLeft(daysLeft(pair.until, serverNow()))}
        </span>
      </div>
      <p className="pair-card__meta">
        {partnerNickname ? <span className="word-card__partner">{ko.minimal.partner(partnerNickname)}</span> : null}
        <time className="word-card__date" dateTime={connectedAt}>
          {formatShortKoreanDateTime(connectedAt)}
        </time>
      </p>
      <div className="pair-card__actions">
        {state.kind === 'waiting' ? (
          <Waiting expiresAt={state.expiresAt} onLapse={invite.lapse} />
        ) : (
          <Button
            size="sm"
            className="pair-card__send"
            disabled={closed}
            loading={invite.sending}
            aria-describedby={closed ? `${wordId} ${noteId}` : wordId}
            onClick={() => void invite.send()}
          >
            {invite.sending ? null : <Icon name="sparkles" size={18} />}
            {invite.sending ? ko.again.sending : ko.again.send}
          </Button>
        )}
        <Button
          variant="ghost"
          size="sm"
          className="pair-card__stop"
          aria-describedby={wordId}
          onClick={() => {
            setAskStop(true);
          }}
        >
          {ko.again.stop}
        </Button>
      </div>
      <div className="pair-card__live" aria-live="polite">
        {closed && !waiting ? (
          <p id={noteId} className="pair-card__note">
            {ko.again.closedReason}
          </p>
        ) : state.kind === 'lapsed' ? (
          <p className="pair-card__note">{ko.again.lapsed}</p>
        ) : null}
      </div>
      <ConfirmDialog
        open={askStop}
        title={ko.again.stopTitle}
        message={ko.again.stopMessage}
        confirmLabel={ko.again.stop}
        danger
        busy={ending}
        onCancel={() => {
          setAskStop(false);
        }}
        onConfirm={() => void stop()}
      />
    </li>
  );
}

/** The invitation's minute, counted down to `expiresAt` on the server's clock. */
function Waiting({ expiresAt, onLapse }: { expiresAt: number; onLapse: () => void }) {
  const now = useServerNow(TICK_MS);
  const left = secondsUntil(expiresAt, now);

  useEffect(() => {
    if (left === 0) onLapse();
  }, [left, onLapse]);

  return (
    <p className="pair-card__waiting" role="status">
      <span className="pair-card__dots" aria-hidden="true">
        <span />
        <span />
        <span />
      </span>
      {ko.again.sent}
      <span role="timer" aria-label={ko.again.secondsLabel(left)}>
        <span aria-hidden="true"> · </span>
        {ko.again.seconds(left)}
      </span>
    </p>
  );
}
