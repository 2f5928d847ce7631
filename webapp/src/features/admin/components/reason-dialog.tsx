import { useState, type ReactNode } from 'react';
import { serverMessage, type Outcome } from '@/api/outcome';
import { Button, type ButtonVariant } from '@/components/button';
import { Modal } from '@/components/modal';
import { koAdmin } from '@/i18n/ko-admin';
import { checkDecision, REASON_MAX_CHARS } from '../lib/decision';
import { TextAreaField } from './text-area-field';

interface ReasonDialogProps {
  open: boolean;
  title: string;
  message: string;
  /** What the action is about, shown above the reason. */
  target: ReactNode;
  reasonLabel: string;
  confirm: string;
  pending: string;
  /** Shown when the server refuses without a message of its own. */
  failed: string;
  variant?: ButtonVariant;
  busy: boolean;
  /** Sends the checked reason. */
  submit: (reason: string) => Promise<Outcome<unknown>>;
  /** After the server said yes, or with a refusal that changed what the page shows (`code`). */
  onDone: (outcome: Outcome<unknown>) => Promise<unknown>;
  onClose: () => void;
}

/**
 * An operator's action that needs only a reason for the audit log (lifting a sanction, hiding a
 * comment): a dialog with the reason, checked by a sanction's rule (1–200 characters).
 */
export function ReasonDialog({ open, title, message, target, reasonLabel, confirm, pending, failed, variant, busy, submit, onDone, onClose }: ReasonDialogProps) {
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const length = Array.from(reason).length;

  function close() {
    setReason('');
    setError(null);
    onClose();
  }

  async function send() {
    const checked = checkDecision({ action: 'warn', days: '', reason });
    if (!checked.ok) {
      setError(checked.errors.reason ?? null);
      return;
    }
    const outcome = await submit(checked.decision.reason);
    if (!outcome.ok) {
      if (outcome.network) setError(koAdmin.app.networkFailed);
      else if (outcome.status !== 401) setError(serverMessage(outcome) ?? failed);
      if (!outcome.network) await onDone(outcome);
      return;
    }
    await onDone(outcome);
    close();
  }

  return (
    <Modal open={open} title={title} description={message} onClose={busy ? undefined : close}>
      <div className="form lift-form">
        {target}
        <TextAreaField
          label={reasonLabel}
          rows={3}
          value={reason}
          error={error}
          count={{ length, max: REASON_MAX_CHARS, text: koAdmin.resolve.counter(length, REASON_MAX_CHARS) }}
          onChange={(event) => {
            setReason(event.target.value);
          }}
        />
      </div>
      <div className="modal__actions modal__actions--row">
        <Button variant="secondary" block onClick={close} disabled={busy}>
          {koAdmin.app.cancel}
        </Button>
        <Button variant={variant} block loading={busy} onClick={() => void send()}>
          {busy ? pending : confirm}
        </Button>
      </div>
    </Modal>
  );
}
