import { describe, expect, it } from 'vitest';
import type { RoundWord } from '@/api/realtime';
import {
  fallbackIsOpen,
  formatDuration,
  initialRoundView,
  nextEightPm,
  resyncRemaining,
  roundReducer,
  type RoundAction,
  type RoundView,
} from './round-clock';

const words = (...list: string[]): RoundWord[] => list.map((word) => ({ word, paid: false, custom: false }));
const spring = words('봄', '여름', '가을', '겨울');
const food = words('치킨', '피자', '족발', '떡볶이');

function server(round: number, remaining: number, list = spring, extra: Partial<Extract<RoundAction, { type: 'server' }>> = {}): RoundAction {
  return { type: 'server', round, remaining, words: list, ...extra };
}

function run(actions: RoundAction[], from: RoundView = initialRoundView): RoundView {
  return actions.reduce(roundReducer, from);
}

describe('resyncRemaining', () => {
  it.each([
    [20, 20, 20],
    [20, 21, 20],
    [20, 22, 20],
    [20, 18, 20],
    [20, 23, 23],
    [20, 17, 17],
    [0, 30, 30],
    [5, 2, 2],
  ])('local %d, server %d → %d', (local, reported, expected) => {
    expect(resyncRemaining(local, reported)).toBe(expected);
  });
});

describe('roundReducer', () => {
  it('shows the first round at once, without a fade', () => {
    const view = run([server(10, 17)]);
    expect(view).toMatchObject({ round: 10, remaining: 17, fading: false, shown: { round: 10, words: spring } });
  });

  it('counts nothing before the server has told the round', () => {
    const view = run([{ type: 'tick' }, { type: 'tick' }]);
    expect(view).toMatchObject({ round: null, remaining: initialRoundView.remaining });
  });

  it('counts down locally each tick and stops at zero', () => {
    const view = run([server(10, 2), { type: 'tick' }, { type: 'tick' }, { type: 'tick' }]);
    expect(view.remaining).toBe(0);
  });

  it('keeps the local timer within 2 seconds of the server, and follows it beyond', () => {
    const base = run([server(10, 20), { type: 'tick' }, { type: 'tick' }]);
    expect(base.remaining).toBe(18);
    expect(roundReducer(base, server(10, 16)).remaining).toBe(18);
    expect(roundReducer(base, server(10, 15)).remaining).toBe(15);
    expect(roundReducer(base, server(10, 21)).remaining).toBe(21);
  });

  it('fades the old words out before showing a new round, and resets the timer', () => {
    const changing = run([server(10, 1), { type: 'tick' }, server(11, 30, food)]);
    expect(changing).toMatchObject({ round: 11, remaining: 30, fading: true, shown: { round: 10, words: spring } });
    const after = roundReducer(changing, { type: 'fadeDone' });
    expect(after).toMatchObject({ fading: false, shown: { round: 11, words: food } });
  });

  it('ignores a late answer about an older round', () => {
    const view = run([server(11, 25, food), server(10, 1)]);
    expect(view).toMatchObject({ round: 11, remaining: 25, shown: { round: 11 } });
  });

  it('takes the open state and next opening from the server', () => {
    const closed = run([server(10, 20, spring, { isOpen: false, nextOpenAt: '2026-11-22T11:00:00Z' })]);
    expect(closed).toMatchObject({ isOpen: false, nextOpenAt: '2026-11-22T11:00:00Z' });
    const polled = roundReducer(closed, server(10, 19));
    expect(polled.isOpen).toBe(false);
    expect(roundReducer(polled, server(10, 19, spring, { isOpen: true })).isOpen).toBe(true);
  });

  it('falls back to the clock rule when the check fails', () => {
    const afternoon = roundReducer(initialRoundView, { type: 'checkFailed', now: new Date('2026-11-22T06:00:00Z') });
    expect(afternoon).toMatchObject({ isOpen: false, nextOpenAt: '2026-11-22T11:00:00.000Z' });
    const evening = roundReducer(afternoon, { type: 'checkFailed', now: new Date('2026-11-22T12:30:00Z') });
    expect(evening).toMatchObject({ isOpen: true, nextOpenAt: null });
  });
});

describe('fallbackIsOpen', () => {
  it.each([
    ['2026-11-22T10:59:59Z', false], // 19:59 in Seoul
    ['2026-11-22T11:00:00Z', true], // 20:00
    ['2026-11-22T14:59:00Z', true], // 23:59
    ['2026-11-22T15:00:00Z', false], // 00:00: only hours from 20:00 to 23:59 count as open
    ['2026-11-22T16:30:00Z', false], // 01:30
    ['2026-11-22T03:00:00Z', false], // 12:00
  ])('%s → %s', (iso, open) => {
    expect(fallbackIsOpen(new Date(iso))).toBe(open);
  });
});

describe('nextEightPm', () => {
  it.each([
    ['2026-11-22T03:00:00Z', '2026-11-22T11:00:00.000Z'],
    ['2026-11-22T11:00:00Z', '2026-11-23T11:00:00.000Z'],
    ['2026-11-22T16:00:00Z', '2026-11-23T11:00:00.000Z'],
    ['2026-11-22T14:59:59Z', '2026-11-23T11:00:00.000Z'],
    ['2026-11-22T15:00:00Z', '2026-11-23T11:00:00.000Z'],
  ])('after %s comes %s', (now, next) => {
    expect(nextEightPm(new Date(now)).toISOString()).toBe(next);
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '00:00:00'],
    [59, '00:00:59'],
    [3725, '01:02:05'],
    [86_399, '23:59:59'],
    [-3, '00:00:00'],
  ])('%d s → %s', (seconds, text) => {
    expect(formatDuration(seconds)).toBe(text);
  });
});
