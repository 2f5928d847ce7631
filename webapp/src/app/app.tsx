import { useState } from 'react';
import { RouterProvider } from 'react-router';
import { Toaster } from 'sonner';
import { SWRConfig } from 'swr';
import { OfflineNotice } from './offline-notice';
import { createAppRouter } from './router';
import { useDateTheme } from './use-theme';

const TOAST_MS = 2000;

export function App() {
  const [router] = useState(createAppRouter);
  useDateTheme();
  return (
    <SWRConfig value={{ errorRetryCount: 2 }}>
      <RouterProvider router={router} />
      <OfflineNotice />
      <Toaster position="top-center" richColors closeButton duration={TOAST_MS} toastOptions={{ className: 'toast' }} />
    </SWRConfig>
  );
}
