import { ButtonLink } from '@/components/button';
import { koAdmin } from '@/i18n/ko-admin';
import { useDashboard } from '../api/dashboard';
import { ConsolePageHeader, ErrorState, LoadingState } from './states';

interface StatProps {
  label: string;
  value: string;
  note?: string;
  tone?: 'warning' | 'calm';
}

function Stat({ label, value, note, tone }: StatProps) {
  return (
    <div className={`console-stat ${tone ? `console-stat--${tone}` : ''}`}>
      <dt className="console-stat__label">{label}</dt>
      <dd className="console-stat__value">{value}</dd>
      {note ? <dd className="console-stat__note">{note}</dd> : null}
    </div>
  );
}

/** /admin/dashboard: who is here, how many matched today, and how the report queue stands. */
export function DashboardPage() {
  const { data, error, mutate } = useDashboard();
  const t = koAdmin.dashboard;
  return (
    <>
      <ConsolePageHeader title={t.title} lead={t.lead} />
      {data ? (
        <>
          <dl className="console-stats">
            <Stat label={t.usersOnline} value={t.people(data.usersOnline)} />
            <Stat label={t.matchesToday} value={t.times(data.matchesToday)} note={t.todayNote} />
            <Stat label={t.openReports} value={t.times(data.openReports)} />
            <Stat
              label={t.overdueReports}
              value={t.times(data.overdueReports)}
              note={data.overdueReports > 0 ? t.overdueNote : t.onTimeNote}
              tone={data.overdueReports > 0 ? 'warning' : 'calm'}
            />
          </dl>
          <div className="console-actions">
            <ButtonLink to="/admin/reports">{t.toQueue}</ButtonLink>
          </div>
        </>
      ) : error ? (
        <ErrorState error={error} onRetry={() => void mutate()} />
      ) : (
        <LoadingState />
      )}
    </>
  );
}
