import type { ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { ko } from '@/i18n/ko';

interface PageHeaderProps {
  title: string;
  /** Where the back button goes; by default one step back in history, or `fallback`. */
  backTo?: string;
  fallback?: string;
  showBack?: boolean;
  action?: ReactNode;
}

/** True when an earlier entry of this tab's history is a page of the app (the router counts them). */
function hasInAppHistory(): boolean {
  const state: unknown = window.history.state;
  if (typeof state !== 'object' || state === null || !('idx' in state)) return false;
  return typeof state.idx === 'number' && state.idx > 0;
}

/** The bar at the top of a sub-page: back button, title, optional action. */
export function PageHeader({ title, backTo, fallback = '/main', showBack = true, action }: PageHeaderProps) {
  const navigate = useNavigate();

  function goBack() {
    if (backTo) {
      void navigate(backTo);
    } else if (hasInAppHistory()) {
      void navigate(-1);
    } else {
      void navigate(fallback, { replace: true });
    }
  }

  return (
    <header className="page-header">
      {showBack ? (
        <button type="button" className="icon-button" onClick={goBack} aria-label={ko.app.back}>
          <svg viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">
            <path d="M15 5l-7 7 7 7" fill="none" stroke="currentColor" strokeWidth="2.2" strokeLinecap="round" strokeLinejoin="round" />
          </svg>
        </button>
      ) : (
        <span className="page-header__spacer" />
      )}
      <h1 className="page-header__title">{title}</h1>
      {action ?? <span className="page-header__spacer" />}
    </header>
  );
}

/** A page's content column with standard padding. */
export function PageBody({ children, className }: { children: ReactNode; className?: string }) {
  return <main className={['page-body', className ?? ''].filter(Boolean).join(' ')}>{children}</main>;
}

export function Card({
  children,
  className,
  as: Tag = 'section',
  labelledBy,
}: {
  children: ReactNode;
  className?: string;
  as?: 'section' | 'div' | 'article';
  /** The id of the card's heading: a section so named is a region of the page. */
  labelledBy?: string;
}) {
  return (
    <Tag className={['card', className ?? ''].filter(Boolean).join(' ')} aria-labelledby={labelledBy}>
      {children}
    </Tag>
  );
}
