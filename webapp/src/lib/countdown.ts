import { useCallback, useEffect, useState } from 'react';

/** Seconds as mm:ss, e.g. 180 → "03:00", 65 → "01:05"; negative counts as zero. */
export function formatCountdown(totalSeconds: number): string {
  const seconds = Math.max(0, Math.floor(totalSeconds));
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  return `${String(minutes).padStart(2, '0')}:${String(rest).padStart(2, '0')}`;
}

export interface Countdown {
  /** Seconds left; 0 when expired or never started. */
  remaining: number;
  /** True once started and until reset; stays true after reaching zero. */
  started: boolean;
  expired: boolean;
  /** Started and not yet at zero. */
  running: boolean;
  start: () => void;
  reset: () => void;
}

/**
 * A countdown from `seconds`, ticking once a second, from `startedAt` (Unix ms) if given. It counts against a deadline rather than
 * by decrements so a throttled background tab still shows the right time when it wakes.
 */
export function useCountdown(seconds: number, startedAt: number | null = null): Countdown {
  // Started before (a page shown again after a reload): it goes on from then.
  const [deadline, setDeadline] = useState<number | null>(() => (startedAt === null ? null : startedAt + seconds * 1000));
  const [now, setNow] = useState(() => Date.now());

  useEffect(() => {
    if (deadline === null) return;
    const timer = window.setInterval(() => {
      const current = Date.now();
      setNow(current);
      if (current >= deadline) window.clearInterval(timer);
    }, 250);
    return () => {
      window.clearInterval(timer);
    };
  }, [deadline]);

  const start = useCallback(() => {
    const current = Date.now();
    setNow(current);
    setDeadline(current + seconds * 1000);
  }, [seconds]);

  const reset = useCallback(() => {
    setDeadline(null);
  }, []);

  const remaining = deadline === null ? 0 : Math.max(0, Math.ceil((deadline - now) / 1000));
  const started = deadline !== null;
  const expired = started && remaining === 0;
  return { remaining, started, expired, running: started && !expired, start, reset };
}

/** Whole seconds from `now` until `deadline` (Unix ms on one clock), a second begun counting as one; never below zero. */
export function secondsUntil(deadline: number, now: number): number {
  return Math.max(0, Math.ceil((deadline - now) / 1000));
}
