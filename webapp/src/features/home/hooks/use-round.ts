import { useEffect, useReducer } from 'react';
import type { RoundWord } from '@/api/realtime';
import { initialRoundView, roundReducer, WORD_FADE_MS, type RoundAction, type RoundView } from '@/lib/round-clock';
import { tabSocket, useSocketEvent, useSocketStatus } from '@/lib/socket';
import { fetchCurrentRound } from '../api/current-round';
import { fetchServerTime, SERVER_CHECK_MS } from '@/api/server-time';
import { serverNow } from '@/lib/server-clock';

const POLL_MS = 1000;
const TICK_MS = 1000;

interface ServerRound {
  round: number;
  remaining: number;
  words: RoundWord[];
  isOpen?: boolean;
  nextOpenAt?: string;
}

function fromServer(round: ServerRound): RoundAction {
  return {
    type: 'server',
    round: round.round,
    remaining: round.remaining,
    words: round.words,
    ...(round.isOpen === undefined ? {} : { isOpen: round.isOpen, nextOpenAt: round.nextOpenAt ?? null }),
  };
}

/**
 * The round on the main screen. Rounds are pushed by the socket (`round`, and the round in
 * `hello`); while the socket is not open the round is polled each second instead. Whether the
 * service is open is asked every 10 seconds. The timer counts down locally in between.
 */
export function useRound(): RoundView {
  const status = useSocketStatus();
  const socketOpen = status === 'open';
  const [view, dispatch] = useReducer(roundReducer, undefined, () => {
    const latest = tabSocket().latest('round');
    return latest ? roundReducer(initialRoundView, fromServer(latest)) : initialRoundView;
  });

  useSocketEvent('round', (round) => {
    dispatch(fromServer(round));
  });
  useSocketEvent('hello', (hello) => {
    dispatch(fromServer(hello.round));
  });

  useEffect(() => {
    const timer = window.setInterval(() => {
      dispatch({ type: 'tick' });
    }, TICK_MS);
    return () => {
      window.clearInterval(timer);
    };
  }, []);

  useEffect(() => {
    if (!view.fading) return;
    const timer = window.setTimeout(() => {
      dispatch({ type: 'fadeDone' });
    }, WORD_FADE_MS);
    return () => {
      window.clearTimeout(timer);
    };
  }, [view.fading, view.round]);

  useEffect(() => {
    let cancelled = false;
    const check = async () => {
      const outcome = await fetchServerTime();
      if (cancelled) return;
      dispatch(outcome.ok ? fromServer(outcome.data) : { type: 'checkFailed', now: new Date(serverNow()) });
    };
    void check();
    const timer = window.setInterval(() => void check(), SERVER_CHECK_MS);
    // A tab coming back from the background may have slept through rounds.
    const onVisible = () => {
      if (document.visibilityState === 'visible') void check();
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      cancelled = true;
      window.clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, []);

  useEffect(() => {
    if (socketOpen) return;
    let cancelled = false;
    const poll = async () => {
      const outcome = await fetchCurrentRound();
      if (!cancelled && outcome.ok) dispatch(fromServer(outcome.data));
    };
    void poll();
    const timer = window.setInterval(() => void poll(), POLL_MS);
    return () => {
      cancelled = true;
      window.clearInterval(timer);
    };
  }, [socketOpen]);

  return view;
}
