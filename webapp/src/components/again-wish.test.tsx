import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { toast } from 'sonner';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ko } from '@/i18n/ko';
import { rememberWish } from '@/lib/again-wish';
import { jsonResponse, renderRoute } from '@/test/render';
import { AgainWish } from './again-wish';

vi.mock('sonner', () => ({ toast: Object.assign(vi.fn(), { success: vi.fn(), error: vi.fn() }) }));

let answer: () => Response;
let wishes: unknown[];

beforeEach(() => {
  wishes = [];
  answer = () => jsonResponse({ success: true, paired: false });
  vi.stubGlobal(
    'fetch',
    vi.fn(async (request: Request) => {
      if (new URL(request.url).pathname !== '/api/again/wish') return jsonResponse({ loggedIn: true });
      wishes.push(await request.json());
      return answer();
    }),
  );
  vi.mocked(toast.error).mockClear();
});

afterEach(() => {
  vi.unstubAllGlobals();
  sessionStorage.clear();
});

function setup() {
  const user = userEvent.setup();
  renderRoute(<AgainWish roomId="room-1" word="바다" />);
  return { user, button: () => screen.queryByRole('button', { name: ko.again.wish }) };
}

describe('다시 만나고 싶어요', () => {
  it('says it with one tap, then quietly confirms without a word about the partner', async () => {
    const { user, button } = setup();
    await user.click(button() as HTMLElement);
    const done = await screen.findByRole('status');
    expect(done).toHaveTextContent(ko.again.wished);
    expect(done).toHaveFocus();
    expect(button()).not.toBeInTheDocument();
    expect(wishes).toEqual([{ roomId: 'room-1' }]);
    expect(done).not.toHaveTextContent('바다');
  });

  it('says the two are a pair, naming the word, only when the server says both wished it', async () => {
    answer = () => jsonResponse({ success: true, paired: true });
    const { user, button } = setup();
    await user.click(button() as HTMLElement);
    expect(await screen.findByRole('status')).toHaveTextContent(ko.again.paired('바다'));
    expect(ko.again.paired('바다')).toContain('‘바다’로 다시 텔레파시를');
  });

  it('shows the server’s message when it refuses, and the button stays', async () => {
    const message = '대화가 끝난 뒤 1시간 안에만 다시 만나고 싶다고 남길 수 있어요.';
    answer = () => jsonResponse({ success: false, code: 'AGAIN_NO_ROOM', message }, 400);
    const { user, button } = setup();
    await user.click(button() as HTMLElement);
    await waitFor(() => {
      expect(toast.error).toHaveBeenCalledWith(message);
    });
    expect(button()).toBeEnabled();
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
  });

  it('says the server could not be reached when nothing answers', async () => {
    answer = () => {
      throw new TypeError('offline');
    };
    const { user, button } = setup();
    await user.click(button() as HTMLElement);
    await waitFor(() => {
      expect(toast.error).toHaveBeenCalledWith(ko.again.wishServerError);
    });
  });

  it('after a chat the pair met again in, asks to go on meeting, not as if the two were strangers', async () => {
    answer = () => jsonResponse({ success: true, paired: true });
    const user = userEvent.setup();
    renderRoute(<AgainWish roomId="room-1" word="바다" again />);
    expect(screen.queryByRole('button', { name: ko.again.wish })).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: ko.again.wishMore }));
    expect(await screen.findByRole('status')).toHaveTextContent(ko.again.pairedMore('바다'));
    expect(wishes).toEqual([{ roomId: 'room-1' }]);
  });

  it('after a chat the pair met again in, says a one-sided wish keeps the pair going only if both wish it', async () => {
    const user = userEvent.setup();
    renderRoute(<AgainWish roomId="room-1" word="바다" again />);
    await user.click(screen.getByRole('button', { name: ko.again.wishMore }));
    expect(await screen.findByRole('status')).toHaveTextContent(ko.again.wishedMore);
  });

  it('shows the answer already given after this chat (on its end) instead of the button again', () => {
    rememberWish('room-1', 'paired');
    const { button } = setup();
    expect(button()).not.toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent(ko.again.paired('바다'));
    expect(screen.getByRole('status')).not.toHaveFocus();
  });
});
