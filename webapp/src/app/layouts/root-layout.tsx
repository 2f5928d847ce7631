import { Outlet, ScrollRestoration } from 'react-router';
import { AuthGuard } from '../auth-guard';
import { DemoBadge } from '../demo-badge';
import { ProfileSync } from '../profile-sync';
import { Realtime } from '../realtime';

/** Every route: the centred column, the auth rule, the demo badge, the socket. */
export function RootLayout() {
  return (
    <div className="app-column">
      <DemoBadge />
      <ProfileSync />
      <Realtime />
      <AuthGuard>
        <Outlet />
      </AuthGuard>
      <ScrollRestoration />
    </div>
  );
}
