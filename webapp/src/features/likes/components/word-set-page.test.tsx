import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ko } from '@/i18n/ko';
import { renderRoute } from '@/test/render';
import { freshState, serve, type FakeState } from '../test/fake-server';
import { WordSetPage } from './word-set-page';

let state: FakeState;
const t = ko.wordset;
const v = ko.validation;

const paid = { id: 9, depositor: '김민준1111', amount: 1000, status: 'paid' as const, used: false, createdAt: '2026-11-22T12:00:00Z', expiresAt: '2026-11-23T12:00:00Z' };

beforeEach(() => {
  state = freshState();
});

afterEach(() => {
  vi.unstubAllGlobals();
});

function setup(path = '/wordset?payment=9') {
  const sent = serve(state);
  const user = userEvent.setup();
  const view = renderRoute(<WordSetPage />, { path: '/wordset', extraPaths: ['/likes', '/login'] });
  void view.router.navigate(path);
  return { sent, user, ...view };
}

describe('WordSetPage', () => {
  it('asks a guest to log in', async () => {
    state.loggedIn = false;
    setup();
    expect(await screen.findByText(ko.likes.loginTitle)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: ko.likes.loginButton })).toHaveAttribute('href', '/login');
  });

  it('sends a user without a paid transfer to /likes', async () => {
    state.payments = [{ ...paid, used: true }];
    setup();
    expect(await screen.findByText(t.noPaymentTitle)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: t.toLikes })).toHaveAttribute('href', '/likes');
  });

  it('keeps Hangul only, shows each rule, and refuses to save until all is valid', async () => {
    state.payments = [paid];
    const { user, sent } = setup();
    const first = await screen.findByLabelText(t.wordLabel(1));
    await user.type(first, 'ice크림1');
    expect(first).toHaveValue('크림');
    await user.clear(first);
    await user.type(first, '아이스크림케이크');
    expect(first).toHaveValue('아이스크림케');

    await user.click(screen.getByRole('button', { name: t.save }));
    const alert = await screen.findByRole('alertdialog', { name: t.invalidTitle });
    await user.click(within(alert).getByRole('button', { name: ko.app.confirm }));
    expect(sent['/sp_payments/update-refund']).toBeUndefined();
    expect(screen.getAllByText(v.WORDSET_WORDS_REQUIRED)).toHaveLength(3);
    expect(screen.getByText(v.REFUND_BANK_INVALID)).toBeInTheDocument();
    expect(screen.getByText(v.REFUND_ACCOUNT_INVALID)).toBeInTheDocument();

    await user.type(screen.getByLabelText(t.wordLabel(2)), '아이스크림케');
    expect(screen.getByText(v.WORDSET_WORDS_DUPLICATE)).toBeInTheDocument();
    await user.type(screen.getByLabelText(t.wordLabel(3)), 'ㅋㅋ');
    expect(screen.getByText(v.WORDSET_WORD_INVALID)).toBeInTheDocument();
    await user.selectOptions(screen.getByLabelText(t.bankLabel), t.bankOther);
    await user.type(screen.getByLabelText(t.bankCustomLabel), '국');
    expect(screen.getAllByText(v.REFUND_BANK_INVALID).length).toBeGreaterThan(0);
    await user.type(screen.getByLabelText(t.accountLabel), '12a');
    expect(screen.getByLabelText(t.accountLabel)).toHaveValue('12');
    expect(screen.getByRole('button', { name: t.save })).toHaveAttribute('aria-disabled', 'true');
  });

  it('saves the words with the payment, thanks, and goes to /likes', async () => {
    state.payments = [paid];
    const { user, sent, router } = setup();
    const words = ['바다', '노을', '한강', '별'];
    for (const [i, word] of words.entries()) {
      await user.type(await screen.findByLabelText(t.wordLabel(i + 1)), word);
    }
    await user.selectOptions(screen.getByLabelText(t.bankLabel), '카카오뱅크');
    await user.type(screen.getByLabelText(t.accountLabel), '3333-01-2345678');
    const save = screen.getByRole('button', { name: t.save });
    expect(save).not.toHaveAttribute('aria-disabled');
    await user.click(save);
    const thanks = await screen.findByRole('alertdialog', { name: t.thanksTitle });
    expect(thanks).toHaveTextContent('24시간 이내에 반영될 거예요');
    expect(sent['/sp_payments/update-refund']).toEqual([
      { user_id: 5, payment_id: 9, wordset: words, refund_bank: '카카오뱅크', refund_account: '3333012345678' },
    ]);
    await user.click(within(thanks).getByRole('button', { name: t.thanksConfirm }));
    await waitFor(() => {
      expect(router.state.location.pathname).toBe('/likes');
    });
  });

  it('shows the server refusal of an abusive word', async () => {
    state.payments = [paid];
    state.submitError = { status: 400, code: 'CONTENT_NOT_ALLOWED', message: '부적절한 표현이 포함되어 있어요. 다른 표현을 사용해주세요.' };
    const { user } = setup();
    for (const [i, word] of ['바다', '노을', '한강', '별'].entries()) {
      await user.type(await screen.findByLabelText(t.wordLabel(i + 1)), word);
    }
    await user.selectOptions(screen.getByLabelText(t.bankLabel), '국민');
    await user.type(screen.getByLabelText(t.accountLabel), '123456');
    await user.click(screen.getByRole('button', { name: t.save }));
    const failed = await screen.findByRole('alertdialog', { name: t.saveFailedTitle });
    expect(failed).toHaveTextContent(t.saveFailed('부적절한 표현이 포함되어 있어요. 다른 표현을 사용해주세요.'));
  });
});
