import { act } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ChatMessage } from '@/api/realtime';
import { chatLog } from '@/lib/chat-log';
import { writeChatInfo } from '@/lib/chat-session';
import { chatInfo as info } from '@/test/chat-info';
import { connectTabSocket, fakeTabSocketPerTest, type FakeWebSocket } from '@/test/fake-socket';
import { jsonResponse, renderRoute } from '@/test/render';
import { useChatRoom, type ChatRoom } from './use-chat-room';
import { READ_MARK_SPACING_MS } from './use-read-marks';

fakeTabSocketPerTest();

let visibility: DocumentVisibilityState = 'visible';

beforeEach(() => {
  vi.useFakeTimers();
  vi.stubGlobal('fetch', vi.fn(() => Promise.resolve(jsonResponse({ success: true }))));
  visibility = 'visible';
  vi.spyOn(document, 'visibilityState', 'get').mockImplementation(() => visibility);
  writeChatInfo(info);
});

afterEach(() => {
  chatLog.clear();
  vi.useRealTimers();
  vi.restoreAllMocks();
  localStorage.clear();
});

function setup() {
  const state: { room: ChatRoom | null } = { room: null };
  function Harness() {
    state.room = useChatRoom(info);
    return null;
  }
  renderRoute(<Harness />, { path: '/chatpage', extraPaths: ['/main'] });
  const socket = connectTabSocket();
  const room = (): ChatRoom => {
    if (!state.room) throw new Error('not rendered');
    return state.room;
  };
  return { socket, room };
}

function message(id: string, senderId: number): ChatMessage {
  return {
    id,
    roomId: info.roomId,
    senderId,
    senderUsername: '',
    senderNickname: '',
    receiverId: senderId === info.myId ? info.partnerId : info.myId,
    receiverUsername: '',
    receiverNickname: '',
    word: info.word,
    message: '안녕',
    timestamp: 1,
  };
}

function marks(socket: FakeWebSocket) {
  return socket.sent.filter((each) => each.event === 'chatRead').map((each) => each.data);
}

function fromPartner(socket: FakeWebSocket, id: string) {
  act(() => {
    socket.receive('chatMessage', message(id, info.partnerId));
  });
}

function setVisible(state: DocumentVisibilityState) {
  visibility = state;
  act(() => {
    document.dispatchEvent(new Event('visibilitychange'));
  });
}

describe('read marks', () => {
  it("tells the partner's newest message read, once for a burst, one mark each spacing", () => {
    const { socket } = setup();
    fromPartner(socket, '5-0');
    expect(marks(socket)).toEqual([{ roomId: info.roomId, lastId: '5-0' }]);
    fromPartner(socket, '6-0');
    fromPartner(socket, '6-1');
    // The user's own message is no news to them.
    act(() => {
      socket.receive('chatMessage', message('7-0', info.myId));
    });
    expect(marks(socket)).toHaveLength(1);
    act(() => {
      vi.advanceTimersByTime(READ_MARK_SPACING_MS);
    });
    expect(marks(socket)).toEqual([
      { roomId: info.roomId, lastId: '5-0' },
      { roomId: info.roomId, lastId: '6-1' },
    ]);
    act(() => {
      vi.advanceTimersByTime(READ_MARK_SPACING_MS * 3);
    });
    expect(marks(socket)).toHaveLength(2);
  });

  it('reads nothing while the page is hidden, and what came meanwhile once it shows', () => {
    const { socket } = setup();
    setVisible('hidden');
    fromPartner(socket, '5-0');
    fromPartner(socket, '5-1');
    act(() => {
      vi.advanceTimersByTime(READ_MARK_SPACING_MS * 2);
    });
    expect(marks(socket)).toEqual([]);
    setVisible('visible');
    expect(marks(socket)).toEqual([{ roomId: info.roomId, lastId: '5-1' }]);
  });

  it("keeps the partner's newest mark, and answers their asking with this side's", () => {
    const { socket, room } = setup();
    expect(room().partnerRead).toBeNull();
    act(() => {
      socket.receive('chatRead', { roomId: info.roomId, userId: info.partnerId, lastId: '9-2' });
    });
    expect(room().partnerRead).toBe('9-2');
    // An older mark (a late answer) moves nothing back; another room's or one's own mark is not the partner's.
    act(() => {
      socket.receive('chatRead', { roomId: info.roomId, userId: info.partnerId, lastId: '9-1' });
      socket.receive('chatRead', { roomId: 'room-2', userId: info.partnerId, lastId: '10-0' });
      socket.receive('chatRead', { roomId: info.roomId, userId: info.myId, lastId: '10-0' });
    });
    expect(room().partnerRead).toBe('9-2');
    fromPartner(socket, '8-0');
    const before = marks(socket).length;
    act(() => {
      socket.receive('chatRead', { roomId: info.roomId, userId: info.partnerId, ask: true });
    });
    expect(marks(socket).slice(before)).toEqual([{ roomId: info.roomId, lastId: '8-0' }]);
    expect(room().partnerRead).toBe('9-2');
  });

  it("asks for the partner's mark when the chat is resumed, telling its own", () => {
    const { socket } = setup();
    act(() => {
      socket.receive('resumed', { roomId: info.roomId, count: 0 });
    });
    expect(marks(socket)).toEqual([{ roomId: info.roomId, ask: true }]);
    fromPartner(socket, '3-0');
    act(() => {
      socket.receive('resumed', { roomId: info.roomId, count: 1 });
    });
    expect(marks(socket).slice(-1)).toEqual([{ roomId: info.roomId, ask: true, lastId: '3-0' }]);
  });
});
