import { createBrowserRouter, Navigate } from 'react-router';
import { ChangePasswordPage } from '@/features/password/components/change-password-page';
import { FindPasswordPage } from '@/features/password/components/find-password-page';
import { ChatPage } from '@/features/chat/components/chat-page';
import { HelpPage } from '@/features/help/components/help-page';
import { MainPage } from '@/features/home/components/main-page';
import { LikesPage } from '@/features/likes/components/likes-page';
import { WordSetPage } from '@/features/likes/components/word-set-page';
import { LoginPage } from '@/features/auth/components/login-page';
import { RegisterPage } from '@/features/auth/components/register-page';
import { VerifyMvpPage } from '@/features/auth/components/verify-mvp-page';
import { VerifyCallbackPage } from '@/features/identity/components/verify-callback-page';
import { VerifyPage } from '@/features/identity/components/verify-page';
import { MyPage } from '@/features/mypage/components/my-page';
import { MyWordsPage } from '@/features/words/components/my-words-page';
import { MainLayout } from './layouts/main-layout';
import { RootLayout } from './layouts/root-layout';

export const routes = [
  {
    // The operations console: loaded only when opened, and outside the user app's layout (no
    // user socket, no user auth rule); it has its own routes, guard and texts.
    path: '/admin/*',
    lazy: async () => {
      const { AdminApp } = await import('@/features/admin/components/admin-app');
      return { Component: AdminApp };
    },
  },
  {
    element: <RootLayout />,
    children: [
      { path: '/', element: <Navigate to="/main" replace /> },
      { path: '/login', element: <LoginPage /> },
      { path: '/register', element: <RegisterPage /> },
      { path: '/verify-mvp', element: <VerifyMvpPage /> },
      { path: '/verify', element: <VerifyPage /> },
      { path: '/verify/callback', element: <VerifyCallbackPage /> },
      { path: '/findpassword', element: <FindPasswordPage /> },
      { path: '/changepassword', element: <ChangePasswordPage /> },
      {
        path: '/terms/:type',
        // The legal texts are long; they load only when a terms page opens.
        lazy: async () => {
          const { TermsPage } = await import('@/features/terms/components/terms-page');
          return { Component: TermsPage };
        },
      },
      {
        element: <MainLayout />,
        children: [
          { path: '/main', element: <MainPage /> },
          { path: '/mypage', element: <MyPage /> },
          { path: '/mywords', element: <MyWordsPage /> },
          { path: '/likes', element: <LikesPage /> },
          { path: '/helppage', element: <HelpPage /> },
          { path: '/wordset', element: <WordSetPage /> },
        ],
      },
      { path: '/chatpage', element: <ChatPage /> },
      // Unknown addresses go home; the auth rule sends guests on to /login.
      { path: '*', element: <Navigate to="/main" replace /> },
    ],
  },
];

export function createAppRouter() {
  return createBrowserRouter(routes);
}
