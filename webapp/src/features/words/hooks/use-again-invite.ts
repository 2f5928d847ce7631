import { useState } from 'react';
import { toast } from 'sonner';
import { useSWRConfig } from 'swr';
import { ko } from '@/i18n/ko';
import { serverNow } from '@/lib/server-clock';
import { useSocketEvent } from '@/lib/socket';
import { againPairsKey } from '../api/again-pairs';
import { useInviteAgain } from '../api/invite-again';

/** This tab's invitations still open, by pair: when each lapses (the server's Unix ms). */
const open = new Map<number, number>();

/** For tests: no invitation open. */
export function forgetInvites(): void {
  open.clear();
}

export type InviteState =
  | { kind: 'idle' }
  | { kind: 'waiting'; expiresAt: number }
  /** The invitation's minute ended here without a chat: it did not reach them now. */
  | { kind: 'lapsed' };

export interface AgainInvite {
  state: InviteState;
  /** The invitation is on its way to the server. */
  sending: boolean;
  send: () => Promise<void>;
  /** The countdown reached `expiresAt` on screen. */
  lapse: () => void;
}

function initial(pairId: number): InviteState {
  const expiresAt = open.get(pairId);
  return expiresAt !== undefined && expiresAt > serverNow() ? { kind: 'waiting', expiresAt } : { kind: 'idle' };
}

/**
 * 다시 텔레파시 of one pair: sending, then the wait until the invitation lapses. A chat that
 * opens (`matched` with `again`) takes the user there as any match does; an invitation that
 * lapses on screen says only that it did not reach them now, never whether it was declined.
 * The wait outlives the page within the tab (a visit to another page and back shows it still);
 * a refusal shows the server's message.
 */
export function useAgainInvite(pairId: number): AgainInvite {
  const [state, setState] = useState<InviteState>(() => initial(pairId));
  const { trigger, isMutating } = useInviteAgain();
  const { mutate } = useSWRConfig();

  useSocketEvent('matched', () => {
    open.delete(pairId);
  });

  async function send() {
    const outcome = await trigger(pairId);
    if (!outcome.ok) {
      toast.error(outcome.network ? ko.again.sendServerError : (outcome.message ?? ko.again.sendFailed));
      // Taken back by the other, lapsed, or ended by a block: the card is a plain one again.
      if (!outcome.network && outcome.code === 'AGAIN_NO_PAIR') void mutate(againPairsKey);
      return;
    }
    open.set(pairId, outcome.data.expiresAt);
    setState({ kind: 'waiting', expiresAt: outcome.data.expiresAt });
  }

  function lapse() {
    open.delete(pairId);
    setState({ kind: 'lapsed' });
  }

  return { state, sending: isMutating, send, lapse };
}
