import { ButtonLink } from '@/components/button';
import { koAdmin } from '@/i18n/ko-admin';
import { useDashboard } from '../api/dashboard';
import { formatDay } from '../lib/format';
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

/** The latest evening's opening bell: sent to how many, what was cleaned up, what failed. */
function bellStat(data: NonNullable<ReturnType<typeof useDashboard>['data']>): StatProps {
  const t = koAdmin.dashboard;
  const run = data.lastBell;
  const devices = t.devices(data.bellDevices);
  if (!run) return { label: t.bell, value: devices, note: t.bellNever };
  // The evening is a Seoul date; noon keeps it on that day whatever the machine's zone.
  const day = formatDay(`${run.evening}T12:00:00+09:00`);
  const note = run.finishedAt ? `${t.bellSent(day, run.sent)} ${t.bellOutcome(run.gone, run.failed)}` : t.bellSending(day);
  return { label: t.bell, value: devices, note, tone: run.failed > 0 ? 'warning' : 'calm' };
}

/** /admin/dashboard: who is here, how many matched today, how the report queue stands, and the 8 PM bell. */
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
            <Stat {...bellStat(data)} />
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
