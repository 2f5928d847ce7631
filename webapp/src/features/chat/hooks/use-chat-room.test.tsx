import { act, waitFor } from '@testing-library/react';
import { toast } from 'sonner';
import { afterEach, beforeEach, describe, expect, it, vi, type Mock } from 'vitest';
import type { ChatMessage } from '@/api/realtime';
import { ko } from '@/i18n/ko';
import { chatLog } from '@/lib/chat-log';
import { writeChatInfo } from '@/lib/chat-session';
import { chatInfo } from '@/test/chat-info';
import { connectTabSocket, fakeTabSocketPerTest, FakeWebSocket } from '@/test/fake-socket';
import { jsonResponse, renderRoute } from '@/test/render';
import { PARTNER_TYPING_TIMEOUT_MS, RECONNECT_NOTICE_MS, SEND_RETRIES, SEND_RETRY_MS, useChatRoom, type ChatRoom } from './use-chat-room';

vi.mock('sonner', () => ({ toast: Object.assign(vi.fn(), { success: vi.fn(), error: vi.fn() }) }));

const info = chatInfo;

let fetchMock: Mock<(request: Request) => Promise<Response>>;

fakeTabSocketPerTest();

beforeEach(() => {
  fetchMock = vi.fn<(request: Request) => Promise<Response>>(() => Promise.resolve(jsonResponse({ success: true, message: '종료' })));
  vi.stubGlobal('fetch', fetchMock);
  vi.mocked(toast.error).mockClear();
  writeChatInfo(info);
});

afterEach(() => {
  chatLog.clear();
  vi.useRealTimers();
  vi.unstubAllGlobals();
  localStorage.clear();
});

/** Mounts the hook on /chatpage and gives its latest state. */
function setup() {
  const state: { room: ChatRoom | null } = { room: null };
  function Harness() {
    const room = useChatRoom(info);
    state.room = room;
    return null;
  }
  const view = renderRoute(<Harness />, { path: '/chatpage', extraPaths: ['/main'] });
  const room = (): ChatRoom => {
    if (!state.room) throw new Error('not rendered');
    return state.room;
  };
  return { ...view, room };
}

const connect = connectTabSocket;

function echo(clientId: string | undefined, text: string, id: string, senderId = info.myId): ChatMessage {
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
    message: text,
    timestamp: 1,
    ...(clientId ? { clientId } : {}),
  };
}

