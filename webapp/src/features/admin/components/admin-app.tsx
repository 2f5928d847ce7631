import { useEffect } from 'react';
import { Navigate, Route, Routes } from 'react-router';
import { koAdmin } from '@/i18n/ko-admin';
import '../admin.css';
import { AuditPage } from './audit-page';
import { CommentsPage } from './comments-page';
import { MegaphonesPage } from './megaphones-page';
import { ConsoleLayout } from './console-layout';
import { DashboardPage } from './dashboard-page';
import { AdminLoginPage } from './login-page';
import { ReportPage } from './report-page';
import { ReportsPage } from './reports-page';
import { TotpPage } from './totp-page';
import { TransfersPage } from './transfers-page';
import { UserPage } from './user-page';
import { UsersPage } from './users-page';
import { WordsetsPage } from './wordsets-page';

/**
 * The operations console under /admin. The app loads this module (and with it the console's
 * texts and styles) only when an /admin address opens, and outside the user app's layout: no
 * user socket, no user auth rule.
 */
export function AdminApp() {
  useEffect(() => {
    const previous = document.title;
    document.title = koAdmin.app.title;
    return () => {
      document.title = previous;
    };
  }, []);
  return (
    <Routes>
      <Route index element={<AdminLoginPage />} />
      <Route path="totp" element={<TotpPage />} />
      <Route element={<ConsoleLayout />}>
        <Route path="dashboard" element={<DashboardPage />} />
        <Route path="reports" element={<ReportsPage />} />
        <Route path="reports/:id" element={<ReportPage />} />
        <Route path="users" element={<UsersPage />} />
        <Route path="users/:id" element={<UserPage />} />
        <Route path="comments" element={<CommentsPage />} />
        <Route path="megaphones" element={<MegaphonesPage />} />
        <Route path="transfers" element={<TransfersPage />} />
        <Route path="wordsets" element={<WordsetsPage />} />
        <Route path="audit" element={<AuditPage />} />
      </Route>
      <Route path="*" element={<Navigate to="/admin/dashboard" replace />} />
    </Routes>
  );
}
