import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi, type Mock } from 'vitest';
import { ko } from '@/i18n/ko';
import { jsonResponse, renderRoute } from '@/test/render';
import { CommentBoard } from './comment-board';

interface Stored {
  id: number;
  nickname: string;
  username: string;
  content: string;
  createdAt: string;
}

let fetchMock: Mock<(request: Request) => Promise<Response>>;
let board: Stored[];
let posted: unknown[];

function comment(id: number, content: string): Stored {
  return { id, nickname: '익명', username: 'guest_user', content, createdAt: '2026-11-23T10:00:00+00:00' };
}

beforeEach(() => {
  board = [4, 3, 2, 1].map((n) => comment(n, `한마디 ${n}`));
  posted = [];
  fetchMock = vi.fn<(request: Request) => Promise<Response>>(async (request) => {
    if (request.method === 'POST') {
      const body = (await request.json()) as { content: string };
      posted.push(body);
      const created = comment(board.length + 1, body.content.trim());
      board = [created, ...board];
      return jsonResponse({ success: true, message: '댓글이 등록되었어요.', comment: created });
    }
    return jsonResponse(board);
  });
  vi.stubGlobal('fetch', fetchMock);
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('CommentBoard', () => {
  it('shows the newest three comments', async () => {
    renderRoute(<CommentBoard />);
    expect(await screen.findByText('한마디 4')).toBeInTheDocument();
    expect(screen.getByText('한마디 2')).toBeInTheDocument();
    expect(screen.queryByText('한마디 1')).not.toBeInTheDocument();
  });

  it('does not send blank text, and shows a posted comment at the top', async () => {
    const user = userEvent.setup();
    renderRoute(<CommentBoard />);
    await screen.findByText('한마디 4');
    const input = screen.getByLabelText(ko.comments.label);
    const submit = screen.getByRole('button', { name: ko.comments.submit });
    await user.type(input, '   ');
    expect(submit).toBeDisabled();
    await user.clear(input);
    await user.type(input, '오늘은 봄{Enter}');
    await waitFor(() => {
      expect(posted).toEqual([{ content: '오늘은 봄' }]);
    });
    expect(await screen.findByText('오늘은 봄')).toBeInTheDocument();
    expect(input).toHaveValue('');
    expect(screen.queryByText('한마디 2')).not.toBeInTheDocument();
  });

  it('shows the server refusal', async () => {
    fetchMock.mockImplementation((request) =>
      Promise.resolve(
        request.method === 'POST'
          ? jsonResponse({ success: false, code: 'CONTENT_NOT_ALLOWED', message: '부적절한 표현이 포함되어 있어요.' }, 400)
          : jsonResponse([]),
      ),
    );
    const user = userEvent.setup();
    renderRoute(<CommentBoard />);
    expect(await screen.findByText(ko.comments.empty)).toBeInTheDocument();
    await user.type(screen.getByLabelText(ko.comments.label), 'ㅅㅂ{Enter}');
    await waitFor(() => {
      expect(fetchMock.mock.calls.some(([r]) => r.method === 'POST')).toBe(true);
    });
    expect(screen.getByLabelText(ko.comments.label)).toHaveValue('ㅅㅂ');
  });
});
