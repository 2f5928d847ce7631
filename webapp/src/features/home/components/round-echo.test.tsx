import { act, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RoundEcho as Echo } from '@/api/realtime';
import { limits } from '@/config/limits';
import { connectTabSocket, fakeTabSocketPerTest } from '@/test/fake-socket';
import { notePick } from '../lib/my-picks';
import { RoundEcho } from './round-echo';

const SHOWN = limits.roundEchoShownMs;

fakeTabSocketPerTest();

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  sessionStorage.clear();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

function echo(round: number, picks: [string, number][]): Echo {
  return { round, words: picks.map(([word, count]) => ({ word, count })) };
}

/** The echo region under the round's words. */
function region() {
  return screen.getByRole('status');
}

function show() {
  const socket = connectTabSocket();
  render(<RoundEcho />);
  return (next: Echo) => {
    act(() => {
      socket.receive('roundEcho', next);
    });
  };
}

function wait(ms: number) {
  act(() => {
    vi.advanceTimersByTime(ms);
  });
}

describe('RoundEcho', () => {
  it('is a polite live region that is there, empty, before any echo', () => {
    show();
    expect(region()).toHaveAttribute('aria-live', 'polite');
    expect(region()).toBeEmptyDOMElement();
  });

  it('tells how many picked each word of the round that closed, in its order, zeros too', () => {
    const receive = show();
    receive(echo(41, [['바다', 12], ['산', 8], ['별', 0], ['비', 5]]));
    expect(region()).toHaveTextContent('방금 라운드: 바다 12 · 산 8 · 별 0 · 비 5', { normalizeWhitespace: false });
  });

  it('marks the words this tab picked in that round: their counts include the user', () => {
    notePick(41, '산');
    const receive = show();
    receive(echo(41, [['바다', 12], ['산', 1], ['별', 0], ['비', 5]]));
    expect(region()).toHaveTextContent('방금 라운드: 바다 12 · 산 1 나 포함 · 별 0 · 비 5');
    const mine = [...region().querySelectorAll('[data-mine]')].map((pick) => pick.textContent);
    expect(mine).toEqual(['산 1 나 포함']);
    // Not a word picked in another round.
    receive(echo(42, [['봄', 3], ['산', 2], ['가을', 1], ['겨울', 0]]));
    expect(region().querySelectorAll('[data-mine]')).toHaveLength(0);
  });

  it('reads its dots between the words but does not show them, so no line ends in one', () => {
    const receive = show();
    receive(echo(41, [['바다', 12], ['산', 8], ['별', 0], ['비', 5]]));
    const separators = [...region().querySelectorAll('.round-echo__separator')];
    expect(separators).toHaveLength(3);
    for (const separator of separators) expect(separator).toHaveClass('visually-hidden');
  });

  it('groups the thousands of a large count', () => {
    const receive = show();
    receive(echo(41, [['첫눈', 1024], ['붕어빵', 318], ['목도리', 0], ['군밤', 7]]));
    expect(region()).toHaveTextContent('방금 라운드: 첫눈 1,024 · 붕어빵 318 · 목도리 0 · 군밤 7');
  });

  it('goes away after its few seconds', () => {
    const receive = show();
    receive(echo(41, [['바다', 2], ['산', 1], ['별', 0], ['비', 0]]));
    wait(SHOWN - 1);
    expect(region()).toHaveTextContent('방금 라운드: 바다 2 · 산 1 · 별 0 · 비 0');
    wait(1);
    expect(region()).toBeEmptyDOMElement();
  });

  it('is replaced by the next round’s echo, which has its own few seconds', () => {
    const receive = show();
    receive(echo(41, [['바다', 2], ['산', 1], ['별', 0], ['비', 0]]));
    wait(SHOWN - 1000);
    receive(echo(42, [['봄', 0], ['여름', 3], ['가을', 1], ['겨울', 0]]));
    expect(region()).toHaveTextContent('방금 라운드: 봄 0 · 여름 3 · 가을 1 · 겨울 0');
    expect(region()).not.toHaveTextContent('바다');
    // The first one's time is up, not the second's.
    wait(1000);
    expect(region()).toHaveTextContent('여름 3');
    wait(SHOWN - 1000);
    expect(region()).toBeEmptyDOMElement();
  });

  it('shows nothing for a round nobody picked in', () => {
    const receive = show();
    receive(echo(41, [['바다', 2], ['산', 0], ['별', 0], ['비', 0]]));
    receive(echo(42, [['봄', 0], ['여름', 0], ['가을', 0], ['겨울', 0]]));
    expect(region()).toBeEmptyDOMElement();
  });
});
