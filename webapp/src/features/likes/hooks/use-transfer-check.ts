import { useEffect, useRef, useState } from 'react';
import { fetchTransferStatus } from '../api/transfer-status';
import { POLL_MS, secondsLeft } from '../lib/transfer';

interface TransferCheck {
  /** Whole seconds left of the check. */
  remaining: number;
}

interface Options {
  /** The transfer checked; null while not checking. */
  transferId: number | null;
  /** When the check started (Date.now()). */
  startedAt: number;
  onPaid: () => void;
  onExpired: () => void;
}

/**
 * Checking for a deposit: the transfer's status is asked each second for 60 seconds (one request
 * at a time); `onPaid` when it is paid, `onExpired` when the time is up. Time is read from the
 * clock at each tick, so a slow tab still ends on time.
 */
export function useTransferCheck({ transferId, startedAt, onPaid, onExpired }: Options): TransferCheck {
  const [now, setNow] = useState(() => Date.now());
  const callbacks = useRef({ onPaid, onExpired });
  useEffect(() => {
    callbacks.current = { onPaid, onExpired };
  });

  useEffect(() => {
    if (transferId === null) return;
    const id = transferId;
    // Shared with the cleanup and across the await below.
    const run = { done: false, inFlight: false };
    const finished = () => run.done;
    async function tick() {
      const at = Date.now();
      setNow(at);
      if (run.done) return;
      if (secondsLeft(startedAt, at) === 0) {
        run.done = true;
        callbacks.current.onExpired();
        return;
      }
      if (run.inFlight) return;
      run.inFlight = true;
      const outcome = await fetchTransferStatus(id);
      run.inFlight = false;
      if (!finished() && outcome.ok && outcome.data.status === 'paid') {
        run.done = true;
        callbacks.current.onPaid();
      }
    }
    void tick();
    const timer = setInterval(() => void tick(), POLL_MS);
    return () => {
      run.done = true;
      clearInterval(timer);
    };
  }, [transferId, startedAt]);

  return { remaining: secondsLeft(startedAt, now) };
}
