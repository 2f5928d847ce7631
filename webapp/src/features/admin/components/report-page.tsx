import type { ReactNode } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { toast } from 'sonner';
import { serverMessage } from '@/api/outcome';
import { Card } from '@/components/page';
import { koAdmin } from '@/i18n/ko-admin';
import { useReport, type ReportDetail, type UserHistory } from '../api/report';
import { useResolveReport } from '../api/resolve-report';
import { useNow } from '@/lib/use-now';
import { useRefreshConsole } from '../hooks/use-refresh-console';
import { decisionActions, type Decision } from '../lib/decision';
import { describeDueAt } from '../lib/due';
import { formatDateTime } from '../lib/format';
import { outcomeLabel } from '../lib/outcome-label';
import { DueBadge, ReasonChips, StatusChip } from './chips';
import { DecisionForm } from './decision-form';
import { ReportBriefList, RestrictionNotice, SanctionList } from './history';
import { ConsolePageHeader, ErrorState, LoadingState } from './states';
import { Transcript } from './transcript';

const TICK_MS = 10_000;

function displayName(user: { nickname?: string | null; username: string }): string {
  return user.nickname ?? user.username;
}

function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="facts__row">
      <dt>{term}</dt>
      <dd>{children}</dd>
    </div>
  );
}

function Summary({ detail }: { detail: ReportDetail }) {
  const t = koAdmin.reports;
  const r = koAdmin.report;
  const { report, room } = detail;
  return (
    <Card className="console-card report-summary">
      <h2 className="console-card__title">{r.summary}</h2>
      <ReasonChips reasons={report.reasons} source={report.source} />
      <div className="report-extra">
        <h3 className="report-extra__label">{t.extra}</h3>
        {report.extra ? <p className="report-extra__text">{report.extra}</p> : <p className="muted">{t.noExtra}</p>}
      </div>
      <dl className="facts">
        <Fact term={t.reporter}>{report.reporter ? displayName({ nickname: report.reporter.nickname, username: r.userId(report.reporter.id) }) : t.filter}</Fact>
        <Fact term={t.reported}>{`${displayName(report.reported)} (${report.reported.username})`}</Fact>
        <Fact term={t.receivedAt}>{formatDateTime(report.createdAt)}</Fact>
        <Fact term={t.dueAt}>{formatDateTime(report.dueAt)}</Fact>
        {room ? (
          <>
            <Fact term={r.word}>{room.word}</Fact>
            <Fact term={r.roomStarted}>{formatDateTime(room.createdAt)}</Fact>
            <Fact term={r.roomEnded}>{room.endedAt ? formatDateTime(room.endedAt) : r.roomOpen}</Fact>
          </>
        ) : null}
      </dl>
    </Card>
  );
}

function HistoryCard({ role, history, reportId }: { role: 'reporter' | 'reported'; history: UserHistory; reportId: number }) {
  const r = koAdmin.report;
  return (
    <Card className={`console-card history-card history-card--${role}`}>
      <div className="history-card__head">
        <span className={`who-tag who-tag--${role}`}>{r.from[role]}</span>
        <h3 className="history-card__name">{displayName(history)}</h3>
        <Link className="text-link text-link--strong" to={`/admin/users/${history.id}`}>
          {r.toUser}
        </Link>
      </div>
      <p className="muted">{`${history.username} · ${r.userId(history.id)} · ${koAdmin.users.statuses[history.status] ?? history.status}`}</p>
      <RestrictionNotice restriction={history.restriction} />
      <dl className="history-card__counts">
        <div>
          <dt>{r.reportsAgainst}</dt>
          <dd>{r.count(history.reportsAgainst.length)}</dd>
        </div>
        <div>
          <dt>{r.reportsFiled}</dt>
          <dd>{r.count(history.reportsFiled)}</dd>
        </div>
        <div>
          <dt>{r.sanctions}</dt>
          <dd>{r.count(history.sanctions.length)}</dd>
        </div>
      </dl>
      <h4 className="history-card__section">{r.sanctions}</h4>
      <SanctionList sanctions={history.sanctions} />
      <h4 className="history-card__section">{r.reportsAgainst}</h4>
      <ReportBriefList reports={history.reportsAgainst} current={reportId} empty={r.noReports} />
    </Card>
  );
}

