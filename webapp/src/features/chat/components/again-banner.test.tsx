import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ko } from '@/i18n/ko';
import { readChatInfo, writeChatInfo } from '@/lib/chat-session';
import { chatInfo, matchedFor } from '@/test/chat-info';
import { connectTabSocket, fakeTabSocketPerTest } from '@/test/fake-socket';
import { jsonResponse, renderRoute } from '@/test/render';
import { AgainBanner } from './again-banner';
import { ChatPage } from './chat-page';

vi.mock('sonner', () => ({ toast: Object.assign(vi.fn(), { success: vi.fn(), error: vi.fn() }) }));

let wishes: unknown[];

fakeTabSocketPerTest();

beforeEach(() => {
  wishes = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (request: Request) => {
      if (new URL(request.url).pathname === '/api/again/wish') {
        wishes.push(await request.json());
        return jsonResponse({ success: true, paired: true });
      }
      return jsonResponse({ success: true, message: '대화가 종료되었어요.' });
    }),
  );
});

afterEach(() => {
  vi.unstubAllGlobals();
  sessionStorage.clear();
});

const matchedAgain = matchedFor({
  roomId: 'room-2',
  word: '바다',
  round: 1001,
  question: '바다에 가면 제일 먼저 뭘 해요?',
  again: true,
});

describe('the again banner', () => {
  it('says the two met again under their word', () => {
    renderRoute(<AgainBanner word="바다" />);
    expect(screen.getByText('‘바다’로 다시 만났어요')).toBeInTheDocument();
    expect(screen.getByText(ko.again.bannerHint)).toBeInTheDocument();
  });

  it('takes the particle of the word', () => {
    expect(ko.again.banner('봄')).toBe('‘봄’으로 다시 만났어요');
    expect(ko.again.banner('가을')).toBe('‘가을’로 다시 만났어요');
  });

  it('heads a chat opened again, in place of the round’s line, and stays after a reload', () => {
    writeChatInfo({ ...chatInfo, word: '바다', again: true });
    const first = renderRoute(<ChatPage />, { path: '/chatpage' });
    expect(screen.getByText(ko.again.banner('바다'))).toBeInTheDocument();
    expect(document.body).not.toHaveTextContent(ko.chat.banner(chatInfo.partnerNickname, '바다'));
    first.unmount();
    renderRoute(<ChatPage />, { path: '/chatpage' });
    expect(screen.getByText(ko.again.banner('바다'))).toBeInTheDocument();
  });

  it('is not in a chat a round made', () => {
    writeChatInfo(chatInfo);
    renderRoute(<ChatPage />, { path: '/chatpage' });
    expect(document.querySelector('.chat-banner__text')).toHaveTextContent(ko.chat.banner(chatInfo.partnerNickname, chatInfo.word));
    expect(screen.queryByText(ko.again.banner(chatInfo.word))).not.toBeInTheDocument();
  });
});

describe('the end of a chat, for the one who was left', () => {
  it('offers 다시 만나고 싶어요 beside the way out', async () => {
    writeChatInfo(chatInfo);
    const user = userEvent.setup();
    renderRoute(<ChatPage />, { path: '/chatpage', extraPaths: ['/main'] });
    const socket = connectTabSocket();
    act(() => {
      socket.receive('chatEnded', { roomId: 'room-1', reason: 'left', byUserId: chatInfo.partnerId });
    });
    const ended = screen.getByRole('alertdialog', { name: ko.chat.endedTitle });
    await user.click(within(ended).getByRole('button', { name: ko.again.wish }));
    expect(await within(ended).findByRole('status')).toHaveTextContent(ko.again.paired(chatInfo.word));
    expect(wishes).toEqual([{ roomId: 'room-1' }]);
  });

  it('offers nothing of the kind after a report', () => {
    writeChatInfo(chatInfo);
    renderRoute(<ChatPage />, { path: '/chatpage', extraPaths: ['/main'] });
    const socket = connectTabSocket();
    act(() => {
      socket.receive('chatEndedByReport', { roomId: 'room-1', reason: 'report', byUserId: chatInfo.partnerId });
    });
    const ended = screen.getByRole('alertdialog', { name: ko.chat.endedTitle });
    expect(within(ended).queryByRole('button', { name: ko.again.wish })).not.toBeInTheDocument();
  });

  it('turns to the chat opened again from there, and keeps it stored', async () => {
    writeChatInfo(chatInfo);
    renderRoute(<ChatPage />, { path: '/chatpage', extraPaths: ['/main'] });
    const socket = connectTabSocket();
    act(() => {
      socket.receive('chatEnded', { roomId: 'room-1', reason: 'left', byUserId: chatInfo.partnerId });
    });
    expect(screen.getByRole('alertdialog', { name: ko.chat.endedTitle })).toBeInTheDocument();
    act(() => {
      // As the app's Realtime does with every match, before the page hears of it.
      writeChatInfo({ ...chatInfo, roomId: 'room-2', word: '바다', again: true });
      socket.receive('matched', matchedAgain);
    });
    await waitFor(() => {
      expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    });
    expect(screen.getByText(ko.again.banner('바다'))).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: ko.chat.inputLabel })).toBeEnabled();
    expect(readChatInfo()).toMatchObject({ roomId: 'room-2', again: true });
  });
});
