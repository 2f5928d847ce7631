import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { toast } from 'sonner';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Modal } from '@/components/modal';
import { ko } from '@/i18n/ko';
import { connectTabSocket, fakeTabSocketPerTest } from '@/test/fake-socket';
import { jsonResponse, renderRoute } from '@/test/render';
import { AgainInvitation } from './again-invitation';
import { matchedFor } from '@/test/chat-info';

vi.mock('sonner', () => ({ toast: Object.assign(vi.fn(), { success: vi.fn(), error: vi.fn() }) }));

const NOW = Date.UTC(2026, 10, 28, 12, 0, 0);
let answers: unknown[];
let answer: () => Response;

fakeTabSocketPerTest();

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'], shouldAdvanceTime: true });
  vi.setSystemTime(NOW);
  answers = [];
  answer = () => jsonResponse({ success: true, roomId: 'room-2' });
  vi.stubGlobal(
    'fetch',
    vi.fn(async (request: Request) => {
      if (new URL(request.url).pathname !== '/api/again/answer') return jsonResponse({ loggedIn: true });
      answers.push(await request.json());
      return answer();
    }),
  );
  vi.mocked(toast.error).mockClear();
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

const invite = { inviteId: 'a'.repeat(32), word: '바다', expiresAt: NOW + 60_000 };

function setup() {
  const user = userEvent.setup({ advanceTimers: (ms) => vi.advanceTimersByTime(ms) });
  renderRoute(
    <>
      <button type="button">페이지의 버튼</button>
      <AgainInvitation />
    </>,
  );
  const socket = connectTabSocket();
  const dialog = () => screen.queryByRole('alertdialog', { name: ko.again.inviteTitle('바다') });
  return { user, socket, dialog };
}

describe('an invitation to meet again', () => {
  it('shows nothing until one comes', () => {
    setup();
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
  });

  it('names only the word, takes focus, and counts its minute down on the server’s clock', async () => {
    const { socket, dialog } = setup();
    act(() => {
      socket.receive('againInvite', invite);
    });
    const shown = dialog();
    expect(shown).toBeInTheDocument();
    expect(ko.again.inviteTitle('바다')).toBe('‘바다’에서 만났던 사람이 다시 텔레파시를 보냈어요');
    expect(shown?.contains(document.activeElement)).toBe(true);
    const timer = within(shown as HTMLElement).getByRole('timer');
    expect(timer).toHaveTextContent(ko.again.inviteLeft(60));
    await act(async () => {
      await vi.advanceTimersByTimeAsync(18_000);
    });
    expect(timer).toHaveTextContent(ko.again.inviteLeft(42));
    expect(within(shown as HTMLElement).getByRole('button', { name: ko.again.accept })).toBeEnabled();
    expect(within(shown as HTMLElement).getByRole('button', { name: ko.again.decline })).toBeEnabled();
  });

  it('closes by itself when its minute is over, telling the server nothing', async () => {
    const { socket, dialog } = setup();
    act(() => {
      socket.receive('againInvite', invite);
    });
    await act(async () => {
      await vi.advanceTimersByTimeAsync(59_000);
    });
    expect(dialog()).toBeInTheDocument();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1_500);
    });
    expect(dialog()).not.toBeInTheDocument();
    expect(answers).toEqual([]);
  });

  it('accepts: the server opens the chat (its matched takes the user there) and the dialog closes', async () => {
    const { user, socket, dialog } = setup();
    act(() => {
      socket.receive('againInvite', invite);
    });
    await user.click(within(dialog() as HTMLElement).getByRole('button', { name: ko.again.accept }));
    await waitFor(() => {
      expect(dialog()).not.toBeInTheDocument();
    });
    expect(answers).toEqual([{ inviteId: invite.inviteId, accept: true }]);
    expect(toast.error).not.toHaveBeenCalled();
  });

  it('shows the server’s message when the chat cannot open, and closes', async () => {
    const message = '이미 끝난 초대예요.';
    answer = () => jsonResponse({ success: false, code: 'AGAIN_INVITE_OVER', message }, 409);
    const { user, socket, dialog } = setup();
    act(() => {
      socket.receive('againInvite', invite);
    });
    await user.click(within(dialog() as HTMLElement).getByRole('button', { name: ko.again.accept }));
    await waitFor(() => {
      expect(toast.error).toHaveBeenCalledWith(message);
    });
    expect(dialog()).not.toBeInTheDocument();
  });

  it('declines quietly with 다음에요', async () => {
    const { user, socket, dialog } = setup();
    act(() => {
      socket.receive('againInvite', invite);
    });
    await user.click(within(dialog() as HTMLElement).getByRole('button', { name: ko.again.decline }));
    expect(dialog()).not.toBeInTheDocument();
    await waitFor(() => {
      expect(answers).toEqual([{ inviteId: invite.inviteId, accept: false }]);
    });
    expect(toast.error).not.toHaveBeenCalled();
  });

  it('takes Escape as 다음에요', async () => {
    const { user, socket, dialog } = setup();
    act(() => {
      socket.receive('againInvite', invite);
    });
    await user.keyboard('{Escape}');
    expect(dialog()).not.toBeInTheDocument();
    await waitFor(() => {
      expect(answers).toEqual([{ inviteId: invite.inviteId, accept: false }]);
    });
  });

  it('opens over a dialog already shown (the end of a chat, say) and keeps the focus', async () => {
    const user = userEvent.setup({ advanceTimers: (ms) => vi.advanceTimersByTime(ms) });
    renderRoute(
      <>
        <Modal open title="대화가 종료되었어요" role="alertdialog">
          <button type="button">나가기</button>
        </Modal>
        <AgainInvitation />
      </>,
    );
    const socket = connectTabSocket();
    expect(screen.getByRole('button', { name: '나가기' })).toHaveFocus();
    act(() => {
      socket.receive('againInvite', invite);
    });
    const shown = screen.getByRole('alertdialog', { name: ko.again.inviteTitle('바다') });
    expect(shown.contains(document.activeElement)).toBe(true);
    await user.tab();
    expect(within(shown).getByRole('button', { name: ko.again.decline })).toHaveFocus();
    await user.click(within(shown).getByRole('button', { name: ko.again.decline }));
    // Closed, it gives the focus back to the dialog below.
    expect(screen.getByRole('button', { name: '나가기' })).toHaveFocus();
  });

  it('closes when a chat opens, and shows a second invitation once the first is answered', async () => {
    const { user, socket, dialog } = setup();
    act(() => {
      socket.receive('againInvite', invite);
      socket.receive('againInvite', { inviteId: 'b'.repeat(32), word: '노을', expiresAt: NOW + 60_000 });
    });
    await user.click(within(dialog() as HTMLElement).getByRole('button', { name: ko.again.decline }));
    expect(screen.getByRole('alertdialog', { name: ko.again.inviteTitle('노을') })).toBeInTheDocument();
    act(() => {
      socket.receive('matched', matchedFor({ roomId: 'room-9', word: '노을', round: 1, question: '' }));
    });
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
  });
});
