import { act, fireEvent, render, screen } from '@testing-library/react';
import { toast } from 'sonner';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ko } from '@/i18n/ko';
import type { ChatEntry } from '@/lib/chat-log';
import { HOLD_MS } from '../hooks/use-copy-message';
import { MessageList } from './message-list';

vi.mock('sonner', () => ({ toast: Object.assign(vi.fn(), { success: vi.fn(), error: vi.fn() }) }));

const entry = (key: string, senderId: number, message: string): ChatEntry => ({
  key,
  id: `${key}-0`,
  clientId: null,
  senderId,
  message,
  timestamp: Date.UTC(2026, 10, 28, 12, 0, 0),
  status: 'sent',
  sentOn: null,
});

let writeText: ReturnType<typeof vi.fn<(text: string) => Promise<void>>>;

beforeEach(() => {
  vi.useFakeTimers();
  writeText = vi.fn<(text: string) => Promise<void>>(() => Promise.resolve());
  Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
  vi.mocked(toast.success).mockClear();
  vi.mocked(toast.error).mockClear();
});

afterEach(() => {
  vi.useRealTimers();
});

function setup() {
  render(<MessageList entries={[entry('1', 12, '바다 좋아해요?'), entry('2', 7, '네, 여름 바다요')]} myId={7} partnerNickname="별빛" />);
  const bubble = (text: string) => screen.getByText(text).closest('.bubble') as HTMLElement;
  return { bubble };
}

async function settle() {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(0);
  });
}

describe('copying a message', () => {
  it('copies it on a right click, instead of the browser’s menu', async () => {
    const { bubble } = setup();
    const shown = fireEvent.contextMenu(bubble('바다 좋아해요?'));
    expect(shown).toBe(false);
    await settle();
    expect(writeText).toHaveBeenCalledWith('바다 좋아해요?');
    expect(toast.success).toHaveBeenCalledWith(ko.chat.copied);
  });

  it('copies it once a finger rests on it, mine too, not on a tap or a scroll', async () => {
    const { bubble } = setup();
    const mine = bubble('네, 여름 바다요');
    fireEvent.touchStart(mine, { touches: [{ clientX: 10, clientY: 10 }] });
    act(() => {
      vi.advanceTimersByTime(HOLD_MS - 100);
    });
    fireEvent.touchEnd(mine);
    act(() => {
      vi.advanceTimersByTime(HOLD_MS);
    });
    expect(writeText).not.toHaveBeenCalled();

    fireEvent.touchStart(mine, { touches: [{ clientX: 10, clientY: 10 }] });
    fireEvent.touchMove(mine, { touches: [{ clientX: 10, clientY: 60 }] });
    act(() => {
      vi.advanceTimersByTime(HOLD_MS);
    });
    expect(writeText).not.toHaveBeenCalled();

    fireEvent.touchStart(mine, { touches: [{ clientX: 10, clientY: 10 }] });
    act(() => {
      vi.advanceTimersByTime(HOLD_MS);
    });
    // The context menu a long press raises as well (Android) copies nothing more.
    fireEvent.contextMenu(mine);
    await settle();
    expect(writeText).toHaveBeenCalledTimes(1);
    expect(writeText).toHaveBeenCalledWith('네, 여름 바다요');
  });

  it('says so when the copy is refused', async () => {
    writeText.mockImplementation(() => Promise.reject(new Error('denied')));
    const { bubble } = setup();
    fireEvent.contextMenu(bubble('바다 좋아해요?'));
    await settle();
    expect(toast.error).toHaveBeenCalledWith(ko.chat.copyFailed);
  });
});

describe('read marks', () => {
  const log = [entry('1', 7, '안녕'), entry('2', 12, '반가워요'), entry('3', 7, '바다 좋아해요?'), entry('4', 7, '저는 여름 바다요')];
  const unreadOf = () => Array.from(document.querySelectorAll('.bubble-row')).map((row) => row.querySelector('.bubble-row__unread')?.textContent ?? '');

  it('shows "1" beside each of my messages the partner has not read, never beside theirs', () => {
    const { rerender } = render(<MessageList entries={log} myId={7} partnerNickname="별빛" partnerRead={null} />);
    expect(unreadOf()).toEqual([`1${ko.chat.unread}`, '', `1${ko.chat.unread}`, `1${ko.chat.unread}`]);
    rerender(<MessageList entries={log} myId={7} partnerNickname="별빛" partnerRead="3-0" />);
    expect(unreadOf()).toEqual(['', '', '', `1${ko.chat.unread}`]);
    rerender(<MessageList entries={log} myId={7} partnerNickname="별빛" partnerRead="4-0" />);
    expect(unreadOf()).toEqual(['', '', '', '']);
  });

  it('shows no "1" on a message still on its way or failed', () => {
    const pending: ChatEntry = { ...entry('5', 7, '가는 중'), id: null, clientId: 'c5', status: 'pending' };
    const failed: ChatEntry = { ...entry('6', 7, '실패'), id: null, clientId: 'c6', status: 'failed' };
    render(<MessageList entries={[pending, failed]} myId={7} partnerNickname="별빛" partnerRead={null} />);
    expect(unreadOf()).toEqual(['', '']);
  });
});