describe('useChatRoom', () => {
  it('sends a trimmed message as pending, and the echo confirms it', () => {
    const { room } = setup();
    const socket = connect();
    let sent = false;
    act(() => {
      sent = room().send('   ');
    });
    expect(sent).toBe(false);
    act(() => {
      sent = room().send('  안녕하세요 ');
    });
    expect(sent).toBe(true);
    const frame = socket.sent.find((each) => each.event === 'chatMessage');
    expect(frame?.data).toMatchObject({ roomId: 'room-1', message: '안녕하세요' });
    expect(room().entries).toMatchObject([{ message: '안녕하세요', status: 'pending', senderId: 7 }]);
    const { clientId } = frame?.data as { clientId: string };
    act(() => {
      socket.receive('chatMessage', echo(clientId, '안녕하세요', '1-0'));
    });
    expect(room().entries).toMatchObject([{ id: '1-0', message: '안녕하세요', status: 'sent' }]);
  });

  it('tells the sender once, plainly, when the partner reads their words masked', () => {
    const { room } = setup();
    const socket = connect();
    vi.mocked(toast).mockClear();
    const sendAndEcho = (text: string, shown: string, id: string) => {
      act(() => {
        room().send(text);
      });
      const frames = socket.sent.filter((each) => each.event === 'chatMessage');
      const { clientId } = frames[frames.length - 1]?.data as { clientId: string };
      act(() => {
        socket.receive('chatMessage', echo(clientId, shown, id));
      });
    };
    sendAndEcho('안녕하세요', '안녕하세요', '1-0');
    expect(toast).not.toHaveBeenCalled();
    sendAndEcho('제 번호는 01012345678', '제 번호는 ***********', '1-1');
    expect(toast).toHaveBeenCalledWith(ko.chat.masked);
    sendAndEcho('010 1234 5678', '*************', '1-2');
    expect(toast).toHaveBeenCalledTimes(1);
  });

  it('marks the message the server refused as failed, and says why', () => {
    const { room } = setup();
    const socket = connect();
    act(() => {
      room().send('하나');
    });
    act(() => {
      socket.receive('error', { event: 'chatMessage', code: 'RATE_LIMITED', message: '너무 빨라요.' });
    });
    expect(toast.error).toHaveBeenCalledWith('너무 빨라요.');
    expect(room().entries).toMatchObject([{ message: '하나', status: 'failed' }]);
  });

  it('tries a send refused for now again with the same client id, then shows it failed', () => {
    vi.useFakeTimers();
    const { room } = setup();
    const socket = connect();
    act(() => {
      room().send('다시 가요');
    });
    const sends = () => socket.sent.filter((each) => each.event === 'chatMessage').map((each) => each.data as { clientId: string });
    const unavailable = { event: 'chatMessage', code: 'UNAVAILABLE', message: '잠시 후 다시 시도해주세요.' };
    for (let i = 1; i <= SEND_RETRIES; i += 1) {
      act(() => {
        socket.receive('error', unavailable);
      });
      expect(room().entries).toMatchObject([{ status: 'pending' }]);
      expect(toast.error).not.toHaveBeenCalled();
      act(() => {
        vi.advanceTimersByTime(SEND_RETRY_MS * i);
      });
      expect(sends()).toHaveLength(i + 1);
    }
    const ids = new Set(sends().map((each) => each.clientId));
    expect(ids.size).toBe(1);
    act(() => {
      socket.receive('error', unavailable);
    });
    expect(room().entries).toMatchObject([{ status: 'failed' }]);
    expect(toast.error).toHaveBeenCalledWith('잠시 후 다시 시도해주세요.');
    // The send that went through after all confirms the failed copy; nothing doubles.
    const [clientId] = ids;
    act(() => {
      socket.receive('chatMessage', echo(clientId, '다시 가요', '5-0'));
    });
    expect(room().entries).toMatchObject([{ id: '5-0', status: 'sent' }]);
  });

  it('sends a failed message again with its client id when asked', () => {
    const { room } = setup();
    const socket = connect();
    act(() => {
      room().send('하나');
    });
    act(() => {
      socket.receive('error', { event: 'chatMessage', code: 'RATE_LIMITED', message: '너무 빨라요.' });
    });
    const first = socket.sent.find((each) => each.event === 'chatMessage')?.data as { clientId: string };
    act(() => {
      room().retry(first.clientId);
    });
    expect(room().entries).toMatchObject([{ message: '하나', status: 'pending' }]);
    const sent = socket.sent.filter((each) => each.event === 'chatMessage').map((each) => each.data);
    expect(sent).toEqual([first, first]);
  });

  it('sends again after a reconnect what the server did not confirm', () => {
    const { room } = setup();
    // Written while the socket is down: kept pending, sent on the next connection's resume.
    act(() => {
      room().send('늦은 인사');
    });
    const socket = connect();
    expect(socket.sent.some((each) => each.event === 'chatMessage')).toBe(false);
    act(() => {
      socket.receive('resumed', { roomId: 'room-1', count: 0 });
    });
    expect(socket.sent.filter((each) => each.event === 'chatMessage').map((each) => each.data)).toMatchObject([
      { roomId: 'room-1', message: '늦은 인사' },
    ]);
    // A second resume on the same connection does not send it twice.
    act(() => {
      socket.receive('resumed', { roomId: 'room-1', count: 0 });
    });
    expect(socket.sent.filter((each) => each.event === 'chatMessage')).toHaveLength(1);
  });

  it("shows the partner's typing until they stop, write, or go quiet", () => {
    const { room } = setup();
    const socket = connect();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    act(() => {
      socket.receive('typing', { roomId: 'room-1', userId: info.myId });
    });
    expect(room().partnerTyping).toBe(false);
    act(() => {
      socket.receive('typing', { roomId: 'room-1', userId: info.partnerId });
    });
    expect(room().partnerTyping).toBe(true);
    act(() => {
      socket.receive('stopTyping', { roomId: 'room-1', userId: info.partnerId });
    });
    expect(room().partnerTyping).toBe(false);
    act(() => {
      socket.receive('typing', { roomId: 'room-1', userId: info.partnerId });
    });
    act(() => {
      socket.receive('chatMessage', echo(undefined, '안녕', '2-0', info.partnerId));
    });
    expect(room().partnerTyping).toBe(false);
    act(() => {
      socket.receive('typing', { roomId: 'room-1', userId: info.partnerId });
    });
    act(() => {
      vi.advanceTimersByTime(PARTNER_TYPING_TIMEOUT_MS);
    });
    expect(room().partnerTyping).toBe(false);
  });

  it('tells of a reconnection only when the drop lasts', () => {
    const { room } = setup();
    const socket = connect();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    act(() => {
      socket.drop();
    });
    act(() => {
      vi.advanceTimersByTime(RECONNECT_NOTICE_MS - 1);
    });
    expect(room().reconnecting).toBe(false);
    // Still down through the first retry (after 1 s), which keeps failing to open.
    act(() => {
      vi.advanceTimersByTime(2 * RECONNECT_NOTICE_MS);
    });
    expect(room().reconnecting).toBe(true);
    act(() => {
      FakeWebSocket.latest().open();
    });
    expect(room().reconnecting).toBe(false);
  });

  it('ends for good when the partner leaves: nothing more is sent', () => {
    const { room } = setup();
    const socket = connect();
    act(() => {
      socket.receive('chatEnded', { roomId: 'room-1', reason: 'left', byUserId: info.partnerId });
    });
    expect(room().active).toBe(false);
    expect(room().ended).toMatchObject({ reason: 'left' });
    expect(room().canReport).toBe(true);
    act(() => {
      expect(room().send('거기 있어요?')).toBe(false);
    });
    expect(socket.sent.some((each) => each.event === 'chatMessage')).toBe(false);
  });

  it('leaves: ends the match, tells the socket, keeps the chat for the mood question and goes to /main', async () => {
    const { room, router } = setup();
    const socket = connect();
    await act(async () => {
      await room().leave(true);
    });
    expect(fetchMock.mock.calls.map(([request]) => new URL(request.url).pathname)).toContain('/api/match/end');
    expect(socket.sent).toContainEqual({ event: 'leaveRoom', data: { roomId: 'room-1', userId: 7 } });
    expect(localStorage.getItem('chatInfo')).toBeNull();
    expect(JSON.parse(localStorage.getItem('feedbackInfo') ?? 'null')).toMatchObject({ roomId: 'room-1' });
    await waitFor(() => {
      expect(router.state.location.pathname).toBe('/main');
    });
  });
});
