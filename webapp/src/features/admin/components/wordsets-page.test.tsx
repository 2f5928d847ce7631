import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi, type Mock } from 'vitest';
import { koAdmin } from '@/i18n/ko-admin';
import { jsonResponse, renderRoute } from '@/test/render';
import { WordsetsPage } from './wordsets-page';

const t = koAdmin.wordsets;

const waiting = {
  id: 4,
  userId: 5,
  username: 'alice',
  nickname: '앨리스',
  words: ['바다', '노을', '한강', '아이스크림'],
  status: 'pending',
  amount: 1000,
  createdAt: '2026-11-22T12:00:00Z',
  dueAt: '2026-11-23T12:00:00Z',
  overdue: false,
  refundDue: false,
};

let fetchMock: Mock<(request: Request) => Promise<Response>>;
let posted: { path: string; body: unknown }[];

beforeEach(() => {
  posted = [];
  fetchMock = vi.fn(async (request: Request) => {
    const path = new URL(request.url).pathname.replace(/^\/api/, '');
    if (request.method === 'POST') {
      posted.push({ path, body: await request.json().catch(() => null) });
      return jsonResponse({ success: true, message: 'ok' });
    }
    if (path === '/admin/wordsets') return jsonResponse({ wordsets: posted.length > 0 ? [] : [waiting] });
    if (path === '/admin/wordsets/4')
      return jsonResponse({ wordset: waiting, refund: { bank: '카카오뱅크', account: '3333012345678', holder: '김민준', amount: 1000 } });
    return jsonResponse({ success: false, code: 'NOT_FOUND', message: 'not here' }, 404);
  });
  vi.stubGlobal('fetch', fetchMock);
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('WordsetsPage', () => {
  it('shows the refund account only when asked, and approves', async () => {
    const user = userEvent.setup();
    renderRoute(<WordsetsPage />, { path: '/admin/wordsets' });
    const list = await screen.findByRole('list', { name: t.pending });
    expect(within(list).getByText('아이스크림')).toBeInTheDocument();
    expect(screen.queryByText(/3333012345678/)).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: t.showRefund }));
    expect(await screen.findByText(t.refundLine('카카오뱅크', '3333012345678', '김민준'))).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: t.approve }));
    await waitFor(() => {
      expect(posted).toEqual([{ path: '/admin/wordsets/4/approve', body: null }]);
    });
    expect(await screen.findByText(t.emptyPending)).toBeInTheDocument();
  });

  it('rejects with the reason the user reads', async () => {
    const user = userEvent.setup();
    renderRoute(<WordsetsPage />, { path: '/admin/wordsets' });
    await user.click(await screen.findByRole('button', { name: t.reject }));
    const dialog = await screen.findByRole('dialog', { name: t.rejectTitle });
    await user.type(within(dialog).getByLabelText(t.rejectReason), '이미 있는 주제와 겹쳐요');
    await user.click(within(dialog).getByRole('button', { name: t.rejectConfirm }));
    await waitFor(() => {
      expect(posted).toEqual([{ path: '/admin/wordsets/4/reject', body: { reason: '이미 있는 주제와 겹쳐요' } }]);
    });
  });
});
