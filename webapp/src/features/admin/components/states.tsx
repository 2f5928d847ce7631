import type { ReactNode } from 'react';
import { Button } from '@/components/button';
import { Spinner } from '@/components/spinner';
import { koAdmin } from '@/i18n/ko-admin';

export function LoadingState() {
  return (
    <div className="console-state">
      <Spinner label={koAdmin.app.loading} />
    </div>
  );
}

/** A read that failed, with the server's message when there is one, and a retry. */
export function ErrorState({ error, onRetry, children }: { error: unknown; onRetry?: () => void; children?: ReactNode }) {
  const message =
    error instanceof TypeError ? koAdmin.app.networkFailed : error instanceof Error && !error.message.startsWith('HTTP ') ? error.message : koAdmin.app.loadFailed;
  return (
    <div className="console-state" role="alert">
      <p className="console-state__text">{message}</p>
      {children}
      {onRetry ? (
        <Button variant="secondary" size="sm" onClick={onRetry}>
          {koAdmin.app.retry}
        </Button>
      ) : null}
    </div>
  );
}

export function EmptyState({ children }: { children: ReactNode }) {
  return <p className="console-empty">{children}</p>;
}

/** A page's title row: the heading, an optional line under it, and actions on the right. */
export function ConsolePageHeader({ title, lead, aside, back }: { title: ReactNode; lead?: ReactNode; aside?: ReactNode; back?: ReactNode }) {
  return (
    <header className="console-page-header">
      {back}
      <div className="console-page-header__row">
        <h1 className="console-page-header__title">{title}</h1>
        {aside ? <div className="console-page-header__aside">{aside}</div> : null}
      </div>
      {lead ? <p className="console-page-header__lead">{lead}</p> : null}
    </header>
  );
}
