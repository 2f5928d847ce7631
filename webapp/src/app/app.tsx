import { useState, useSyncExternalStore } from 'react';
import { RouterProvider } from 'react-router';
import { Toaster } from 'sonner';
import { SWRConfig } from 'swr';
import { ko } from '@/i18n/ko';
import { OfflineNotice } from './offline-notice';
import { createAppRouter } from './router';
import { useDateTheme } from './use-theme';

const TOAST_MS = 2000;
/** On a phone, toasts open below the header bar (styles/components.css), clear of its buttons. */
const TOAST_PHONE_OFFSET = { top: 'var(--toast-top)' };

export function App() {
  const [router] = useState(createAppRouter);
  const path = useSyncExternalStore(
    (listener) => router.subscribe(listener),
    () => router.state.location.pathname,
  );
  useDateTheme();
  return (
    <SWRConfig value={{ errorRetryCount: 2 }}>
      <RouterProvider router={router} />
      <OfflineNotice path={path} />
      <Toaster
        position="top-center"
        mobileOffset={TOAST_PHONE_OFFSET}
        richColors
        closeButton
        duration={TOAST_MS}
        containerAriaLabel={ko.app.notifications}
        toastOptions={{ className: 'toast', closeButtonAriaLabel: ko.app.close }}
      />
    </SWRConfig>
  );
}
