import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ko } from '@/i18n/ko';
import { writeChatInfo } from '@/lib/chat-session';
import { tabSocket } from '@/lib/socket';
import { RECONNECT_MAX_MS } from '@/lib/socket-client';
import { storageKeys, writeLocal } from '@/lib/storage';
import { fakeTabSocketPerTest, FakeWebSocket } from '@/test/fake-socket';
import { jsonResponse, renderRoute } from '@/test/render';
import { Realtime } from './realtime';

const message = '운영정책 위반으로 2026년 11월 30일 20:05까지 이용이 정지되었어요. 사유: 욕설';

const warningText = (reason: string) => `운영정책 위반으로 경고를 받았어요. 같은 일이 반복되면 이용이 정지될 수 있어요. 사유: ${reason}`;
const warningOf = (id: number, reason: string) => ({ id, reason, message: warningText(reason), givenAt: '2026-11-23T12:00:00+00:00' });

/** Warnings waiting since the last visit, and what the page asked of the server. */
let waiting: ReturnType<typeof warningOf>[];
let calls: string[];

fakeTabSocketPerTest();

beforeEach(() => {
  waiting = [];
  calls = [];
  vi.stubGlobal(
    'fetch',
    vi.fn((request: Request) => {
      const path = new URL(request.url).pathname;
      calls.push(`${request.method} ${path}`);
      if (path === '/api/warnings') return Promise.resolve(jsonResponse({ success: true, warnings: waiting }));
      if (path.startsWith('/api/warnings/')) return Promise.resolve(jsonResponse({ success: true, message: '경고를 확인했어요.' }));
      return Promise.resolve(jsonResponse({ loggedIn: true }));
    }),
  );
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('Realtime', () => {
  it('ends a restricted session at once: no reconnect, nothing of the account kept, why and until when', async () => {
    writeLocal(storageKeys.username, 'alice_01');
    writeLocal(storageKeys.nickname, '달빛');
    writeChatInfo({
      myId: 7,
      myUsername: 'alice_01',
      myNickname: '달빛',
      partnerId: 12,
      partnerUsername: 'star_12',
      partnerNickname: '별빛',
      word: '고양이',
      round: 1,
      roomId: 'room-1',
      startTime: 0,
      question: '',
      questionDraw: 0,
      again: false,
    });
    const user = userEvent.setup();
    const { router } = renderRoute(<Realtime />, { path: '/main', extraPaths: ['/login'] });
    await waitFor(() => {
      expect(FakeWebSocket.instances).toHaveLength(1);
    });
    const socket = FakeWebSocket.latest();
    act(() => {
      socket.open();
    });

    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    act(() => {
      socket.receive('accountRestricted', { kind: 'suspend', reason: '욕설', until: '2026-11-30T11:05:00+00:00', message });
      socket.drop();
    });
    // Stopped there and then, before the logout below has reached the socket's owner.
    expect(tabSocket().getStatus()).toBe('idle');
    const dialog = screen.getByRole('alertdialog', { name: ko.restricted.title });
    expect(dialog).toHaveTextContent(message);
    expect(socket.closed).toBe(true);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(RECONNECT_MAX_MS * 3);
    });
    expect(FakeWebSocket.instances).toHaveLength(1);
    expect(tabSocket().getStatus()).toBe('idle');
    for (const key of Object.values(storageKeys)) expect(localStorage.getItem(key)).toBeNull();
    vi.useRealTimers();

    await user.click(within(dialog).getByRole('button', { name: ko.app.confirm }));
    await waitFor(() => {
      expect(router.state.location.pathname).toBe('/login');
    });
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
  });

  it('shows a warning and keeps the session and the socket', async () => {
    const user = userEvent.setup();
    renderRoute(<Realtime />, { path: '/main' });
    await waitFor(() => {
      expect(FakeWebSocket.instances).toHaveLength(1);
    });
    const socket = FakeWebSocket.latest();
    act(() => {
      socket.open();
    });
    await waitFor(() => {
      expect(calls).toContain('GET /api/warnings');
    });
    act(() => {
      socket.receive('accountWarned', warningOf(5, '욕설'));
    });
    const dialog = screen.getByRole('alertdialog', { name: ko.warned.title });
    expect(dialog).toHaveTextContent(warningText('욕설'));
    await user.click(within(dialog).getByRole('button', { name: ko.app.confirm }));
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    expect(calls).toContain('POST /api/warnings/5/seen');
    expect(socket.closed).toBe(false);
    expect(tabSocket().getStatus()).not.toBe('idle');
  });

  it('shows the warnings given while the user was away, one at a time, each confirmed once', async () => {
    waiting = [warningOf(3, '광고'), warningOf(4, '위협')];
    const user = userEvent.setup();
    renderRoute(<Realtime />, { path: '/main' });
    const first = await screen.findByRole('alertdialog', { name: ko.warned.title });
    expect(first).toHaveTextContent(warningText('광고'));
    expect(first).toHaveTextContent('11월 23일 21:00에 받은 경고예요.');
    await waitFor(() => {
      expect(FakeWebSocket.instances).toHaveLength(1);
    });
    // The same warning told again on the socket is not shown twice.
    act(() => {
      FakeWebSocket.latest().open();
      FakeWebSocket.latest().receive('accountWarned', warningOf(3, '광고'));
    });
    await user.click(within(first).getByRole('button', { name: ko.app.confirm }));
    const second = screen.getByRole('alertdialog', { name: ko.warned.title });
    expect(second).toHaveTextContent(warningText('위협'));
    await user.click(within(second).getByRole('button', { name: ko.app.confirm }));
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    expect(calls.filter((call) => call.startsWith('POST'))).toEqual(['POST /api/warnings/3/seen', 'POST /api/warnings/4/seen']);
  });

  it('keeps reconnecting after an ordinary drop', async () => {
    renderRoute(<Realtime />, { path: '/main' });
    await waitFor(() => {
      expect(FakeWebSocket.instances).toHaveLength(1);
    });
    const socket = FakeWebSocket.latest();
    act(() => {
      socket.open();
    });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    act(() => {
      socket.drop();
    });
    await act(async () => {
      await vi.advanceTimersByTimeAsync(RECONNECT_MAX_MS);
    });
    expect(FakeWebSocket.instances).toHaveLength(2);
  });
});
