import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi, type Mock } from 'vitest';
import { ko } from '@/i18n/ko';
import { jsonResponse, renderRoute } from '@/test/render';
import { NicknameModal } from './nickname-modal';

const refused = '부적절한 표현이 포함되어 있어요. 다른 표현을 사용해주세요.';
const taken = '이미 사용 중인 닉네임이에요. 다른 닉네임을 정해주세요.';
const available = '사용할 수 있는 닉네임이에요.';

let fetchMock: Mock<(request: Request) => Promise<Response>>;
let checked: string[];

beforeEach(() => {
  checked = [];
  fetchMock = vi.fn<(request: Request) => Promise<Response>>(async (request) => {
    const path = new URL(request.url).pathname;
    if (path === '/api/nickname/check') {
      const { nickname } = (await request.json()) as { nickname: string };
      checked.push(nickname);
      if (nickname.includes('시발')) return jsonResponse({ success: false, code: 'CONTENT_NOT_ALLOWED', message: refused }, 400);
      if (nickname.toLowerCase() === 'mooncat') return jsonResponse({ success: false, code: 'NICKNAME_TAKEN', message: taken }, 409);
      return jsonResponse({ success: true, message: available });
    }
    return jsonResponse({ success: true, userId: 1, id: 1, userID: 1, username: 'alice_01', nickname: null });
  });
  vi.stubGlobal('fetch', fetchMock);
});

afterEach(() => {
  vi.unstubAllGlobals();
});

function setup() {
  const user = userEvent.setup();
  renderRoute(<NicknameModal open />, { path: '/main' });
  return { user, input: screen.getByRole('textbox', { name: ko.nickname.label }) };
}

describe('NicknameModal', () => {
  it('shows the server refusal as the nickname is typed, before any save', async () => {
    const { user, input } = setup();
    await user.type(input, '시발놈');
    expect(await screen.findByText(refused)).toBeInTheDocument();
    expect(checked.at(-1)).toBe('시발놈');
    await user.click(screen.getByRole('button', { name: ko.nickname.next }));
    expect(await screen.findByText(refused)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: ko.nickname.submit })).not.toBeInTheDocument();
  });

  it('does not ask the server about a nickname the local rules refuse', async () => {
    const { user, input } = setup();
    await user.type(input, '달 빛!');
    await user.click(screen.getByRole('button', { name: ko.nickname.next }));
    expect(await screen.findByText(ko.validation.NICKNAME_INVALID)).toBeInTheDocument();
    expect(checked).toEqual([]);
  });

  it('goes on to the confirmation when the server accepts', async () => {
    const { user, input } = setup();
    await user.type(input, ' 달빛7 ');
    await user.click(screen.getByRole('button', { name: ko.nickname.next }));
    await waitFor(() => {
      expect(screen.getByRole('button', { name: ko.nickname.submit })).toBeInTheDocument();
    });
    expect(checked).toContain('달빛7');
    expect(screen.getByText('‘달빛7’로 할까요?')).toBeInTheDocument();
  });

  it('asks with the particle the nickname takes', async () => {
    const { user, input } = setup();
    await user.type(input, '달빛');
    await user.click(screen.getByRole('button', { name: ko.nickname.next }));
    expect(await screen.findByText('‘달빛’으로 할까요?')).toBeInTheDocument();
  });

  it('says while typing whether another account has the nickname', async () => {
    const { user, input } = setup();
    await user.type(input, 'MoonCat');
    expect(await screen.findByText(taken)).toBeInTheDocument();
    await user.type(input, '7');
    expect(await screen.findByText(available)).toBeInTheDocument();
    expect(screen.queryByText(taken)).not.toBeInTheDocument();
  });

  it('can be closed when a nickname is being changed', async () => {
    const user = userEvent.setup();
    const onClose = vi.fn();
    renderRoute(<NicknameModal open onClose={onClose} />, { path: '/mypage' });
    expect(screen.getByRole('dialog', { name: ko.nickname.changeTitle })).toBeVisible();
    await user.keyboard('{Escape}');
    expect(onClose).toHaveBeenCalled();
  });
});
