import { act, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { toast } from 'sonner';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ko } from '@/i18n/ko';
import { readChatInfo, writeChatInfo } from '@/lib/chat-session';
import { chatInfo as info } from '@/test/chat-info';
import { connectTabSocket, fakeTabSocketPerTest, FakeWebSocket } from '@/test/fake-socket';
import { jsonResponse, renderRoute } from '@/test/render';
import { NEXT_QUESTION_WAIT_MS } from '../hooks/use-first-question';
import { ChatPage, QUESTION_COMPACT_AFTER } from './chat-page';

vi.mock('sonner', () => ({ toast: Object.assign(vi.fn(), { success: vi.fn(), error: vi.fn() }) }));

const next = '고양이를 키워 본 적 있어요?';

fakeTabSocketPerTest();

beforeEach(() => {
  vi.stubGlobal('fetch', vi.fn(() => Promise.resolve(jsonResponse({ success: true }))));
  vi.mocked(toast.error).mockClear();
  writeChatInfo(info);
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

function setup() {
  const user = userEvent.setup();
  renderRoute(<ChatPage />, { path: '/chatpage', extraPaths: ['/main'] });
  const socket = connectTabSocket();
  const card = () => screen.getByRole('region', { name: ko.chat.questionRegion });
  return { user, socket, card };
}

const asked = (socket: FakeWebSocket) => socket.sent.filter((frame) => frame.event === 'nextQuestion');

describe('the first question', () => {
  it('shows the question of the match with its label above the conversation', () => {
    const { card } = setup();
    expect(card()).toHaveTextContent(ko.chat.questionLabel);
    expect(card()).toHaveTextContent(info.question);
    expect(within(card()).getByRole('button', { name: ko.chat.questionNext })).toBeEnabled();
  });

  it('asks for the draw after the one shown and shows what the server tells, keeping it with the chat', async () => {
    const { user, socket, card } = setup();
    await user.click(within(card()).getByRole('button', { name: ko.chat.questionNext }));
    expect(asked(socket)).toEqual([{ event: 'nextQuestion', data: { roomId: 'room-1', draw: 0 } }]);
    // A second press before the answer sends nothing more.
    await user.click(within(card()).getByRole('button', { name: ko.chat.questionNext }));
    expect(asked(socket)).toHaveLength(1);
    act(() => {
      socket.receive('question', { roomId: 'room-1', draw: 1, question: next });
    });
    expect(card()).toHaveTextContent(next);
    expect(readChatInfo()).toMatchObject({ question: next, questionDraw: 1 });
    await user.click(within(card()).getByRole('button', { name: ko.chat.questionNext }));
    expect(asked(socket)[1]).toEqual({ event: 'nextQuestion', data: { roomId: 'room-1', draw: 1 } });
  });

  it('changes when the partner draws one, and ignores other rooms and older draws', () => {
    const { socket, card } = setup();
    act(() => {
      socket.receive('question', { roomId: 'room-2', draw: 1, question: '다른 방의 질문이에요?' });
    });
    expect(card()).toHaveTextContent(info.question);
    act(() => {
      socket.receive('question', { roomId: 'room-1', draw: 2, question: next });
      socket.receive('question', { roomId: 'room-1', draw: 1, question: '늦게 온 질문이에요?' });
    });
    expect(card()).toHaveTextContent(next);
  });

  it('frees the button when the server refuses or does not answer', async () => {
    const { user, socket, card } = setup();
    const button = () => within(card()).getByRole('button', { name: ko.chat.questionNext });
    await user.click(button());
    expect(button()).toHaveAttribute('aria-busy', 'true');
    act(() => {
      socket.receive('error', { event: 'nextQuestion', code: 'NOT_IN_ROOM', message: '대화방 정보가 없어요.' });
    });
    expect(toast.error).toHaveBeenCalledWith('대화방 정보가 없어요.');
    expect(button()).not.toHaveAttribute('aria-busy');

    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    act(() => {
      button().click();
    });
    expect(button()).toHaveAttribute('aria-busy', 'true');
    await act(async () => {
      await vi.advanceTimersByTimeAsync(NEXT_QUESTION_WAIT_MS);
    });
    expect(button()).not.toHaveAttribute('aria-busy');
    expect(asked(socket)).toHaveLength(2);
  });

  it('keeps to one quiet row once the conversation is under way', () => {
    const { socket, card } = setup();
    act(() => {
      for (let i = 0; i < QUESTION_COMPACT_AFTER; i += 1) {
        socket.receive('chatMessage', {
          id: `1-${i}`,
          roomId: 'room-1',
          senderId: info.partnerId,
          senderUsername: '',
          senderNickname: info.partnerNickname,
          receiverId: info.myId,
          receiverUsername: '',
          receiverNickname: info.myNickname,
          word: info.word,
          message: `안녕 ${i}`,
          timestamp: i,
        });
      }
    });
    expect(card()).toHaveClass('question-card--compact');
    expect(card()).not.toHaveTextContent(ko.chat.questionLabel);
    expect(card()).toHaveTextContent(info.question);
  });

  it('stays without its button once the chat has ended', () => {
    const { socket, card } = setup();
    act(() => {
      socket.receive('chatEnded', { roomId: 'room-1', reason: 'left', byUserId: info.partnerId });
    });
    expect(card()).toHaveTextContent(info.question);
    expect(within(card()).queryByRole('button', { name: ko.chat.questionNext })).not.toBeInTheDocument();
  });

  it('shows nothing for a chat stored before questions', () => {
    writeChatInfo({ ...info, question: '' });
    setup();
    expect(screen.queryByRole('region', { name: ko.chat.questionRegion })).not.toBeInTheDocument();
  });
});
