import { Link } from 'react-router';
import { Button } from '@/components/button';
import { koAdmin } from '@/i18n/ko-admin';
import { useAuditLog, type AuditItem } from '../api/audit';
import { formatDateTime } from '../lib/format';
import { ConsolePageHeader, EmptyState, ErrorState, LoadingState } from './states';

/** Actions that stop or free an account, marked so they stand out in the log. */
const weighty = new Set(['report.resolve', 'sanction.add', 'sanction.lift', 'operator.login_failed', 'totp.failure']);

function AuditRow({ entry }: { entry: AuditItem }) {
  const t = koAdmin.audit;
  return (
    <tr role="row" className="audit-row" data-weighty={weighty.has(entry.action) || undefined}>
      <td role="cell" data-label={t.at} className="audit-row__at">
        <time dateTime={entry.at}>{formatDateTime(entry.at)}</time>
      </td>
      <td role="cell" data-label={t.operator}>{entry.operator ?? (entry.ip === 'cli' ? t.cli : t.system)}</td>
      <td role="cell" data-label={t.action}>
        <span className="audit-action" title={entry.action}>
          {t.actions[entry.action] ?? entry.action}
        </span>
      </td>
      <td role="cell" data-label={t.target} className="audit-row__target">
        {entry.userId || entry.reportId ? (
          <span className="audit-row__links">
            {entry.userId ? <Link to={`/admin/users/${entry.userId}`}>{t.user(entry.userId)}</Link> : null}
            {entry.reportId ? <Link to={`/admin/reports/${entry.reportId}`}>{t.report(entry.reportId)}</Link> : null}
          </span>
        ) : (
          <span className="muted">{koAdmin.app.dash}</span>
        )}
      </td>
      <td role="cell" data-label={t.detail} className="audit-row__detail">
        {entry.detail}
      </td>
      <td role="cell" data-label={t.ip} className="audit-row__ip">
        {entry.ip}
      </td>
    </tr>
  );
}

/** /admin/audit: every action, newest first, 100 at a time. */
export function AuditPage() {
  const { data, error, mutate, size, setSize, isValidating } = useAuditLog();
  const t = koAdmin.audit;
  const entries = data?.flatMap((page) => page.entries) ?? [];
  const last = data?.[data.length - 1];
  const more = last?.nextBefore !== undefined;
  const loadingMore = isValidating && data !== undefined && data.length < size;

  return (
    <>
      <ConsolePageHeader title={t.title} lead={t.lead} />
      {/* Explicit table roles: on narrow screens the cells are laid out as blocks, which would drop them. */}
      {data ? (
        entries.length === 0 ? (
          <EmptyState>{t.empty}</EmptyState>
        ) : (
          <>
            <div className="audit-table-wrap">
              <table className="audit-table" role="table" aria-label={t.title}>
                <thead role="rowgroup">
                  <tr role="row">
                    <th role="columnheader" scope="col">{t.at}</th>
                    <th role="columnheader" scope="col">{t.operator}</th>
                    <th role="columnheader" scope="col">{t.action}</th>
                    <th role="columnheader" scope="col">{t.target}</th>
                    <th role="columnheader" scope="col">{t.detail}</th>
                    <th role="columnheader" scope="col">{t.ip}</th>
                  </tr>
                </thead>
                <tbody role="rowgroup">
                  {entries.map((entry) => (
                    <AuditRow key={entry.id} entry={entry} />
                  ))}
                </tbody>
              </table>
            </div>
            <div className="console-actions console-actions--center">
              {more ? (
                <Button
                  variant="secondary"
                  loading={loadingMore}
                  onClick={() => {
                    void setSize(size + 1);
                  }}
                >
                  {loadingMore ? t.loadingMore : t.more}
                </Button>
              ) : (
                <p className="muted">{t.end}</p>
              )}
            </div>
          </>
        )
      ) : error ? (
        <ErrorState error={error} onRetry={() => void mutate()} />
      ) : (
        <LoadingState />
      )}
    </>
  );
}
