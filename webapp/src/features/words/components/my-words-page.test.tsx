import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { toast } from 'sonner';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ko } from '@/i18n/ko';
import { connectTabSocket, fakeTabSocketPerTest } from '@/test/fake-socket';
import { jsonResponse, renderRoute } from '@/test/render';
import { forgetInvites } from '../hooks/use-again-invite';
import { MyWordsPage } from './my-words-page';
import { matchedFor } from '@/test/chat-info';

vi.mock('sonner', () => ({ toast: Object.assign(vi.fn(), { success: vi.fn(), error: vi.fn() }) }));

const NOW = Date.UTC(2026, 10, 28, 12, 0, 0);
const DAY = 24 * 60 * 60 * 1000;
const iso = (ms: number) => new Date(ms).toISOString();

const history = [
  { word: '노을', partner_nickname: '구름', connected_at: iso(NOW - DAY), room_id: 'room-3', again: false },
  { word: '바다', partner_nickname: '별빛', connected_at: iso(NOW - 2 * DAY), room_id: 'room-2', again: false },
];
const pair = { id: 5, word: '바다', roomId: 'room-2', since: iso(NOW - 2 * DAY), until: iso(NOW + 28 * DAY - 1000) };

let open: boolean;
let pairs: (typeof pair)[];
let invite: () => Response;
let calls: { method: string; path: string; body?: unknown }[];

fakeTabSocketPerTest();

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'], shouldAdvanceTime: true });
  vi.setSystemTime(NOW);
  open = true;
  pairs = [pair];
  calls = [];
  invite = () => jsonResponse({ success: true, inviteId: 'c'.repeat(32), expiresAt: Date.now() + 60_000 });
  vi.stubGlobal(
    'fetch',
    vi.fn(async (request: Request) => {
      const path = new URL(request.url).pathname;
      const body: unknown = request.method === 'POST' ? await request.json() : undefined;
      calls.push({ method: request.method, path, body });
      switch (path) {
        case '/api/word-history':
          return jsonResponse({ success: true, history, total: history.length });
        case '/api/again/pairs':
          return jsonResponse({ success: true, pairs });
        case '/api/server-time':
          return jsonResponse({ isOpen: open, round: 1, remaining: 20, words: [], serverTime: Date.now() });
        case '/api/again/invite':
          return invite();
        case '/api/again/pairs/5':
          pairs = [];
          return jsonResponse({ success: true, message: '다시 텔레파시를 거두었어요. 서로에게 다시 보낼 수 없어요.' });
        default:
          return jsonResponse({ loggedIn: true });
      }
    }),
  );
  vi.mocked(toast.error).mockClear();
  vi.mocked(toast.success).mockClear();
  forgetInvites();
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

async function setup() {
  const user = userEvent.setup({ advanceTimers: (ms) => vi.advanceTimersByTime(ms) });
  const view = renderRoute(<MyWordsPage />, { path: '/mywords' });
  await screen.findByText('노을');
  const card = async () => (await screen.findByRole('button', { name: ko.again.send })).closest('li') as HTMLElement;
  return { user, view, card };
}

