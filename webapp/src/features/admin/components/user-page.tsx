import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { toast } from 'sonner';
import { serverMessage } from '@/api/outcome';
import { Card } from '@/components/page';
import { koAdmin } from '@/i18n/ko-admin';
import { useLiftSanction } from '../api/lift-sanction';
import { useSanctionUser } from '../api/sanction-user';
import { useUser, type SanctionItem, type UserDetail } from '../api/user';
import { sanctionKinds, type Decision } from '../lib/decision';
import { formatDateTime } from '../lib/format';
import { DecisionForm } from './decision-form';
import { ReportBriefList, RestrictionNotice, SanctionList } from './history';
import { ReasonDialog } from './reason-dialog';
import { ConsolePageHeader, ErrorState, LoadingState } from './states';

function LiftDialog({ sanction, onClose, onLifted }: { sanction: SanctionItem | null; onClose: () => void; onLifted: () => Promise<unknown> }) {
  const t = koAdmin.sanction;
  const { trigger, isMutating } = useLiftSanction();
  return (
    <ReasonDialog
      open={sanction !== null}
      title={t.liftTitle}
      message={t.liftMessage}
      target={
        sanction ? (
          <p className="lift-form__target">
            <span className={`kind-chip kind-chip--${sanction.kind}`}>{t.kinds[sanction.kind] ?? sanction.kind}</span> {sanction.reason}
          </p>
        ) : null
      }
      reasonLabel={t.liftReason}
      confirm={t.liftConfirm}
      pending={t.lifting}
      failed={t.liftFailed}
      busy={isMutating}
      submit={(reason) => (sanction ? trigger({ id: sanction.id, reason }) : Promise.resolve({ ok: false, network: true }))}
      onDone={async (outcome) => {
        if (outcome.ok) toast.success(t.liftDone);
        // Lifted or run out meanwhile: the page shows it.
        if (outcome.ok || (!outcome.network && outcome.code === 'SANCTION_LIFTED')) await onLifted();
      }}
      onClose={onClose}
    />
  );
}

function Profile({ detail }: { detail: UserDetail }) {
  const t = koAdmin.users;
  const { user } = detail;
  return (
    <Card className="console-card">
      <h2 className="console-card__title">{t.profile}</h2>
      <dl className="facts">
        <div className="facts__row">
          <dt>{t.id}</dt>
          <dd>{user.id}</dd>
        </div>
        <div className="facts__row">
          <dt>{t.username}</dt>
          <dd>{user.username}</dd>
        </div>
        <div className="facts__row">
          <dt>{t.nickname}</dt>
          <dd>{user.nickname ?? t.noNickname}</dd>
        </div>
        <div className="facts__row">
          <dt>{t.phone}</dt>
          <dd>{user.phone || koAdmin.app.dash}</dd>
        </div>
        <div className="facts__row">
          <dt>{t.status}</dt>
          <dd>{t.statuses[user.status] ?? user.status}</dd>
        </div>
        <div className="facts__row">
          <dt>{t.joinedAt}</dt>
          <dd>{formatDateTime(user.createdAt)}</dd>
        </div>
      </dl>
      <h3 className="history-card__section">{koAdmin.report.restriction}</h3>
      <RestrictionNotice restriction={detail.restriction} />
    </Card>
  );
}

/** /admin/users/:id: the account, its restriction, its sanctions (with lifting), its reports, and a new sanction. */
export function UserPage() {
  const params = useParams();
  const id = Number(params.id);
  const { data, error, mutate } = useUser(id);
  const sanction = useSanctionUser(id);
  const [lifting, setLifting] = useState<SanctionItem | null>(null);
  const t = koAdmin.users;

  const back = (
    <Link to="/admin/users" className="console-back">
      {t.back}
    </Link>
  );

  if (error || !Number.isSafeInteger(id) || id <= 0) {
    return (
      <>
        <ConsolePageHeader title={t.title} back={back} />
        <ErrorState error={error ?? new Error(t.notFound)} onRetry={error ? () => void mutate() : undefined} />
      </>
    );
  }
  if (!data) return <LoadingState />;

  const name = data.user.nickname ?? data.user.username;

  async function onDecide(decision: Decision): Promise<boolean> {
    if (decision.action === 'dismiss') return false;
    const outcome = await sanction.trigger({ kind: decision.action, days: decision.days, reason: decision.reason });
    if (!outcome.ok) {
      if (outcome.network) toast.error(koAdmin.app.networkFailed);
      else if (outcome.status !== 401) toast.error(serverMessage(outcome) ?? koAdmin.resolve.failed);
      return false;
    }
    toast.success(t.sanctionDone);
    await mutate();
    return true;
  }

  return (
    <>
      <ConsolePageHeader title={`${name} (${data.user.username})`} back={back} lead={koAdmin.report.userId(data.user.id)} />
      <div className="user-layout">
        <div className="user-layout__main">
          <Profile detail={data} />
          <Card className="console-card">
            <h2 className="console-card__title">{t.sanctions}</h2>
            <SanctionList sanctions={data.sanctions} onLift={setLifting} />
          </Card>
          <div className="history-columns">
            <Card className="console-card">
              <h2 className="console-card__title">{t.reportsAgainst}</h2>
              <ReportBriefList reports={data.reportsAgainst} empty={koAdmin.report.noReports} />
            </Card>
            <Card className="console-card">
              <h2 className="console-card__title">{t.reportsFiled}</h2>
              <ReportBriefList reports={data.reportsFiled} empty={t.noReportsFiled} />
            </Card>
          </div>
        </div>
        <div className="user-layout__side">
          <Card className="console-card decision-card">
            <h2 className="console-card__title">{t.sanctionTitle}</h2>
            <DecisionForm actions={sanctionKinds} targetName={name} onDecide={onDecide} busy={sanction.isMutating} legend={t.sanctionKind} />
          </Card>
        </div>
      </div>
      <LiftDialog
        sanction={lifting}
        onClose={() => {
          setLifting(null);
        }}
        onLifted={() => mutate()}
      />
    </>
  );
}
