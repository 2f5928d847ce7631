import { useEffect } from 'react';
import { Link, Navigate, NavLink, Outlet, useNavigate } from 'react-router';
import { ApiError } from '@/api/outcome';
import { BrandMark } from '@/components/brand';
import { Button } from '@/components/button';
import { koAdmin } from '@/i18n/ko-admin';
import { useAdminLogout } from '../api/logout';
import { useOperator, type OperatorMe } from '../api/me';
import { onSessionLost, reentryPath } from '../api/session';
import { useClearConsoleCache } from '../hooks/use-clear-console-cache';
import { toastSessionLost } from '../lib/session-toast';
import { SessionRedirect } from './session-redirect';
import { ErrorState, LoadingState } from './states';

const sections = [
  { to: '/admin/dashboard', label: koAdmin.layout.dashboard },
  { to: '/admin/reports', label: koAdmin.layout.reports },
  { to: '/admin/users', label: koAdmin.layout.users },
  { to: '/admin/comments', label: koAdmin.layout.comments },
  { to: '/admin/megaphones', label: koAdmin.layout.megaphones },
  { to: '/admin/transfers', label: koAdmin.layout.transfers },
  { to: '/admin/wordsets', label: koAdmin.layout.wordsets },
  { to: '/admin/audit', label: koAdmin.layout.audit },
] as const;

function TopBar({ operator }: { operator: OperatorMe }) {
  const navigate = useNavigate();
  const clear = useClearConsoleCache();
  const { trigger, isMutating } = useAdminLogout();

  async function logout() {
    await trigger();
    await clear();
    void navigate('/admin', { replace: true });
  }

  return (
    <header className="console-bar">
      <div className="console-bar__inner">
        <Link to="/admin/dashboard" className="console-bar__brand">
          <BrandMark size={32} />
          <span>{koAdmin.app.title}</span>
        </Link>
        <nav className="console-nav" aria-label={koAdmin.layout.nav}>
          {sections.map((section) => (
            <NavLink key={section.to} to={section.to} className="console-nav__link">
              {section.label}
            </NavLink>
          ))}
        </nav>
        <div className="console-bar__operator">
          <span className="console-bar__name">
            <span className="visually-hidden">{koAdmin.layout.operator} </span>
            {operator.username}
          </span>
          <Button variant="subtle" size="sm" loading={isMutating} onClick={() => void logout()}>
            {isMutating ? koAdmin.layout.loggingOut : koAdmin.layout.logout}
          </Button>
        </div>
      </div>
    </header>
  );
}

/**
 * Every console page: the guard and the chrome. The guard asks the server who the operator is
 * (`/admin/me`): no operator session sends the visitor to /admin, a session short of its second
 * factor to /admin/totp. Later, any console call answered 401 does the same, with a toast.
 */
export function ConsoleLayout() {
  const navigate = useNavigate();
  const clear = useClearConsoleCache();
  const { data: operator, error, mutate } = useOperator();

  useEffect(
    () =>
      onSessionLost((code) => {
        toastSessionLost();
        void clear();
        void navigate(reentryPath(code), { replace: true });
      }),
    [clear, navigate],
  );

  if (error instanceof ApiError && error.status === 401) return <SessionRedirect to={reentryPath(error.code)} />;
  if (error) {
    return (
      <div className="console">
        <ErrorState error={error} onRetry={() => void mutate()} />
      </div>
    );
  }
  if (!operator) {
    return (
      <div className="console">
        <LoadingState />
      </div>
    );
  }
  if (!operator.secondFactor) return <Navigate to="/admin/totp" replace />;

  return (
    <div className="console">
      <TopBar operator={operator} />
      <main className="console-main">
        <Outlet />
      </main>
    </div>
  );
}
