import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi, type Mock } from 'vitest';
import { ko } from '@/i18n/ko';
import { jsonResponse, renderRoute } from '@/test/render';
import { clearRegistrationDraft, readRegistrationDraft, saveRegisterForm, saveTermsAgreement } from '../hooks/registration-draft';
import { RegisterPage } from './register-page';

let fetchMock: Mock<(request: Request) => Promise<Response>>;

const requiredOnly = { service: true, privacy: true, youth: true, improve: false, alarm: false };

beforeEach(() => {
  fetchMock = vi.fn<(request: Request) => Promise<Response>>();
  vi.stubGlobal('fetch', fetchMock);
  clearRegistrationDraft();
  saveTermsAgreement(requiredOnly);
});

afterEach(() => {
  vi.unstubAllGlobals();
});

function storedText(storage: Storage): string {
  return Array.from({ length: storage.length }, (_, index) => {
    const key = storage.key(index) ?? '';
    return `${key}=${storage.getItem(key) ?? ''}`;
  }).join('\n');
}

function answerAvailability(isAvailable: boolean) {
  fetchMock.mockImplementation((request) => {
    expect(new URL(request.url).pathname).toBe('/api/auth/check-username');
    expect(request.credentials).toBe('include');
    return Promise.resolve(
      jsonResponse({ success: true, isAvailable, message: isAvailable ? '사용 가능' : '사용 중' }),
    );
  });
}

function setup(state?: unknown) {
  const user = userEvent.setup();
  const view = renderRoute(<RegisterPage />, { path: '/register', extraPaths: ['/verify-mvp'], state });
  const username = screen.getByLabelText(ko.register.username);
  const password = screen.getByLabelText(ko.register.password);
  const confirmation = screen.getByLabelText(ko.register.passwordConfirmation);
  const check = screen.getByRole('button', { name: ko.register.checkUsername });
  const submit = screen.getByRole('button', { name: ko.register.submit });
  return { user, ...view, username, password, confirmation, check, submit };
}

