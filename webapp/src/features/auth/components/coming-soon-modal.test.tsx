import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ko } from '@/i18n/ko';
import { jsonResponse, renderRoute } from '@/test/render';
import { ComingSoonModal } from './coming-soon-modal';

/** The server: `/server-time` answers `serverTime`, the board is empty and takes posts. */
function serve(serverTime: () => Promise<Response>) {
  const posted: unknown[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (request: Request) => {
      const path = new URL(request.url).pathname;
      if (path === '/api/server-time') return serverTime();
      if (request.method === 'POST') {
        posted.push(await request.json());
        return jsonResponse({
          success: true,
          message: '등록되었어요.',
          comment: { id: 1, nickname: '익명', username: 'guest_user', content: '기다려요', createdAt: '2026-11-23T10:00:00+00:00' },
        });
      }
      return jsonResponse(posted.length > 0 ? [{ id: 1, nickname: '익명', username: 'guest_user', content: '기다려요', createdAt: '2026-11-23T10:00:00+00:00' }] : []);
    }),
  );
  return posted;
}

function roundState(isOpen: boolean) {
  return jsonResponse({
    isOpen,
    round: 1,
    remaining: 20,
    words: [],
    serverTime: Date.now(),
    ...(isOpen ? {} : { nextOpenAt: new Date(Date.now() + 3_600_000).toISOString() }),
  });
}

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('ComingSoonModal', () => {
  it('greets a visitor in the closed hours, takes a guest comment, and closes on request', async () => {
    const posted = serve(() => Promise.resolve(roundState(false)));
    const user = userEvent.setup();
    renderRoute(<ComingSoonModal />);
    const dialog = await screen.findByRole('dialog', { name: ko.closed.title });
    expect(dialog).toHaveAccessibleDescription(ko.closed.description);
    expect(screen.getByRole('timer')).toHaveTextContent(/^0[01]:\d{2}:\d{2}$/);
    expect(screen.getByRole('button', { name: ko.app.close })).toHaveFocus();
    await user.type(screen.getByLabelText(ko.comments.label), ' 기다려요 {Enter}');
    await waitFor(() => {
      expect(posted).toEqual([{ content: '기다려요' }]);
    });
    expect(await screen.findByText('기다려요')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: ko.app.close }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('closes on Escape, wherever focus is in it', async () => {
    serve(() => Promise.resolve(roundState(false)));
    const user = userEvent.setup();
    renderRoute(<ComingSoonModal />);
    await screen.findByRole('dialog', { name: ko.closed.title });
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('closes on Escape typed in the comment field', async () => {
    serve(() => Promise.resolve(roundState(false)));
    const user = userEvent.setup();
    renderRoute(<ComingSoonModal />);
    await screen.findByRole('dialog', { name: ko.closed.title });
    await user.click(screen.getByLabelText(ko.comments.label));
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('stays away while the service is open', async () => {
    serve(() => Promise.resolve(roundState(true)));
    renderRoute(<ComingSoonModal />);
    await waitFor(() => {
      expect(vi.mocked(fetch)).toHaveBeenCalled();
    });
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it("goes by the clock when the server cannot be asked: in the afternoon it is closed", async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    // 15:00 in Seoul.
    vi.setSystemTime(new Date('2026-11-23T06:00:00Z'));
    serve(() => Promise.reject(new TypeError('Failed to fetch')));
    renderRoute(<ComingSoonModal />);
    expect(await screen.findByRole('dialog', { name: ko.closed.title })).toBeInTheDocument();
    expect(screen.getByRole('timer')).toHaveTextContent('05:00:00');
  });
});
