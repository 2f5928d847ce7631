import { useEffect } from 'react';
import { Navigate } from 'react-router';
import { useClearConsoleCache } from '../hooks/use-clear-console-cache';
import { toastSessionLost } from '../lib/session-toast';

/** Sends the operator back to `to` (the login or the second factor), saying why. */
export function SessionRedirect({ to }: { to: string }) {
  const clear = useClearConsoleCache();
  useEffect(() => {
    toastSessionLost();
    void clear();
  }, [clear]);
  return <Navigate to={to} replace />;
}
