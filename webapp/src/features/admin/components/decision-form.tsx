import { useId, useState, type SubmitEvent } from 'react';
import { ConfirmDialog } from '@/components/alert-dialog';
import { Button } from '@/components/button';
import { TextField } from '@/components/text-field';
import { koAdmin } from '@/i18n/ko-admin';
import {
  checkDecision,
  needsConfirmation,
  parseDays,
  REASON_MAX_CHARS,
  type Decision,
  type DecisionAction,
  type DecisionErrors,
} from '../lib/decision';
import { TextAreaField } from './text-area-field';

const QUICK_DAYS = [1, 3, 7, 30] as const;

interface DecisionFormProps {
  /** The choices, in order: a report offers dismiss too, a user's page only sanctions. */
  actions: readonly DecisionAction[];
  /** Who the sanction falls on, for the confirmation. */
  targetName: string;
  /** Sends the decision; true when it was taken (the form then resets). */
  onDecide: (decision: Decision) => Promise<boolean>;
  busy: boolean;
  legend?: string;
}

function submitLabel(action: DecisionAction, days: string): string {
  const t = koAdmin.resolve.submit;
  switch (action) {
    case 'dismiss':
      return t.dismiss;
    case 'warn':
      return t.warn;
    case 'suspend':
      return t.suspend(parseDays(days));
    case 'ban':
      return t.ban;
  }
}

/**
 * The decision on a report or a user: 기각 / 경고 / 정지 N일 / 영구 정지 with its reason (required
 * but for a dismissal, at most 200 characters, counted as typed). Suspensions and bans are
 * confirmed in a dialog first: they end the user's sessions at once.
 */
export function DecisionForm({ actions, targetName, onDecide, busy, legend = koAdmin.resolve.action }: DecisionFormProps) {
  const t = koAdmin.resolve;
  const name = useId();
  const [action, setAction] = useState<DecisionAction>(actions[0] ?? 'warn');
  const [days, setDays] = useState('7');
  const [reason, setReason] = useState('');
  const [errors, setErrors] = useState<DecisionErrors>({});
  const [pending, setPending] = useState<Decision | null>(null);

  async function decide(decision: Decision) {
    const taken = await onDecide(decision);
    setPending(null);
    if (taken) {
      setReason('');
      setErrors({});
    }
  }

  function onSubmit(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    const checked = checkDecision({ action, days, reason });
    if (!checked.ok) {
      setErrors(checked.errors);
      return;
    }
    setErrors({});
    if (needsConfirmation(checked.decision.action)) setPending(checked.decision);
    else void decide(checked.decision);
  }

  const dismissing = action === 'dismiss';
  const danger = action === 'suspend' || action === 'ban';
  const length = Array.from(reason).length;

  return (
    <form className="form decision-form" onSubmit={onSubmit} noValidate>
      <fieldset className="decision-options">
        <legend className="field__label">{legend}</legend>
        <div className="decision-options__grid">
          {actions.map((option) => (
            <label key={option} className={`decision-option decision-option--${option}`} data-checked={action === option || undefined}>
              <input
                type="radio"
                name={name}
                value={option}
                checked={action === option}
                onChange={() => {
                  setAction(option);
                  setErrors({});
                }}
              />
              <span>{t.actions[option]}</span>
            </label>
          ))}
        </div>
      </fieldset>
      {action === 'suspend' ? (
        <div className="decision-days">
          <TextField
            label={t.days}
            hint={t.daysHint}
            inputMode="numeric"
            value={days}
            error={errors.days ?? null}
            onChange={(event) => {
              setDays(event.target.value.replace(/\D/g, '').slice(0, 3));
            }}
          />
          <div className="decision-days__quick" role="group" aria-label={t.quickDays}>
            {QUICK_DAYS.map((value) => (
              <button
                key={value}
                type="button"
                className="chip chip--button"
                aria-pressed={days === String(value)}
                onClick={() => {
                  setDays(String(value));
                }}
              >
                {t.dayOption(value)}
              </button>
            ))}
          </div>
        </div>
      ) : null}
      <TextAreaField
        label={dismissing ? t.note : t.reason}
        hint={dismissing ? t.noteHint : t.reasonHint}
        rows={3}
        value={reason}
        error={errors.reason ?? null}
        count={{ length, max: REASON_MAX_CHARS, text: t.counter(length, REASON_MAX_CHARS) }}
        onChange={(event) => {
          setReason(event.target.value);
        }}
      />
      <Button type="submit" block variant={danger ? 'danger' : 'primary'} loading={busy && pending === null}>
        {busy ? t.submitting : submitLabel(action, days)}
      </Button>
      <ConfirmDialog
        open={pending !== null}
        danger
        busy={busy}
        title={pending?.action === 'ban' ? t.confirmBanTitle : t.confirmSuspendTitle(pending?.days ?? 0)}
        message={t.confirmMessage(targetName, pending?.reason ?? "")}
        confirmLabel={pending?.action === 'ban' ? t.confirmBan : t.confirmSuspend}
        onCancel={() => {
          setPending(null);
        }}
        onConfirm={() => {
          if (pending) void decide(pending);
        }}
      />
    </form>
  );
}