describe('RegisterPage availability', () => {
  it('asks for a username before checking', async () => {
    const { user, check } = setup();
    await user.click(check);
    expect(await screen.findByText(ko.validation.USERNAME_REQUIRED)).toBeInTheDocument();
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('shows an available username and sends it in the body', async () => {
    answerAvailability(true);
    const { user, username, check } = setup();
    await user.type(username, 'alice_01');
    await user.click(check);
    expect(await screen.findByText(ko.register.usernameAvailable)).toBeInTheDocument();
    const request = fetchMock.mock.calls[0]?.[0];
    expect(await request?.json()).toEqual({ username: 'alice_01' });
    expect(username).toHaveAccessibleDescription(`${ko.register.usernameHint} ${ko.register.usernameAvailable}`);
  });

  it('shows a taken username and refuses to sign up', async () => {
    answerAvailability(false);
    const { user, username, password, confirmation, check, submit, router } = setup();
    await user.type(username, 'alice_01');
    await user.click(check);
    expect(await screen.findByText(ko.register.usernameTaken)).toBeInTheDocument();
    await user.type(password, 'abcdefg1');
    await user.type(confirmation, 'abcdefg1');
    await user.click(submit);
    expect(await screen.findByRole('alertdialog')).toHaveTextContent(ko.register.usernameCheckRequired);
    expect(router.state.location.pathname).toBe('/register');
  });

  it('shows the connection failure when the server cannot be reached', async () => {
    fetchMock.mockRejectedValue(new TypeError('Failed to fetch'));
    const { user, username, check } = setup();
    await user.type(username, 'alice_01');
    await user.click(check);
    expect(await screen.findByText(ko.register.connectionFailed)).toBeInTheDocument();
  });

  it("shows the server's message when it refuses the check", async () => {
    fetchMock.mockResolvedValue(
      jsonResponse({ success: false, code: 'RATE_LIMITED', message: '잠시 후 다시 시도해주세요.' }, 429),
    );
    const { user, username, check } = setup();
    await user.type(username, 'alice_01');
    await user.click(check);
    expect(await screen.findByText('잠시 후 다시 시도해주세요.')).toBeInTheDocument();
  });

  it('resets availability when the username changes', async () => {
    answerAvailability(true);
    const { user, username, password, confirmation, check, submit, router } = setup();
    await user.type(username, 'alice_01');
    await user.click(check);
    expect(await screen.findByText(ko.register.usernameAvailable)).toBeInTheDocument();
    await user.type(username, 'x');
    expect(screen.queryByText(ko.register.usernameAvailable)).not.toBeInTheDocument();
    await user.type(password, 'abcdefg1');
    await user.type(confirmation, 'abcdefg1');
    await user.click(submit);
    expect(await screen.findByRole('alertdialog')).toHaveTextContent(ko.register.usernameCheckRequired);
    expect(router.state.location.pathname).toBe('/register');
  });

  it('states the password rule once, under the field', () => {
    const { password } = setup();
    expect(password).toHaveAccessibleDescription(ko.newPassword.rule);
    expect(password).not.toHaveAttribute('placeholder');
    expect(screen.getAllByText(ko.newPassword.rule)).toHaveLength(1);
  });

  it('validates the password before going on', async () => {
    answerAvailability(true);
    const { user, username, password, confirmation, check, submit } = setup();
    await user.type(username, 'alice_01');
    await user.click(check);
    await screen.findByText(ko.register.usernameAvailable);
    await user.type(password, 'abcdefgh');
    await user.type(confirmation, 'abcdefgh');
    await user.click(submit);
    expect(await screen.findByRole('alertdialog')).toHaveTextContent(ko.validation.PASSWORD_WEAK);
  });

  it('refuses a confirmation that differs under the field, before going on', async () => {
    answerAvailability(true);
    const { user, username, password, confirmation, check, submit, router } = setup();
    await user.type(username, 'alice_01');
    await user.click(check);
    await screen.findByText(ko.register.usernameAvailable);
    await user.type(password, 'abcdefg1');
    await user.type(confirmation, 'abcdefg2');
    // Said under the confirmation as it is typed, and again there on submit: no dialog.
    expect(confirmation).toHaveAccessibleDescription(ko.newPassword.mismatch);
    await user.click(submit);
    await waitFor(() => {
      expect(confirmation).toHaveAccessibleDescription(ko.validation.RESET_PASSWORD_MISMATCH);
    });
    expect(confirmation).toHaveFocus();
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/register');
  });

  it('asks for both fields', async () => {
    const { user, submit } = setup();
    await user.click(submit);
    expect(await screen.findByRole('alertdialog')).toHaveTextContent(ko.validation.FIELDS_REQUIRED);
  });

  it('goes to /verify-mvp with the credentials kept in this tab only, never in local storage', async () => {
    answerAvailability(true);
    const { user, username, password, confirmation, check, submit, router } = setup();
    await user.type(username, 'alice_01');
    await user.click(check);
    await screen.findByText(ko.register.usernameAvailable);
    await user.type(password, 'abcdefg1');
    await user.type(confirmation, 'abcdefg1');
    await user.click(submit);
    await waitFor(() => {
      expect(router.state.location.pathname).toBe('/verify-mvp');
    });
    expect(readRegistrationDraft()).toEqual({ username: 'alice_01', password: 'abcdefg1', terms: requiredOnly });
    expect(storedText(localStorage)).not.toContain('abcdefg1');
    expect(JSON.parse(sessionStorage.getItem('registrationDraft') ?? '{}')).toMatchObject({ register: { password: 'abcdefg1' } });
  });

  it('shows what was typed again after a reload or a way back, the check with it', () => {
    saveRegisterForm({ username: 'alice_01', password: 'abcdefg1', confirmation: 'abcdefg1', availableUsername: 'alice_01' });
    const { username, password, confirmation } = setup();
    expect(username).toHaveValue('alice_01');
    expect(password).toHaveValue('abcdefg1');
    expect(confirmation).toHaveValue('abcdefg1');
    expect(screen.getByText(ko.register.usernameAvailable)).toBeInTheDocument();
  });

  it('keeps every answer of the terms modal for the registration', async () => {
    const answers = { service: true, privacy: true, youth: true, improve: false, alarm: true };
    saveTermsAgreement(answers);
    answerAvailability(true);
    const { user, username, password, confirmation, check, submit, router } = setup();
    await user.type(username, 'alice_01');
    await user.click(check);
    await screen.findByText(ko.register.usernameAvailable);
    await user.type(password, 'abcdefg1');
    await user.type(confirmation, 'abcdefg1');
    await user.click(submit);
    await waitFor(() => {
      expect(router.state.location.pathname).toBe('/verify-mvp');
    });
    expect(readRegistrationDraft()?.terms).toEqual(answers);
  });

  it('asks for the terms first when they were not agreed to', async () => {
    clearRegistrationDraft();
    const { user } = setup();
    const dialog = await screen.findByRole('dialog', { name: ko.terms.modalTitle });
    expect(dialog).toBeVisible();
    await user.click(screen.getByRole('button', { name: ko.terms.next }));
    expect(screen.getByRole('alert')).toHaveTextContent(ko.terms.requiredWarning);
    await user.click(screen.getByRole('button', { name: ko.terms.agreeAll }));
    await user.click(screen.getByRole('button', { name: ko.terms.next }));
    await waitFor(() => {
      expect(screen.queryByRole('dialog', { name: ko.terms.modalTitle })).toBeNull();
    });
  });
});
