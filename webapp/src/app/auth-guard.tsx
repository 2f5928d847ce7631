import { useEffect, useRef, type ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { useAuthCheck } from '@/api/auth-check';
import { FullScreenSpinner } from '@/components/spinner';
import { ko } from '@/i18n/ko';
import { authRedirect, waitsForLogin } from './route-access';

/**
 * Applies the auth rule on every route change: the login state is asked again each time the
 * path changes, and the rule is applied to the freshest answer known.
 */
export function AuthGuard({ children }: { children: ReactNode }) {
  const { pathname } = useLocation();
  const { data, error, mutate } = useAuthCheck();
  const firstPath = useRef(true);

  useEffect(() => {
    // The first check is the hook's own request.
    if (firstPath.current) {
      firstPath.current = false;
      return;
    }
    void mutate();
  }, [pathname, mutate]);

  // A failed check counts as logged out: member pages need a working session anyway.
  const loggedIn = data?.loggedIn ?? (error ? false : undefined);
  // While the check is out, a page of the bottom navigation shows its frame at once (on a
  // slow network a wordless spinner stood there for seconds): what needs the account waits
  // for the answer itself, and a guest is sent on once it comes.
  if (loggedIn === undefined) {
    return waitsForLogin(pathname) ? <FullScreenSpinner label={ko.app.loading} /> : children;
  }
  const target = authRedirect(pathname, loggedIn);
  return target ? <Navigate to={target} replace /> : children;
}
