import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi, type Mock } from 'vitest';
import { ko } from '@/i18n/ko';
import { jsonResponse, renderRoute } from '@/test/render';
import { readRegistrationDraft, saveRegistrationDraft } from '../hooks/registration-draft';
import { LoginPage } from './login-page';

const restriction = {
  kind: 'suspend',
  reason: '욕설',
  until: '2026-11-30T11:05:00+00:00',
  message: '운영정책 위반으로 2026년 11월 30일 20:05까지 이용이 정지되었어요. 사유: 욕설',
};

let fetchMock: Mock<(request: Request) => Promise<Response>>;

function serve(login: () => Response, business: Record<string, unknown> = { email: 'help@telepathy.kr' }) {
  fetchMock.mockImplementation((request) => {
    const path = new URL(request.url).pathname;
    if (path === '/api/auth/login') return Promise.resolve(login());
    if (path === '/api/app-config') return Promise.resolve(jsonResponse({ demo: false, business }));
    return Promise.resolve(jsonResponse({ loggedIn: false }));
  });
}

beforeEach(() => {
  fetchMock = vi.fn<(request: Request) => Promise<Response>>();
  vi.stubGlobal('fetch', fetchMock);
});

afterEach(() => {
  vi.unstubAllGlobals();
});

async function logIn() {
  const user = userEvent.setup();
  const view = renderRoute(<LoginPage />, { path: '/login', extraPaths: ['/main'] });
  await user.type(screen.getByLabelText(ko.login.username), 'alice_01');
  await user.type(screen.getByLabelText(ko.login.password), 'abcdefg1');
  await user.click(screen.getByRole('button', { name: ko.login.submit }));
  return { user, ...view };
}

describe('LoginPage', () => {
  it('ends a sign-up left for it: its password leaves the tab', () => {
    serve(() => jsonResponse({ success: true }));
    saveRegistrationDraft({ username: 'alice_01', password: 'abcdefg1', terms: { service: true, privacy: true, youth: true, improve: false, alarm: false } });
    renderRoute(<LoginPage />, { path: '/login' });
    expect(readRegistrationDraft()).toBeNull();
    expect(sessionStorage.getItem('registrationDraft')).toBeNull();
  });

  it('shows a restricted account why and until when, on the page, with where to appeal', async () => {
    serve(() => jsonResponse({ success: false, code: 'ACCOUNT_RESTRICTED', message: restriction.message, restriction }, 403));
    const { router } = await logIn();
    const notice = await screen.findByRole('alert');
    expect(notice).toHaveTextContent(ko.restricted.loginTitle);
    expect(notice).toHaveTextContent(restriction.message);
    await waitFor(() => {
      expect(notice).toHaveTextContent(ko.restricted.appeal('help@telepathy.kr'));
    });
    // Not the ordinary failure dialog, and still on /login.
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
  });

  it('leaves the appeal out when no email is configured', async () => {
    serve(() => jsonResponse({ success: false, code: 'ACCOUNT_RESTRICTED', message: restriction.message, restriction }, 403), {});
    await logIn();
    const notice = await screen.findByRole('alert');
    expect(notice).toHaveTextContent(restriction.message);
    expect(notice).not.toHaveTextContent('이의가 있다면');
  });

  it('keeps the dialog for a wrong password', async () => {
    serve(() => jsonResponse({ success: false, code: 'LOGIN_FAILED', message: '아이디 또는 비밀번호가 올바르지 않아요.' }, 401));
    await logIn();
    const dialog = await screen.findByRole('alertdialog', { name: ko.login.failedTitle });
    expect(dialog).toHaveTextContent('아이디 또는 비밀번호가 올바르지 않아요.');
    expect(screen.queryByText(ko.restricted.loginTitle)).not.toBeInTheDocument();
  });
});
