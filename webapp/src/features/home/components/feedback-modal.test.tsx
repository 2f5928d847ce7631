import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ko } from '@/i18n/ko';
import { rememberWish } from '@/lib/again-wish';
import { chatInfo } from '@/test/chat-info';
import { jsonResponse, renderRoute } from '@/test/render';
import { FeedbackModal } from './feedback-modal';

vi.mock('sonner', () => ({ toast: Object.assign(vi.fn(), { success: vi.fn(), error: vi.fn() }) }));

let calls: { path: string; body: unknown }[];

beforeEach(() => {
  calls = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (request: Request) => {
      const path = new URL(request.url).pathname;
      calls.push({ path, body: await request.json() });
      if (path === '/api/again/wish') return jsonResponse({ success: true, paired: false });
      return jsonResponse({ success: true, message: '차단했어요. 이 상대와는 다시 연결되지 않아요.' });
    }),
  );
});

afterEach(() => {
  vi.unstubAllGlobals();
  sessionStorage.clear();
});

function setup() {
  const user = userEvent.setup();
  const onDone = vi.fn();
  renderRoute(<FeedbackModal info={chatInfo} onDone={onDone} />);
  return { user, onDone, dialog: screen.getByRole('dialog', { name: ko.feedback.title }) };
}

describe('the mood question after a chat', () => {
  it('offers 다시 만나고 싶어요 beside the moods, and says it without leaving the question', async () => {
    const { user, onDone, dialog } = setup();
    await user.click(within(dialog).getByRole('button', { name: ko.again.wish }));
    expect(await within(dialog).findByRole('status')).toHaveTextContent(ko.again.wished);
    expect(calls).toEqual([{ path: '/api/again/wish', body: { roomId: chatInfo.roomId } }]);
    expect(onDone).not.toHaveBeenCalled();
    expect(within(dialog).getByRole('group', { name: ko.feedback.legend })).toBeInTheDocument();
  });

  it('shows the answer given on the chat’s end rather than asking again', () => {
    rememberWish(chatInfo.roomId, 'wished');
    const { dialog } = setup();
    expect(within(dialog).queryByRole('button', { name: ko.again.wish })).not.toBeInTheDocument();
    expect(within(dialog).getByRole('status')).toHaveTextContent(ko.again.wished);
  });

  it('blocks only once asked and confirmed, and says nothing of a pair when there is none', async () => {
    const { user, dialog } = setup();
    await user.click(within(dialog).getByRole('button', { name: ko.feedback.block(chatInfo.partnerNickname) }));
    const ask = screen.getByRole('alertdialog', { name: ko.feedback.blockTitle(chatInfo.partnerNickname) });
    expect(ask).toHaveTextContent(ko.feedback.blockMessage);
    expect(ask).not.toHaveTextContent(ko.feedback.blockEndsPair);
    expect(calls).toEqual([]);
    await user.click(within(ask).getByRole('button', { name: ko.app.cancel }));
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    expect(calls).toEqual([]);
    await user.click(within(dialog).getByRole('button', { name: ko.feedback.block(chatInfo.partnerNickname) }));
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: ko.feedback.blockConfirm }));
    await waitFor(() => {
      expect(calls).toEqual([{ path: '/api/match/block', body: { roomId: chatInfo.roomId } }]);
    });
  });

  it('says a block ends the pair, after a chat both wished to have again', async () => {
    rememberWish(chatInfo.roomId, 'paired');
    const { user, dialog } = setup();
    await user.click(within(dialog).getByRole('button', { name: ko.feedback.block(chatInfo.partnerNickname) }));
    expect(screen.getByRole('alertdialog')).toHaveTextContent(ko.feedback.blockEndsPair);
  });

  it('says a block ends the pair, after a chat the pair met again in', async () => {
    const user = userEvent.setup();
    renderRoute(<FeedbackModal info={{ ...chatInfo, again: true }} onDone={vi.fn()} />);
    const dialog = screen.getByRole('dialog', { name: ko.feedback.title });
    await user.click(within(dialog).getByRole('button', { name: ko.feedback.block(chatInfo.partnerNickname) }));
    expect(screen.getByRole('alertdialog')).toHaveTextContent(ko.feedback.blockEndsPair);
  });

  it('offers it no more once the partner is blocked', async () => {
    const { user, dialog } = setup();
    await user.click(within(dialog).getByRole('button', { name: ko.feedback.block(chatInfo.partnerNickname) }));
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: ko.feedback.blockConfirm }));
    await waitFor(() => {
      expect(within(dialog).queryByRole('button', { name: ko.again.wish })).not.toBeInTheDocument();
    });
  });
});
