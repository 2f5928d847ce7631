import { Link } from 'react-router';
import { koAdmin } from '@/i18n/ko-admin';
import type { ReportBrief, Restriction, SanctionItem } from '../api/user';
import { formatDateTime } from '../lib/format';
import { ReasonChips, StatusChip } from './chips';

/** The suspension or ban in force, in the words the user reads. */
export function RestrictionNotice({ restriction }: { restriction: Restriction | undefined }) {
  const t = koAdmin.report;
  if (!restriction) return <p className="restriction restriction--none">{t.noRestriction}</p>;
  return (
    <div className="restriction" role="note">
      <span className="restriction__kind">{koAdmin.sanction.kinds[restriction.kind] ?? restriction.kind}</span>
      <p>{restriction.message}</p>
    </div>
  );
}

/** When a sanction ends or ended. */
function sanctionTerm(sanction: SanctionItem): string {
  const t = koAdmin.sanction;
  const lifted = sanction.liftedAt ? Date.parse(sanction.liftedAt) : null;
  // A suspension that ran out is marked at its end by the housekeeping: that is no lift.
  if (sanction.liftedAt && lifted !== null && (!sanction.until || lifted < Date.parse(sanction.until))) {
    return t.lifted(formatDateTime(sanction.liftedAt));
  }
  if (sanction.kind === 'warn') return sanction.seenAt ? t.seen(formatDateTime(sanction.seenAt)) : t.unseen;
  if (!sanction.until) return t.forever;
  return t.until(formatDateTime(sanction.until));
}

/** A user's sanctions, newest first; `onLift` adds the lift button to those still in force. */
export function SanctionList({ sanctions, onLift }: { sanctions: readonly SanctionItem[]; onLift?: (sanction: SanctionItem) => void }) {
  const t = koAdmin.sanction;
  if (sanctions.length === 0) return <p className="console-empty console-empty--small">{koAdmin.report.noSanctions}</p>;
  return (
    <ul className="history-list">
      {sanctions.map((sanction) => {
        const term = sanctionTerm(sanction);
        return (
          <li key={sanction.id} className="history-item">
            <div className="history-item__head">
              <span className={`kind-chip kind-chip--${sanction.kind}`}>{t.kinds[sanction.kind] ?? sanction.kind}</span>
              {sanction.active && sanction.kind !== 'warn' ? <span className="status-chip status-chip--open">{t.inForce}</span> : null}
              <span className="history-item__date">{formatDateTime(sanction.createdAt)}</span>
            </div>
            <p className="history-item__text">{sanction.reason}</p>
            <p className="history-item__meta">
              {[term, sanction.operator ? t.by(sanction.operator) : t.bySystem].filter(Boolean).join(' · ')}
              {sanction.reportId ? (
                <>
                  {' · '}
                  <Link to={`/admin/reports/${sanction.reportId}`}>{koAdmin.reports.number(sanction.reportId)}</Link>
                </>
              ) : null}
            </p>
            {onLift && sanction.active && sanction.kind !== 'warn' ? (
              <button
                type="button"
                className="text-link text-link--strong history-item__action"
                onClick={() => {
                  onLift(sanction);
                }}
              >
                {t.lift}
              </button>
            ) : null}
          </li>
        );
      })}
    </ul>
  );
}

/** Reports in a user's history, each a link to its page; `current` marks the one on screen. */
export function ReportBriefList({ reports, current, empty }: { reports: readonly ReportBrief[]; current?: number; empty: string }) {
  if (reports.length === 0) return <p className="console-empty console-empty--small">{empty}</p>;
  return (
    <ul className="history-list">
      {reports.map((report) => (
        <li key={report.id} className="history-item">
          <div className="history-item__head">
            {report.id === current ? (
              <span className="history-item__title">{`${koAdmin.reports.number(report.id)} (${koAdmin.report.thisReport})`}</span>
            ) : (
              <Link className="history-item__title" to={`/admin/reports/${report.id}`}>
                {koAdmin.reports.number(report.id)}
              </Link>
            )}
            <StatusChip status={report.status} />
            <span className="history-item__date">{formatDateTime(report.createdAt)}</span>
          </div>
          <ReasonChips reasons={report.reasons} source={report.source} />
          {report.resolution ? <p className="history-item__meta">{report.resolution}</p> : null}
        </li>
      ))}
    </ul>
  );
}
