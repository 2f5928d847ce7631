import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { Toaster } from 'sonner';
import { SWRConfig } from 'swr';
import { afterEach, beforeEach, describe, expect, it, vi, type Mock } from 'vitest';
import { koAdmin } from '@/i18n/ko-admin';
import { jsonResponse } from '@/test/render';
import { ConsoleLayout } from './console-layout';
import { DashboardPage } from './dashboard-page';
import { ReportsPage } from './reports-page';

let fetchMock: Mock<(request: Request) => Promise<Response>>;

beforeEach(() => {
  fetchMock = vi.fn<(request: Request) => Promise<Response>>();
  vi.stubGlobal('fetch', fetchMock);
});

afterEach(() => {
  vi.unstubAllGlobals();
});

const operator = { username: 'mina', secondFactor: true, totpEnrolled: true, expiresAt: '2026-11-23T12:30:00Z' };
const dashboard = {
  usersOnline: 12,
  matchesToday: 340,
  openReports: 5,
  overdueReports: 2,
  bellDevices: 1250,
  lastBell: { evening: '2026-11-23', startedAt: '2026-11-23T11:00:00+00:00', finishedAt: '2026-11-23T11:00:04+00:00', sent: 1200, gone: 48, failed: 2 },
};

function answer(routes: Record<string, () => Response>) {
  fetchMock.mockImplementation((request) => {
    const path = new URL(request.url).pathname;
    const route = routes[path];
    return Promise.resolve(route ? route() : jsonResponse({ success: false, code: 'NOT_FOUND', message: '없는 주소예요.' }, 404));
  });
}

const operatorOnly = () => jsonResponse({ success: false, code: 'OPERATOR_ONLY', message: '운영자만 이용할 수 있어요.' }, 401);
const secondFactorRequired = () =>
  jsonResponse({ success: false, code: 'SECOND_FACTOR_REQUIRED', message: '2단계 인증을 완료해주세요.' }, 401);

/** The console at /admin/dashboard, with the login and second-factor pages as markers and the app's toaster. */
function setup() {
  const router = createMemoryRouter(
    [
      { path: '/admin', element: <p>at /admin</p> },
      { path: '/admin/totp', element: <p>at /admin/totp</p> },
      {
        element: <ConsoleLayout />,
        children: [
          { path: '/admin/dashboard', element: <DashboardPage /> },
          { path: '/admin/reports', element: <ReportsPage /> },
        ],
      },
    ],
    { initialEntries: ['/admin/dashboard'] },
  );
  render(
    <SWRConfig value={{ provider: () => new Map(), dedupingInterval: 0 }}>
      <RouterProvider router={router} />
      <Toaster />
    </SWRConfig>,
  );
  return router;
}

describe('ConsoleLayout', () => {
  it('shows the console to an operator past the second factor', async () => {
    answer({ '/api/admin/me': () => jsonResponse(operator), '/api/admin/dashboard': () => jsonResponse(dashboard) });
    const router = setup();
    expect(await screen.findByText('mina')).toBeInTheDocument();
    expect(screen.getByRole('navigation', { name: koAdmin.layout.nav })).toBeInTheDocument();
    expect(await screen.findByText('340건')).toBeInTheDocument();
    const overdue = screen.getByText(koAdmin.dashboard.overdueReports).closest('.console-stat');
    expect(overdue).toHaveClass('console-stat--warning');
    const bell = screen.getByText(koAdmin.dashboard.bell).closest('.console-stat');
    expect(bell).toHaveTextContent('8시 알림을 켠 기기1,250대');
    expect(bell).toHaveTextContent('2026년 11월 23일 (월) 1,200대에 보냈어요. 정리한 기기 48대 · 실패 2건');
    expect(router.state.location.pathname).toBe('/admin/dashboard');
  });

  it('sends a visitor without an operator session to /admin, saying why', async () => {
    answer({ '/api/admin/me': operatorOnly });
    const router = setup();
    await waitFor(() => {
      expect(router.state.location.pathname).toBe('/admin');
    });
    expect(await screen.findByText(koAdmin.app.sessionExpired)).toBeInTheDocument();
    expect(fetchMock.mock.calls.map(([request]) => new URL(request.url).pathname)).not.toContain('/api/admin/dashboard');
  });

  it('sends a session short of its second factor to /admin/totp', async () => {
    answer({ '/api/admin/me': () => jsonResponse({ ...operator, secondFactor: false }) });
    const router = setup();
    await waitFor(() => {
      expect(router.state.location.pathname).toBe('/admin/totp');
    });
  });

  it('goes back to the second factor when a console call answers SECOND_FACTOR_REQUIRED', async () => {
    answer({ '/api/admin/me': () => jsonResponse(operator), '/api/admin/dashboard': secondFactorRequired });
    const router = setup();
    await waitFor(() => {
      expect(router.state.location.pathname).toBe('/admin/totp');
    });
    expect(await screen.findByText(koAdmin.app.sessionExpired)).toBeInTheDocument();
  });

  it('goes back to the login when the session ends while the operator works', async () => {
    let ended = false;
    answer({
      '/api/admin/me': () => (ended ? operatorOnly() : jsonResponse(operator)),
      '/api/admin/dashboard': () => jsonResponse(dashboard),
      '/api/admin/reports': () => (ended ? operatorOnly() : jsonResponse({ reports: [] })),
    });
    const router = setup();
    expect(await screen.findByText('340건')).toBeInTheDocument();
    ended = true;
    const user = userEvent.setup();
    await user.click(screen.getByRole('link', { name: koAdmin.layout.reports }));
    await waitFor(() => {
      expect(router.state.location.pathname).toBe('/admin');
    });
    expect(await screen.findByText(koAdmin.app.sessionExpired)).toBeInTheDocument();
  });

  it('shows a retry, not a redirect, when the server cannot be reached', async () => {
    fetchMock.mockRejectedValue(new TypeError('Failed to fetch'));
    const router = setup();
    expect(await screen.findByText(koAdmin.app.networkFailed)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: koAdmin.app.retry })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/admin/dashboard');
  });
});
