import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { chatInfo } from '@/test/chat-info';
import { connectTabSocket, FakeWebSocket } from '@/test/fake-socket';
import { readChatInfo, writeChatInfo } from './chat-session';
import { tabSocket, useActiveChat } from './socket';

const info = chatInfo;
const round = { isOpen: true, round: 1000, remaining: 20, words: [], serverTime: 0 };

beforeEach(() => {
  vi.stubGlobal('WebSocket', FakeWebSocket);
  FakeWebSocket.instances = [];
});

afterEach(() => {
  tabSocket().stop();
  vi.unstubAllGlobals();
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
  });
});
