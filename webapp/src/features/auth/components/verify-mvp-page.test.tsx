import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi, type Mock } from 'vitest';
import { ko } from '@/i18n/ko';
import { jsonResponse, renderRoute } from '@/test/render';
import { clearRegistrationDraft, saveRegistrationDraft, saveVerifyForm } from '../hooks/registration-draft';
import { VerifyMvpPage } from './verify-mvp-page';

const requiredOnly = { service: true, privacy: true, youth: true, improve: false, alarm: false };

let fetchMock: Mock<(request: Request) => Promise<Response>>;

beforeEach(() => {
  fetchMock = vi.fn<(request: Request) => Promise<Response>>();
  vi.stubGlobal('fetch', fetchMock);
});

afterEach(() => {
  vi.unstubAllGlobals();
  clearRegistrationDraft();
});

function setup() {
  const user = userEvent.setup();
  const view = renderRoute(<VerifyMvpPage />, { path: '/verify-mvp', extraPaths: ['/register', '/main'] });
  return { user, ...view };
}

describe('VerifyMvpPage', () => {
  it('sends a visitor without a draft back to /register', async () => {
    const { router } = setup();
    await waitFor(() => {
      expect(router.state.location.pathname).toBe('/register');
    });
  });

  it('asks for the phone number before sending', async () => {
    saveRegistrationDraft({ username: 'alice_01', password: 'abcdefg1', terms: requiredOnly });
    const { user } = setup();
    await user.type(screen.getByLabelText(ko.verify.birthdate), '20000101');
    await user.click(screen.getByRole('radio', { name: ko.verify.female }));
    await user.click(screen.getByRole('button', { name: ko.verify.sendCode }));
    expect(await screen.findByText(ko.validation.PHONE_REQUIRED)).toBeInTheDocument();
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('shows the phone number grouped as it is typed, and sends its digits', async () => {
    saveRegistrationDraft({ username: 'alice_01', password: 'abcdefg1', terms: requiredOnly });
    fetchMock.mockImplementation(() => Promise.resolve(jsonResponse({ success: true, message: '인증번호가 전송되었어요.' })));
    const { user } = setup();
    const phone = screen.getByLabelText(ko.verify.phone);
    await user.type(phone, '0101234');
    expect(phone).toHaveValue('010-1234');
    await user.type(phone, '5678');
    expect(phone).toHaveValue('010-1234-5678');
    await user.type(screen.getByLabelText(ko.verify.birthdate), '20000101');
    await user.click(screen.getByRole('radio', { name: ko.verify.female }));
    await user.click(screen.getByRole('button', { name: ko.verify.sendCode }));
    // The line after the send is the app's, the same one a reload shows, not the server's.
    expect(await screen.findByText('010-1234-5678로 인증번호를 보냈어요.')).toBeInTheDocument();
    expect(screen.queryByText('인증번호가 전송되었어요.')).not.toBeInTheDocument();
    expect(await fetchMock.mock.calls[0]?.[0].json()).toEqual({ phone: '01012345678', birthdate: '2000-01-01' });
  });

  it('keeps only digits in the birthdate, at most 8', async () => {
    saveRegistrationDraft({ username: 'alice_01', password: 'abcdefg1', terms: requiredOnly });
    const { user } = setup();
    const birthdate = screen.getByLabelText(ko.verify.birthdate);
    await user.type(birthdate, '2000-01-01x9');
    expect(birthdate).toHaveValue('20000101');
  });

  it('stops saying the code was sent once it expired', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout', 'Date'], shouldAdvanceTime: true });
    try {
      saveRegistrationDraft({ username: 'alice_01', password: 'abcdefg1', terms: requiredOnly });
      fetchMock.mockImplementation(() => Promise.resolve(jsonResponse({ success: true, message: '인증번호가 전송되었어요.' })));
      const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
      renderRoute(<VerifyMvpPage />, { path: '/verify-mvp', extraPaths: ['/register', '/main'] });
      await user.type(screen.getByLabelText(ko.verify.birthdate), '20000101');
      await user.click(screen.getByRole('radio', { name: ko.verify.female }));
      await user.type(screen.getByLabelText(ko.verify.phone), '010-1234-5678');
      await user.click(screen.getByRole('button', { name: ko.verify.sendCode }));
      expect(await screen.findByText(ko.verify.codeSentTo('010-1234-5678'))).toBeInTheDocument();
      await act(async () => {
        await vi.advanceTimersByTimeAsync(181_000);
      });
      expect(screen.getByText(ko.codeField.expired)).toBeInTheDocument();
      expect(screen.queryByText(ko.verify.codeSentTo('010-1234-5678'))).not.toBeInTheDocument();
    } finally {
      vi.useRealTimers();
    }
  });

  it('shows the code input only after a successful send, then registers with the alarm consent and goes to /main', async () => {
    saveRegistrationDraft({ username: 'alice_01', password: 'abcdefg1', terms: { ...requiredOnly, alarm: true } });
    const bodies: Record<string, unknown> = {};
    fetchMock.mockImplementation(async (request) => {
      const path = new URL(request.url).pathname;
      if (request.method === 'POST') bodies[path] = await request.json();
      switch (path) {
        case '/api/verify-mvp/send':
        case '/api/verify-mvp/check':
        case '/api/register':
          return jsonResponse({ success: true, message: '완료' });
        case '/api/nickname/profile':
          return jsonResponse({ success: true, user_id: 1, id: 1, userId: 1, username: 'alice_01' });
        default:
          return jsonResponse({ loggedIn: true });
      }
    });
    const { user, router } = setup();
    expect(screen.queryByLabelText(ko.codeField.label)).not.toBeInTheDocument();
    await user.type(screen.getByLabelText(ko.verify.birthdate), '20000101');
    await user.click(screen.getByRole('radio', { name: ko.verify.male }));
    await user.type(screen.getByLabelText(ko.verify.phone), '010-1234-5678');
    expect(screen.queryByLabelText(ko.codeField.label)).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: ko.verify.sendCode }));
    const code = await screen.findByLabelText(ko.codeField.label);
    expect(screen.getByRole('timer')).toHaveTextContent('03:00');
    // Another code can be asked for only once the cooldown is over; the button says when.
    expect(screen.getByRole('button', { name: ko.verify.resendIn(60) })).toBeDisabled();
    await user.type(code, '123456');
    await user.click(screen.getByRole('button', { name: ko.verify.submit }));
    await waitFor(() => {
      expect(router.state.location.pathname).toBe('/main');
    });
    expect(bodies['/api/verify-mvp/send']).toEqual({ phone: '01012345678', birthdate: '2000-01-01' });
    expect(bodies['/api/verify-mvp/check']).toEqual({ phone: '01012345678', code: '123456' });
    expect(bodies['/api/register']).toEqual({
      username: 'alice_01',
      password: 'abcdefg1',
      phone: '01012345678',
      gender: '남성',
      birthdate: '2000-01-01',
      service: true,
      privacy: true,
      youth: true,
      improve: false,
      alarm: true,
    });
    expect(localStorage.getItem('needNicknameSetup')).toBe('true');
    expect(localStorage.getItem('username')).toBe('alice_01');
    // The account exists: the password leaves the tab.
    expect(sessionStorage.getItem('registrationDraft')).toBeNull();
  });

  it('after a reload, shows what was entered and still awaits the code sent, its countdown going on', () => {
    saveRegistrationDraft({ username: 'alice_01', password: 'abcdefg1', terms: requiredOnly });
    saveVerifyForm({ birthdate: '20000101', gender: '여성', phone: '01012345678', sentTo: '01012345678', sentAt: Date.now() - 30_000 });
    setup();
    expect(screen.getByLabelText(ko.verify.birthdate)).toHaveValue('20000101');
    expect(screen.getByRole('radio', { name: ko.verify.female })).toBeChecked();
    expect(screen.getByLabelText(ko.verify.phone)).toHaveValue('010-1234-5678');
    // The same line as right after the send, the number as people read it.
    expect(screen.getByText('010-1234-5678로 인증번호를 보냈어요.')).toBeInTheDocument();
    expect(screen.getByLabelText(ko.codeField.label)).toBeInTheDocument();
    expect(screen.getByRole('timer')).toHaveTextContent('02:30');
    expect(screen.getByRole('button', { name: ko.verify.resendIn(30) })).toBeDisabled();
  });

  it("shows the server's message when sending fails, and no code input", async () => {
    saveRegistrationDraft({ username: 'alice_01', password: 'abcdefg1', terms: requiredOnly });
    fetchMock.mockResolvedValue(jsonResponse({ success: false, code: 'SMS_COOLDOWN', message: '잠시 후 다시 요청해주세요.' }, 429));
    const { user } = setup();
    await user.type(screen.getByLabelText(ko.verify.birthdate), '20000101');
    await user.click(screen.getByRole('radio', { name: ko.verify.female }));
    await user.type(screen.getByLabelText(ko.verify.phone), '01012345678');
    await user.click(screen.getByRole('button', { name: ko.verify.sendCode }));
    expect(await screen.findByText('잠시 후 다시 요청해주세요.')).toBeInTheDocument();
    expect(screen.queryByLabelText(ko.codeField.label)).not.toBeInTheDocument();
  });

  it('shows the network message when the server cannot be reached', async () => {
    saveRegistrationDraft({ username: 'alice_01', password: 'abcdefg1', terms: requiredOnly });
    fetchMock.mockRejectedValue(new TypeError('Failed to fetch'));
    const { user } = setup();
    await user.type(screen.getByLabelText(ko.verify.birthdate), '20000101');
    await user.click(screen.getByRole('radio', { name: ko.verify.female }));
    await user.type(screen.getByLabelText(ko.verify.phone), '01012345678');
    await user.click(screen.getByRole('button', { name: ko.verify.sendCode }));
    expect(await screen.findByText(ko.verify.requestFailed)).toBeInTheDocument();
  });

  it('takes a birthdate pasted with dashes whole', async () => {
    saveRegistrationDraft({ username: 'alice_01', password: 'abcdefg1', terms: requiredOnly });
    const { user } = setup();
    const birthdate = screen.getByLabelText(ko.verify.birthdate);
    await user.click(birthdate);
    await user.paste('2015-01-01');
    expect(birthdate).toHaveValue('20150101');
  });
});
