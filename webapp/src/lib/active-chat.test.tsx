import { act, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { SWRConfig } from 'swr';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { chatInfo, matchedFor } from '@/test/chat-info';
import { connectTabSocket, fakeTabSocketPerTest } from '@/test/fake-socket';
import { jsonResponse } from '@/test/render';
import { readChatInfo, readMissedEnd, writeChatInfo } from './chat-session';
import { useActiveChat, useMissedEnd } from './socket';

const info = chatInfo;
const round = { isOpen: true, round: 1000, remaining: 20, words: [], serverTime: 0 };

fakeTabSocketPerTest();

afterEach(() => {
  localStorage.clear();
});

const connect = connectTabSocket;

describe('useActiveChat', () => {
  it('shows a stored chat only once the server names its room, until it ends', () => {
    writeChatInfo(info);
    const { result } = renderHook(() => useActiveChat());
    expect(result.current).toBeNull();
    const socket = connect();
    act(() => {
      socket.receive('hello', { userId: 7, roomId: 'room-1', round });
    });
    expect(result.current?.roomId).toBe('room-1');
    // Ended while the page shows it: gone at once, and forgotten.
    act(() => {
      socket.receive('chatEnded', { roomId: 'room-1', reason: 'left', byUserId: 12 });
    });
    expect(result.current).toBeNull();
    expect(readChatInfo()).toBeNull();
  });

  it('forgets a stored chat the server does not name (a ghost of a closed tab), yet asks about it', () => {
    writeChatInfo(info);
    const { result } = renderHook(() => useActiveChat());
    const socket = connect();
    act(() => {
      socket.receive('hello', { userId: 7, round });
    });
    expect(result.current).toBeNull();
    expect(readChatInfo()).toBeNull();
    // A chat page still open learns how it ended from the resume's answer.
    expect(socket.sent).toContainEqual({ event: 'resume', data: { roomId: 'room-1' } });
    // And noted as ended while this device was away, for /main to say.
    expect(readMissedEnd()?.roomId).toBe('room-1');
  });

  it('shows a chat the server names though this device stored nothing, from the server', async () => {
    const fetchMock = vi.fn((request: Request) =>
      Promise.resolve(
        new URL(request.url).pathname === '/api/match/current'
          ? jsonResponse({
              room: matchedFor({ roomId: 'room-5', word: '노을', round: 1000 }),
            })
          : jsonResponse({}),
      ),
    );
    vi.stubGlobal('fetch', fetchMock);
    const { result } = renderHook(() => useActiveChat(), { wrapper: FreshCache });
    const socket = connect();
    expect(result.current).toBeNull();
    act(() => {
      socket.receive('hello', { userId: 7, roomId: 'room-5', round });
    });
    await waitFor(() => {
      expect(result.current).toMatchObject({ roomId: 'room-5', word: '노을', partnerNickname: '별빛', myId: 7 });
    });
    act(() => {
      socket.receive('chatEnded', { roomId: 'room-5', reason: 'left', byUserId: 12 });
    });
    expect(result.current).toBeNull();
  });
});

function FreshCache({ children }: { children: ReactNode }) {
  return <SWRConfig value={{ provider: () => new Map(), dedupingInterval: 0 }}>{children}</SWRConfig>;
}

describe('useMissedEnd', () => {
  function serverSays(current: unknown) {
    vi.stubGlobal(
      'fetch',
      vi.fn(() => Promise.resolve(jsonResponse(current))),
    );
  }

  it('tells a chat that ended while away once the server says it ended', async () => {
    serverSays({ ended: { roomId: 'room-1', word: '고양이', partnerNickname: '별빛' } });
    writeChatInfo(info);
    const { result } = renderHook(() => useMissedEnd(), { wrapper: FreshCache });
    const socket = connect();
    act(() => {
      socket.receive('hello', { userId: 7, round });
    });
    await waitFor(() => {
      expect(result.current?.roomId).toBe('room-1');
    });
  });

  it('tells nothing when the server says the latest chat is another', async () => {
    serverSays({ ended: { roomId: 'room-2', word: '바다', partnerNickname: '구름' } });
    writeChatInfo(info);
    const fetched = vi.mocked(fetch);
    const { result } = renderHook(() => useMissedEnd(), { wrapper: FreshCache });
    const socket = connect();
    act(() => {
      socket.receive('hello', { userId: 7, round });
    });
    await waitFor(() => {
      expect(fetched).toHaveBeenCalled();
    });
    expect(result.current).toBeNull();
  });
});
