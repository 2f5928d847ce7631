import { Link, useSearchParams } from 'react-router';
import { koAdmin } from '@/i18n/ko-admin';
import { useReports, type QueueStatus, type ReportItem } from '../api/reports';
import { useNow } from '@/lib/use-now';
import { describeDueAt } from '../lib/due';
import { formatDateTime } from '../lib/format';
import { DueBadge, ReasonChips, StatusChip } from './chips';
import { QueueTabs, type QueueTab } from './queue-tabs';
import { ConsolePageHeader, EmptyState, ErrorState, LoadingState } from './states';

const TICK_MS = 10_000;

function nameOf(nickname: string | null | undefined, fallback: string): string {
  return nickname ?? fallback;
}

function ReportRow({ report, now }: { report: ReportItem; now: number }) {
  const t = koAdmin.reports;
  const due = report.status === 'open' ? describeDueAt(report.dueAt, now) : null;
  // The server said so when it answered; the clock here keeps it true while the page stays open.
  const overdue = due ? due.overdue : report.overdue;
  return (
    <li>
      <Link to={`/admin/reports/${report.id}`} className="queue-row" data-overdue={overdue || undefined}>
        <div className="queue-row__head">
          <span className="queue-row__id">{t.number(report.id)}</span>
          {due ? <DueBadge due={due} /> : <StatusChip status={report.status} />}
        </div>
        <ReasonChips reasons={report.reasons} source={report.source} />
        <dl className="queue-row__facts">
          <div>
            <dt>{t.reported}</dt>
            <dd>
              {nameOf(report.reported.nickname, report.reported.username)}
              <span className="muted"> ({report.reported.username})</span>
            </dd>
          </div>
          <div>
            <dt>{t.reporter}</dt>
            <dd>{report.reporter ? nameOf(report.reporter.nickname, koAdmin.report.userId(report.reporter.id)) : t.filter}</dd>
          </div>
          <div>
            <dt>{t.receivedAt}</dt>
            <dd>{formatDateTime(report.createdAt)}</dd>
          </div>
          {report.resolution ? (
            <div>
              <dt>{t.resolution}</dt>
              <dd>{report.resolution}</dd>
            </div>
          ) : null}
        </dl>
        {report.extra ? <p className="queue-row__extra">{report.extra}</p> : null}
      </Link>
    </li>
  );
}

/** /admin/reports: the queue, oldest first, each with the time left of its 24 hours; or the handled ones. */
export function ReportsPage() {
  const [params, setParams] = useSearchParams();
  const status: QueueStatus = params.get('status') === 'closed' ? 'closed' : 'open';
  const { data, error, mutate } = useReports(status);
  const now = useNow(TICK_MS);
  const t = koAdmin.reports;
  const tabs: QueueTab<QueueStatus>[] = [
    // How many wait is known once the open queue is on screen.
    { value: 'open', label: t.open, count: status === 'open' && data ? data.reports.length : undefined },
    { value: 'closed', label: t.closed },
  ];

  return (
    <>
      <ConsolePageHeader title={t.title} lead={koAdmin.dashboard.lead} />
      <QueueTabs
        label={t.tabs}
        tabs={tabs}
        selected={status}
        onSelect={(value) => {
          setParams(value === 'open' ? {} : { status: value }, { replace: true });
        }}
      />
      <section role="tabpanel" aria-label={status === 'open' ? t.open : t.closed}>
        {data ? (
          data.reports.length === 0 ? (
            <EmptyState>{status === 'open' ? t.emptyOpen : t.emptyClosed}</EmptyState>
          ) : (
            <ol className="queue">
              {data.reports.map((report) => (
                <ReportRow key={report.id} report={report} now={now} />
              ))}
            </ol>
          )
        ) : error ? (
          <ErrorState error={error} onRetry={() => void mutate()} />
        ) : (
          <LoadingState />
        )}
      </section>
    </>
  );
}
