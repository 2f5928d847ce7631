import { Outlet, ScrollRestoration } from 'react-router';
import { AuthGuard } from '../auth-guard';
import { DemoBadge } from '../demo-badge';
import { ProfileSync } from '../profile-sync';

/** Every route: the centred column, the auth rule, the demo badge. */
export function RootLayout() {
  return (
    <div className="app-column">
      <DemoBadge />
      <ProfileSync />
      <AuthGuard>
        <Outlet />
      </AuthGuard>
      <ScrollRestoration />
    </div>
  );
}