function Resolution({ detail }: { detail: ReportDetail }) {
  const t = koAdmin.reports;
  const { report } = detail;
  return (
    <Card className="console-card">
      <h2 className="console-card__title">{t.resolution}</h2>
      <dl className="facts">
        <Fact term={koAdmin.users.status}>
          <StatusChip status={report.status} />
        </Fact>
        <Fact term={t.resolution}>{report.resolution ?? koAdmin.app.dash}</Fact>
        {report.resolvedAt ? <Fact term={t.resolvedAt}>{formatDateTime(report.resolvedAt)}</Fact> : null}
        {report.resolvedBy ? <Fact term={t.resolvedBy}>{report.resolvedBy}</Fact> : null}
      </dl>
    </Card>
  );
}

interface DecideProps {
  detail: ReportDetail;
  /** After the decision was taken. */
  onResolved: () => Promise<void>;
  /** When another operator resolved the report first. */
  onClosed: () => Promise<unknown>;
}

function Decide({ detail, onResolved, onClosed }: DecideProps) {
  const { report } = detail;
  const { trigger, isMutating } = useResolveReport(report.id);

  async function onDecide(decision: Decision): Promise<boolean> {
    const outcome = await trigger(decision);
    if (!outcome.ok) {
      if (outcome.network) toast.error(koAdmin.app.networkFailed);
      else if (outcome.status !== 401) toast.error(serverMessage(outcome) ?? koAdmin.resolve.failed);
      if (!outcome.network && outcome.code === 'REPORT_CLOSED') await onClosed();
      return false;
    }
    toast.success(koAdmin.resolve.done(report.id, outcomeLabel(decision)));
    await onResolved();
    return true;
  }

  return (
    <Card className="console-card decision-card">
      <h2 className="console-card__title">{koAdmin.resolve.title}</h2>
      <DecisionForm actions={decisionActions} targetName={displayName(report.reported)} onDecide={onDecide} busy={isMutating} />
    </Card>
  );
}

/** /admin/reports/:id: the report, the chat as a conversation, both users' history, and the decision. */
export function ReportPage() {
  const params = useParams();
  const id = Number(params.id);
  const navigate = useNavigate();
  const refresh = useRefreshConsole();
  const { data, error, mutate } = useReport(id);
  const now = useNow(TICK_MS);
  const t = koAdmin.reports;
  const r = koAdmin.report;

  const back = (
    <Link to="/admin/reports" className="console-back">
      {r.back}
    </Link>
  );

  if (!Number.isSafeInteger(id) || id <= 0) return <ErrorState error={new Error(r.notFound)} />;
  if (error) {
    return (
      <>
        <ConsolePageHeader title={t.number(id)} back={back} />
        <ErrorState error={error} onRetry={() => void mutate()} />
      </>
    );
  }
  if (!data) return <LoadingState />;

  const { report } = data;
  const open = report.status === 'open';
  const due = open ? describeDueAt(report.dueAt, now) : null;
  const speakers = {
    reporter: data.reporter ? displayName(data.reporter) : t.filter,
    reported: displayName(data.reported),
  };

  async function afterDecision() {
    // Away first: the page's own read is forgotten, not repeated (each read is audited).
    await navigate('/admin/reports');
    await refresh();
  }

  return (
    <>
      <ConsolePageHeader
        title={t.number(report.id)}
        back={back}
        aside={
          <>
            <StatusChip status={report.status} />
            {due ? <DueBadge due={due} /> : null}
          </>
        }
      />
      <div className="report-layout">
        <div className="report-layout__summary">
          <Summary detail={data} />
        </div>
        <section className="report-layout__transcript console-card card" aria-labelledby="transcript-title">
          <h2 id="transcript-title" className="console-card__title">
            {r.transcript}
          </h2>
          <p className="console-card__lead">{r.transcriptLead}</p>
          <div className="transcript-legend" aria-hidden="true">
            {report.reporter ? (
              <span>
                <span className="who-tag who-tag--reporter">{r.from.reporter}</span> {speakers.reporter}
              </span>
            ) : null}
            <span>
              <span className="who-tag who-tag--reported">{r.from.reported}</span> {speakers.reported}
            </span>
          </div>
          <Transcript lines={data.transcript} speakers={speakers} />
        </section>
        <div className="report-layout__decision">
          {open ? <Decide detail={data} onResolved={afterDecision} onClosed={() => mutate()} /> : <Resolution detail={data} />}
        </div>
        <section className="report-layout__history" aria-label={r.history}>
          <h2 className="console-section-title">{r.history}</h2>
          <div className="history-columns">
            {data.reporter ? <HistoryCard role="reporter" history={data.reporter} reportId={report.id} /> : null}
            <HistoryCard role="reported" history={data.reported} reportId={report.id} />
          </div>
        </section>
      </div>
    </>
  );
}
