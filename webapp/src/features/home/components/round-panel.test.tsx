import { act, render, renderHook, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { ko } from '@/i18n/ko';
import { initialRoundView, type RoundView } from '@/lib/round-clock';
import { useSocketReady } from '@/lib/socket';
import { connectTabSocket, fakeTabSocketPerTest } from '@/test/fake-socket';
import { RoundPanel } from './round-panel';

fakeTabSocketPerTest();

const words = ['바다', '산', '별', '비'].map((word) => ({ word, paid: false, custom: false }));
const view: RoundView = { ...initialRoundView, round: 7, words, remaining: 20, shown: { round: 7, words }, isOpen: true };

function wordButtons() {
  return words.map(({ word }) => screen.getByRole('button', { name: new RegExp(word) }));
}

describe('RoundPanel', () => {
  it('holds the words, saying so, until the socket is ready', () => {
    const onPick = vi.fn();
    render(<RoundPanel view={view} pick={null} ready={false} onPick={onPick} />);
    for (const button of wordButtons()) expect(button).toBeDisabled();
    expect(screen.getByText(ko.round.connecting)).toBeInTheDocument();
  });

  it('offers the words once the socket is ready', () => {
    render(<RoundPanel view={view} pick={null} ready onPick={vi.fn()} />);
    for (const button of wordButtons()) expect(button).toBeEnabled();
    expect(screen.queryByText(ko.round.connecting)).not.toBeInTheDocument();
  });

  it('says nothing of the connection to a user in a chat', () => {
    render(<RoundPanel view={view} pick={null} inChat ready={false} onPick={vi.fn()} />);
    expect(screen.queryByText(ko.round.connecting)).not.toBeInTheDocument();
  });
});

describe('useSocketReady', () => {
  it('is ready only once the open socket has been greeted', () => {
    const { result } = renderHook(() => useSocketReady());
    expect(result.current).toBe(false);
    const socket = connectTabSocket();
    expect(result.current).toBe(false);
    act(() => {
      socket.receive('hello', { userId: 1, round: { round: 7, words, remaining: 20, serverTime: Date.now() } });
    });
    expect(result.current).toBe(true);
    act(() => {
      socket.drop();
    });
    expect(result.current).toBe(false);
  });
});
