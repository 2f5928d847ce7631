import type { RoundWord } from '@/api/realtime';

/** The local countdown follows the server once they differ by more than this many seconds. */
export const RESYNC_THRESHOLD_SECONDS = 2;
/** The spec's default round timer. */
export const DEFAULT_ROUND_SECONDS = 30;
/** How long the words fade out when a round changes. */
export const WORD_FADE_MS = 500;

/** The countdown after a server report: the local value, unless it is off by more than 2 s. */
export function resyncRemaining(local: number, server: number): number {
  return Math.abs(local - server) > RESYNC_THRESHOLD_SECONDS ? server : local;
}

const seoulHour = new Intl.DateTimeFormat('en-GB', { timeZone: 'Asia/Seoul', hour: '2-digit', hourCycle: 'h23' });

/**
 * Whether the service counts as open when the server could not be asked: the specification's
 * rule, hours before 20:00 or from 24:00 (Seoul) count as closed.
 */
export function fallbackIsOpen(now: Date): boolean {
  const hour = Number(seoulHour.format(now));
  return !(hour < 20 || hour >= 24);
}

const SEOUL_OFFSET_MS = 9 * 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The next 20:00 in Seoul strictly after `now` (Seoul keeps +09:00 all year). */
export function nextEightPm(now: Date): Date {
  const seoul = now.getTime() + SEOUL_OFFSET_MS;
  const todayAtEight = Math.floor(seoul / DAY_MS) * DAY_MS + 20 * 60 * 60 * 1000;
  const next = todayAtEight > seoul ? todayAtEight : todayAtEight + DAY_MS;
  return new Date(next - SEOUL_OFFSET_MS);
}

/** A duration as HH:MM:SS, e.g. 3725 s → "01:02:05"; negative counts as zero. */
export function formatDuration(totalSeconds: number): string {
  const seconds = Math.max(0, Math.floor(totalSeconds));
  const parts = [Math.floor(seconds / 3600), Math.floor((seconds % 3600) / 60), seconds % 60];
  return parts.map((part) => String(part).padStart(2, '0')).join(':');
}

/** What the main screen knows of the round and the service. */
export interface RoundView {
  /** The server's current round; null until first heard. */
  round: number | null;
  words: RoundWord[];
  /** Seconds left, counted down locally. */
  remaining: number;
  /** The words on screen and their round: they change only after the fade. */
  shown: { round: number; words: RoundWord[] } | null;
  fading: boolean;
  /** null until known. */
  isOpen: boolean | null;
  nextOpenAt: string | null;
}

export type RoundAction =
  | {
      type: 'server';
      round: number;
      remaining: number;
      words: RoundWord[];
      isOpen?: boolean;
      nextOpenAt?: string | null;
    }
  | { type: 'tick' }
  | { type: 'fadeDone' }
  | { type: 'checkFailed'; now: Date };

export const initialRoundView: RoundView = {
  round: null,
  words: [],
  remaining: DEFAULT_ROUND_SECONDS,
  shown: null,
  fading: false,
  isOpen: null,
  nextOpenAt: null,
};

/**
 * The round rules of the specification: a new round number takes the server's words and timer
 * (the words fade out first, unless none were shown yet); the same round only resyncs the timer
 * when it drifted by more than 2 s; the timer counts down locally each second.
 */
export function roundReducer(state: RoundView, action: RoundAction): RoundView {
  switch (action.type) {
    case 'tick':
      // Nothing to count before the server has told the round.
      return state.round !== null && state.remaining > 0 ? { ...state, remaining: state.remaining - 1 } : state;
    case 'fadeDone':
      return state.round === null ? state : { ...state, shown: { round: state.round, words: state.words }, fading: false };
    case 'checkFailed': {
      const isOpen = fallbackIsOpen(action.now);
      return { ...state, isOpen, nextOpenAt: isOpen ? null : nextEightPm(action.now).toISOString() };
    }
    case 'server': {
      const open =
        action.isOpen === undefined ? {} : { isOpen: action.isOpen, nextOpenAt: action.isOpen ? null : (action.nextOpenAt ?? null) };
      if (action.round === state.round) {
        return { ...state, ...open, remaining: resyncRemaining(state.remaining, action.remaining) };
      }
      if (state.round !== null && action.round < state.round) {
        // A late answer about an older round must not take the screen back.
        return { ...state, ...open };
      }
      const first = state.shown === null;
      return {
        ...state,
        ...open,
        round: action.round,
        words: action.words,
        remaining: action.remaining,
        shown: first ? { round: action.round, words: action.words } : state.shown,
        fading: !first,
      };
    }
  }
}
