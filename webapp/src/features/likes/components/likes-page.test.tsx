import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ko } from '@/i18n/ko';
import { renderRoute } from '@/test/render';
import { freshState, serve, type FakeState } from '../test/fake-server';
import { LikesPage } from './likes-page';

let state: FakeState;

beforeEach(() => {
  state = freshState();
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout', 'Date'], shouldAdvanceTime: true });
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const t = ko.likes;

function setup() {
  const sent = serve(state);
  const user = userEvent.setup({ advanceTimers: (ms) => vi.advanceTimersByTime(ms) });
  const view = renderRoute(<LikesPage />, { path: '/likes', extraPaths: ['/wordset'] });
  return { sent, user, ...view };
}

describe('LikesPage', () => {
  it('asks for the real name first, then shows the transfer and checks until it is paid', async () => {
    state.realName = null;
    const { sent, user, router } = setup();
    await user.click(await screen.findByRole('button', { name: t.buy }));
    const modal = await screen.findByRole('dialog', { name: t.realNameTitle });
    await user.click(within(modal).getByRole('button', { name: t.realNameSave }));
    expect(within(modal).getByText(ko.validation.REAL_NAME_REQUIRED)).toBeInTheDocument();
    await user.type(within(modal).getByLabelText(t.realNameLabel), '  김민준 ');
    await user.click(within(modal).getByRole('button', { name: t.realNameSave }));

    expect(await screen.findByRole('heading', { name: t.pendingTitle })).toBeInTheDocument();
    expect(sent['/user/update-realname']).toEqual([{ user_id: 5, real_name: '김민준' }]);
    expect(sent['/sp_payments/create']).toEqual([{ user_id: 5, name: '김민준', amount: 1000 }]);
    expect(screen.getByText('김민준0427')).toBeInTheDocument();
    expect(screen.getByText('000-0000-0000')).toBeInTheDocument();
    expect(await screen.findByRole('img', { name: t.qrAlt('데모은행', '000-0000-0000') })).toHaveAttribute(
      'src',
      expect.stringMatching(/^data:image\/svg\+xml/),
    );

    await user.click(screen.getByRole('button', { name: t.sent }));
    expect(await screen.findByRole('heading', { name: t.checkingTitle })).toBeInTheDocument();
    expect(screen.getByRole('timer', { name: t.secondsLeftLabel(60) })).toBeInTheDocument();
    await act(() => vi.advanceTimersByTimeAsync(3000));
    expect(screen.getByRole('timer', { name: t.secondsLeftLabel(57) })).toBeInTheDocument();

    state.status = 'paid';
    await act(() => vi.advanceTimersByTimeAsync(1000));
    const paid = await screen.findByRole('alertdialog', { name: t.paidTitle });
    await user.click(within(paid).getByRole('button', { name: t.toWordset }));
    await waitFor(() => {
      expect(router.state.location.pathname).toBe('/wordset');
    });
    expect(router.state.location.search).toBe('?payment=7');
  });

  it('shows the expired screen after 60 seconds without a deposit, and goes back to the start', async () => {
    const { user } = setup();
    await user.click(await screen.findByRole('button', { name: t.buy }));
    await user.click(await screen.findByRole('button', { name: t.sent }));
    expect(await screen.findByRole('heading', { name: t.checkingTitle })).toBeInTheDocument();
    await act(() => vi.advanceTimersByTimeAsync(59_000));
    expect(screen.getByRole('heading', { name: t.checkingTitle })).toBeInTheDocument();
    await act(() => vi.advanceTimersByTimeAsync(1_500));
    expect(await screen.findByRole('heading', { name: t.expiredTitle })).toBeInTheDocument();
    expect(screen.getByText(t.expiredText)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: t.backToIdle }));
    expect(await screen.findByRole('button', { name: t.buy })).toBeInTheDocument();
  });

  it('lists the payments and sets: a late confirmation leads to the form, a rejection tells why', async () => {
    state.payments = [
      { id: 9, depositor: '김민준1111', amount: 1000, status: 'paid', used: false, createdAt: '2026-11-22T12:00:00Z', expiresAt: '2026-11-23T12:00:00Z' },
      { id: 8, depositor: '김민준2222', amount: 1000, status: 'expired', used: false, createdAt: '2026-11-21T12:00:00Z', expiresAt: '2026-11-22T12:00:00Z' },
    ];
    state.wordsets = [{ id: 2, words: ['바다', '노을', '한강', '별'], status: 'rejected', reason: '이미 있는 단어예요', createdAt: '2026-11-21T12:00:00Z' }];
    setup();
    const payments = await screen.findByRole('list', { name: t.paymentsTitle });
    expect(within(payments).getByText(t.paymentStatus.paid)).toBeInTheDocument();
    expect(within(payments).getByText(t.paymentStatus.expired)).toBeInTheDocument();
    expect(within(payments).getByRole('link', { name: t.writeWords })).toHaveAttribute('href', '/wordset?payment=9');
    const sets = await screen.findByRole('list', { name: t.setsTitle });
    expect(within(sets).getByText(t.setStatus.rejected)).toBeInTheDocument();
    expect(within(sets).getByText(t.rejectReason('이미 있는 단어예요'))).toBeInTheDocument();
    expect(within(sets).getByText(/환불을 준비하고/)).toBeInTheDocument();
  });

  it('on a phone shows the account and the memo first, and opens a banking app only when asked', async () => {
    vi.spyOn(navigator, 'userAgent', 'get').mockReturnValue('Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) Mobile/15E148');
    const { user } = setup();
    await user.click(await screen.findByRole('button', { name: t.buy }));
    expect(await screen.findByRole('heading', { name: t.pendingTitle })).toBeInTheDocument();
    expect(screen.getByText(t.memoFirst)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: `${t.depositorShort} ${t.copy}` })).toBeInTheDocument();
    // Long past the moment an app used to open by itself: still here, nothing checked yet.
    await act(() => vi.advanceTimersByTimeAsync(5000));
    expect(screen.getByRole('heading', { name: t.pendingTitle })).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: t.checkingTitle })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: t.openBankApp })).toBeInTheDocument();
  });

  it('offers to write the words of a confirmed payment before paying again', async () => {
    state.payments = [{ id: 9, depositor: '김민준0427', amount: 1000, status: 'paid', used: false, createdAt: '2026-11-25T12:00:00Z', expiresAt: '2026-11-26T12:00:00Z' }];
    setup();
    expect(await screen.findByText(t.unusedTitle)).toBeInTheDocument();
    expect(screen.getAllByRole('link', { name: t.toWordset })[0]).toHaveAttribute('href', '/wordset?payment=9');
    expect(screen.getByRole('button', { name: t.buyAnother })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: t.buy })).not.toBeInTheDocument();
  });
});

