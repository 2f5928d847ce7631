import { Outlet, ScrollRestoration } from 'react-router';
import { MegaphoneBanner } from '@/features/home/components/megaphone-banner';
import { AuthGuard } from '../auth-guard';
import { DemoBadge } from '../demo-badge';
import { ProfileSync } from '../profile-sync';
import { Realtime } from '../realtime';

/**
 * Every route: the centred column, the auth rule, the demo badge, the socket, and the
 * megaphones, which reach everyone online on whatever page (a chat too), at the top.
 */
export function RootLayout() {
  return (
    <div className="app-column">
      <DemoBadge />
      <ProfileSync />
      <Realtime />
      <MegaphoneBanner />
      <AuthGuard>
        <Outlet />
      </AuthGuard>
      <ScrollRestoration />
    </div>
  );
}