describe('/mywords, the card of a pair', () => {
  it('comes first and offers 다시 텔레파시 during open hours, with the days the pair has left', async () => {
    const { card } = await setup();
    const pairCard = await card();
    expect(pairCard).toHaveTextContent('바다');
    expect(pairCard).toHaveTextContent(ko.minimal.partner('별빛'));
    expect(pairCard).toHaveTextContent(ko.again.daysLeft(28));
    expect(within(pairCard).getByRole('button', { name: ko.again.send })).toBeEnabled();
    expect(within(pairCard).getByRole('button', { name: ko.again.stop })).toBeEnabled();
    expect(screen.getAllByRole('listitem')[0]).toBe(pairCard);
    // The other card is a plain one.
    const other = screen.getByText('노을').closest('li') as HTMLElement;
    expect(within(other).queryByRole('button')).not.toBeInTheDocument();
  });

  it('tells the chat a pair met again in from the one that made the pair: by its mark and its time', async () => {
    history.splice(1, 0, { word: '바다', partner_nickname: '별빛', connected_at: iso(NOW - 2 * DAY + 40 * 60 * 1000), room_id: 'room-4', again: true });
    try {
      const { card } = await setup();
      const pairCard = await card();
      expect(pairCard).toHaveTextContent('26. 11. 26. 21:00');
      expect(pairCard).not.toHaveTextContent(ko.again.metAgainTag);
      const later = screen.getByText('26. 11. 26. 21:40').closest('li') as HTMLElement;
      expect(later).toHaveTextContent('바다');
      expect(later).toHaveTextContent(ko.minimal.partner('별빛'));
      expect(later).toHaveTextContent(ko.again.metAgainTag);
      expect(screen.getByText('노을').closest('li')).not.toHaveTextContent(ko.again.metAgainTag);
    } finally {
      history.splice(1, 1);
    }
  });

  it('shows no 다시 텔레파시 on any card without a pair', async () => {
    pairs = [];
    renderRoute(<MyWordsPage />, { path: '/mywords' });
    await screen.findByText('노을');
    await waitFor(() => {
      expect(calls.some((call) => call.path === '/api/again/pairs')).toBe(true);
    });
    expect(within(screen.getByRole('list')).queryByRole('button')).not.toBeInTheDocument();
    expect(screen.queryByText(ko.again.pairTag)).not.toBeInTheDocument();
  });

  it('outside open hours keeps the button disabled and says when it can be sent', async () => {
    open = false;
    const { card } = await setup();
    const pairCard = await card();
    await waitFor(() => {
      expect(within(pairCard).getByRole('button', { name: ko.again.send })).toBeDisabled();
    });
    expect(pairCard).toHaveTextContent(ko.again.closedReason);
    expect(within(pairCard).getByRole('button', { name: ko.again.send })).toHaveAccessibleDescription(`바다 ${ko.again.closedReason}`);
  });

  it('sends, then waits out the invitation’s minute and says only that it did not reach them now', async () => {
    const { user, card } = await setup();
    const pairCard = await card();
    await user.click(within(pairCard).getByRole('button', { name: ko.again.send }));
    const waiting = await within(pairCard).findByRole('status');
    expect(waiting).toHaveTextContent(`${ko.again.sent} · ${ko.again.seconds(60)}`);
    expect(calls.find((call) => call.path === '/api/again/invite')?.body).toEqual({ pairId: 5 });
    expect(within(pairCard).queryByRole('button', { name: ko.again.send })).not.toBeInTheDocument();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(18_000);
    });
    expect(within(pairCard).getByRole('timer')).toHaveTextContent(ko.again.seconds(42));
    await act(async () => {
      await vi.advanceTimersByTimeAsync(42_500);
    });
    expect(pairCard).toHaveTextContent(ko.again.lapsed);
    expect(pairCard).not.toHaveTextContent(/거절|거부/);
    expect(within(pairCard).getByRole('button', { name: ko.again.send })).toBeEnabled();
  });

  it('keeps the wait when the page is left and opened again within the minute', async () => {
    const { user, view, card } = await setup();
    await user.click(within(await card()).getByRole('button', { name: ko.again.send }));
    await screen.findByRole('status');
    view.unmount();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(10_000);
    });
    renderRoute(<MyWordsPage />, { path: '/mywords' });
    expect(await screen.findByRole('timer')).toHaveTextContent(ko.again.seconds(50));
    expect(screen.getByText('바다').closest('li')).toHaveTextContent(ko.again.sent);
  });

  it('forgets the wait once a chat opened (the invitation was accepted)', async () => {
    const { user, view, card } = await setup();
    const socket = connectTabSocket();
    await user.click(within(await card()).getByRole('button', { name: ko.again.send }));
    await screen.findByRole('status');
    act(() => {
      socket.receive('matched', matchedFor({ roomId: 'room-4', word: '바다', round: 1, question: '', again: true }));
    });
    view.unmount();
    renderRoute(<MyWordsPage />, { path: '/mywords' });
    expect(await screen.findByRole('button', { name: ko.again.send })).toBeEnabled();
    expect(screen.queryByText(ko.again.sent)).not.toBeInTheDocument();
  });

  it('shows the server’s message when an invitation cannot go', async () => {
    const message = '다시 텔레파시는 하룻밤에 5번까지 보낼 수 있어요.';
    invite = () => jsonResponse({ success: false, code: 'AGAIN_TOO_MANY', message }, 429);
    const { user, card } = await setup();
    const pairCard = await card();
    await user.click(within(pairCard).getByRole('button', { name: ko.again.send }));
    await waitFor(() => {
      expect(toast.error).toHaveBeenCalledWith(message);
    });
    expect(within(pairCard).getByRole('button', { name: ko.again.send })).toBeEnabled();
  });

  it('takes the pair back after the confirmation, and the card is a plain one again', async () => {
    const { user, card } = await setup();
    await user.click(within(await card()).getByRole('button', { name: ko.again.stop }));
    const dialog = screen.getByRole('alertdialog', { name: ko.again.stopTitle });
    expect(dialog).toHaveTextContent(ko.again.stopMessage);
    await user.click(within(dialog).getByRole('button', { name: ko.again.stop }));
    await waitFor(() => {
      expect(screen.queryByRole('button', { name: ko.again.send })).not.toBeInTheDocument();
    });
    expect(calls.some((call) => call.method === 'DELETE' && call.path === '/api/again/pairs/5')).toBe(true);
    expect(toast.success).toHaveBeenCalledWith('다시 텔레파시를 거두었어요. 서로에게 다시 보낼 수 없어요.');
    expect(screen.getByText('바다').closest('li')).toHaveTextContent(ko.minimal.partner('별빛'));
  });

  it('cancelling the confirmation keeps the pair', async () => {
    const { user, card } = await setup();
    await user.click(within(await card()).getByRole('button', { name: ko.again.stop }));
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: ko.app.cancel }));
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    expect(calls.some((call) => call.method === 'DELETE')).toBe(false);
    expect(screen.getByRole('button', { name: ko.again.send })).toBeInTheDocument();
  });
});
