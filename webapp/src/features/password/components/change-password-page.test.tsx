import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi, type Mock } from 'vitest';
import { ko } from '@/i18n/ko';
import { jsonResponse, renderRoute } from '@/test/render';
import { ChangePasswordPage } from './change-password-page';

let fetchMock: Mock<(request: Request) => Promise<Response>>;

beforeEach(() => {
  fetchMock = vi.fn<(request: Request) => Promise<Response>>();
  vi.stubGlobal('fetch', fetchMock);
});

afterEach(() => {
  vi.unstubAllGlobals();
});

function setup() {
  const user = userEvent.setup();
  const view = renderRoute(<ChangePasswordPage />, { path: '/changepassword', extraPaths: ['/main'] });
  return { user, ...view };
}

describe('ChangePasswordPage', () => {
  it('refuses a new password that differs from its confirmation, without asking the server', async () => {
    const { user } = setup();
    await user.type(screen.getByLabelText(ko.changePassword.currentPassword), 'old-pass1');
    await user.type(screen.getByLabelText(ko.newPassword.label), 'abcdefg1');
    await user.type(screen.getByLabelText(ko.newPassword.confirmation), 'abcdefg2');
    await user.click(screen.getByRole('button', { name: ko.changePassword.submit }));
    expect(await screen.findByText(ko.validation.NEW_PASSWORD_MISMATCH)).toBeInTheDocument();
    expect(fetchMock).not.toHaveBeenCalled();
    await user.type(screen.getByLabelText(ko.newPassword.label), 'x');
    expect(screen.queryByText(ko.validation.NEW_PASSWORD_MISMATCH)).not.toBeInTheDocument();
  });

  it('states the sign-up rule and holds a new password to it, without asking the server', async () => {
    const { user } = setup();
    const password = screen.getByLabelText(ko.newPassword.label);
    expect(password).toHaveAccessibleDescription(ko.newPassword.rule);
    await user.type(screen.getByLabelText(ko.changePassword.currentPassword), 'old-pass1');
    await user.type(password, 'abcdef');
    await user.type(screen.getByLabelText(ko.newPassword.confirmation), 'abcdef');
    await user.click(screen.getByRole('button', { name: ko.changePassword.submit }));
    await waitFor(() => {
      expect(screen.getByLabelText(ko.newPassword.confirmation)).toHaveAccessibleDescription(ko.validation.PASSWORD_WEAK);
    });
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('sends the current and the new password, then returns to /main', async () => {
    let body: unknown;
    fetchMock.mockImplementation(async (request) => {
      expect(new URL(request.url).pathname).toBe('/api/password/change');
      body = await request.json();
      return jsonResponse({ success: true, message: '변경되었습니다.' });
    });
    const { user, router } = setup();
    await user.type(screen.getByLabelText(ko.changePassword.currentPassword), 'old-pass1');
    await user.type(screen.getByLabelText(ko.newPassword.label), 'new-pass1');
    await user.type(screen.getByLabelText(ko.newPassword.confirmation), 'new-pass1');
    await user.click(screen.getByRole('button', { name: ko.changePassword.submit }));
    expect(await screen.findByText(ko.changePassword.success)).toBeInTheDocument();
    expect(body).toEqual({ currentPassword: 'old-pass1', newPassword: 'new-pass1' });
    await user.click(screen.getByRole('button', { name: ko.app.confirm }));
    await waitFor(() => {
      expect(router.state.location.pathname).toBe('/main');
    });
  });
});
