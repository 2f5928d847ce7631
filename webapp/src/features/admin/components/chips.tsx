import { koAdmin } from '@/i18n/ko-admin';
import type { DueState } from '../lib/due';

/** A report's reasons as chips, and the filter's own reports marked 자동 감지. */
export function ReasonChips({ reasons, source }: { reasons: readonly string[]; source?: string }) {
  return (
    <ul className="chips" aria-label={koAdmin.reports.reasonsLabel}>
      {source === 'filter' ? (
        <li className="chip chip--filter" title={koAdmin.reports.filterHint}>
          {koAdmin.reports.filter}
        </li>
      ) : null}
      {reasons.map((reason) => (
        <li key={reason} className="chip">
          {reason}
        </li>
      ))}
    </ul>
  );
}

/** Where a report stands: 대기 중, 기각, 조치함. */
export function StatusChip({ status }: { status: string }) {
  return (
    <span className={`status-chip status-chip--${status}`}>{koAdmin.reports.status[status] ?? status}</span>
  );
}

/** The time left of a report's 24 hours, or past them in red. */
export function DueBadge({ due }: { due: DueState }) {
  return (
    <span className={`due-badge ${due.overdue ? 'due-badge--overdue' : ''}`} data-overdue={due.overdue || undefined}>
      {due.text}
    </span>
  );
}
