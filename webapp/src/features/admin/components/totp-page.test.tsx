import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi, type Mock } from 'vitest';
import { koAdmin } from '@/i18n/ko-admin';
import { jsonResponse, renderRoute } from '@/test/render';
import { TotpPage } from './totp-page';

let fetchMock: Mock<(request: Request) => Promise<Response>>;

beforeEach(() => {
  fetchMock = vi.fn<(request: Request) => Promise<Response>>();
  vi.stubGlobal('fetch', fetchMock);
});

afterEach(() => {
  vi.unstubAllGlobals();
});

const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const QR = '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="200"><rect width="200" height="200"/></svg>';

function serve(me: { secondFactor: boolean; totpEnrolled: boolean }, totp: () => Response = () => jsonResponse({ success: true, message: '인증 앱을 등록했어요.' })) {
  const state = { ...me };
  const paths: string[] = [];
  const bodies: unknown[] = [];
  fetchMock.mockImplementation(async (request) => {
    const path = new URL(request.url).pathname;
    paths.push(path);
    switch (path) {
      case '/api/admin/me':
        return jsonResponse({ username: 'mina', expiresAt: '2026-11-23T12:30:00Z', ...state });
      case '/api/admin/totp/enrollment':
        return jsonResponse({ secret: SECRET, otpauthUri: `otpauth://totp/Telepathy:mina?secret=${SECRET}&issuer=Telepathy`, qrSvg: QR });
      case '/api/admin/totp': {
        bodies.push(await request.json());
        const answer = totp();
        if (answer.ok) Object.assign(state, { secondFactor: true, totpEnrolled: true });
        return answer;
      }
      default:
        return jsonResponse({ success: false, code: 'NOT_FOUND', message: '없는 주소예요.' }, 404);
    }
  });
  return { paths, bodies };
}

function setup() {
  const user = userEvent.setup();
  const view = renderRoute(<TotpPage />, { path: '/admin/totp', extraPaths: ['/admin', '/admin/dashboard'] });
  return { user, ...view };
}

describe('TotpPage', () => {
  it('enrols: the QR code as an SVG data URL, the secret by fours, then the code', async () => {
    const { paths, bodies } = serve({ secondFactor: false, totpEnrolled: false });
    const { user, router } = setup();
    const qr = await screen.findByRole('img', { name: koAdmin.totp.qrAlt });
    expect(qr.getAttribute('src')).toBe(`data:image/svg+xml;base64,${btoa(QR)}`);
    expect(screen.getByTestId('totp-secret')).toHaveTextContent('JBSW Y3DP EHPK 3PXP JBSW Y3DP EHPK 3PXP');
    const code = screen.getByLabelText(koAdmin.totp.code);
    expect(code).toHaveAttribute('autocomplete', 'one-time-code');
    expect(code).toHaveAttribute('inputmode', 'numeric');
    await user.type(code, '12a3 456789');
    expect(code).toHaveValue('123456');
    await user.click(screen.getByRole('button', { name: koAdmin.totp.submit }));
    await waitFor(() => {
      expect(router.state.location.pathname).toBe('/admin/dashboard');
    });
    expect(bodies).toEqual([{ code: '123456' }]);
    expect(paths.filter((path) => path === '/api/admin/totp/enrollment')).toHaveLength(1);
  });

  it('asks an enrolled operator for the code only', async () => {
    const { paths } = serve({ secondFactor: false, totpEnrolled: true });
    setup();
    expect(await screen.findByRole('heading', { name: koAdmin.totp.verifyTitle })).toBeInTheDocument();
    expect(screen.queryByRole('img', { name: koAdmin.totp.qrAlt })).not.toBeInTheDocument();
    expect(paths).not.toContain('/api/admin/totp/enrollment');
  });

  it('refuses fewer than six digits, and shows a wrong code’s message', async () => {
    const { bodies } = serve({ secondFactor: false, totpEnrolled: true }, () =>
      jsonResponse({ success: false, code: 'TOTP_INVALID', message: '인증 코드가 올바르지 않아요. 인증 앱의 6자리 코드를 입력해주세요.' }, 401),
    );
    const { user, router } = setup();
    const code = await screen.findByLabelText(koAdmin.totp.code);
    await user.type(code, '12345');
    await user.click(screen.getByRole('button', { name: koAdmin.totp.submit }));
    expect(screen.getByText(koAdmin.totp.codeRequired)).toBeInTheDocument();
    expect(bodies).toHaveLength(0);
    await user.type(code, '6');
    await user.click(screen.getByRole('button', { name: koAdmin.totp.submit }));
    expect(await screen.findByText('인증 코드가 올바르지 않아요. 인증 앱의 6자리 코드를 입력해주세요.')).toBeInTheDocument();
    expect(code).toHaveValue('');
    expect(router.state.location.pathname).toBe('/admin/totp');
  });

  it('sends a visitor without a password session to /admin', async () => {
    fetchMock.mockResolvedValue(jsonResponse({ success: false, code: 'OPERATOR_ONLY', message: '운영자 로그인이 필요해요.' }, 401));
    const { router } = setup();
    await waitFor(() => {
      expect(router.state.location.pathname).toBe('/admin');
    });
  });

  it('sends an operator past the second factor on to the dashboard', async () => {
    serve({ secondFactor: true, totpEnrolled: true });
    const { router } = setup();
    await waitFor(() => {
      expect(router.state.location.pathname).toBe('/admin/dashboard');
    });
  });
});
