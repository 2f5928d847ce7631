import { useId, useState, type SubmitEvent } from 'react';
import { Button } from '@/components/button';
import { FormMessage } from '@/components/form-message';
import { Icon } from '@/components/icons';
import { Modal } from '@/components/modal';
import { limits, reportReasons, type ReportReason } from '@/config/limits';
import { ko } from '@/i18n/ko';
import { capLength, charLength, validateReport } from '@/lib/validation';

export interface ReportForm {
  reasons: ReportReason[];
  extraMessage: string;
}

interface ReportModalProps {
  partnerNickname: string;
  /** The report is on its way: nothing can be changed or closed. */
  busy: boolean;
  onCancel: () => void;
  onSubmit: (form: ReportForm) => void;
}

/**
 * What happened in the chat: any of the five reasons and up to 200 characters of text, at least
 * one of the two. Escape and the cancel button close it, except while the report is being sent.
 */
export function ReportModal({ partnerNickname, busy, onCancel, onSubmit }: ReportModalProps) {
  const [reasons, setReasons] = useState<ReportReason[]>([]);
  const [extra, setExtra] = useState('');
  const [error, setError] = useState<string | null>(null);
  const textId = useId();
  const counterId = useId();
  const hintId = useId();
  const count = charLength(extra);
  const max = limits.reportExtraMaxLength;

  function toggle(reason: ReportReason) {
    setReasons((current) => (current.includes(reason) ? current.filter((r) => r !== reason) : [...current, reason]));
    setError(null);
  }

  function submit(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    const problem = validateReport(reasons, extra);
    if (problem) {
      setError(ko.validation[problem]);
      return;
    }
    // In the order the modal lists them, whatever order they were ticked in.
    onSubmit({ reasons: reportReasons.filter((r) => reasons.includes(r)), extraMessage: extra.trim() });
  }

  return (
    <Modal
      open
      title={ko.report.title}
      description={ko.report.description(partnerNickname)}
      onClose={busy ? undefined : onCancel}
      className="report-modal"
    >
      <form className="report-form" onSubmit={submit} noValidate>
        <fieldset className="report-reasons" disabled={busy} aria-describedby={hintId}>
          <legend className="report-form__label">{ko.report.reasonsLegend}</legend>
          <p id={hintId} className="report-form__hint">
            {ko.report.reasonsHint}
          </p>
          <div className="report-reasons__options">
            {reportReasons.map((reason) => {
              const checked = reasons.includes(reason);
              return (
                <label key={reason} className="report-reason" data-checked={checked || undefined}>
                  <input
                    type="checkbox"
                    checked={checked}
                    onChange={() => {
                      toggle(reason);
                    }}
                  />
                  <span className="report-reason__mark" aria-hidden="true">
                    {checked ? <Icon name="check" size={14} strokeWidth={3} /> : null}
                  </span>
                  {ko.report.reasons[reason]}
                </label>
              );
            })}
          </div>
        </fieldset>

        <div className="field">
          <div className="field__label-row">
            <label className="report-form__label" htmlFor={textId}>
              {ko.report.extraLabel}
            </label>
            <span id={counterId} className="report-counter" data-full={count >= max || undefined}>
              <span aria-hidden="true">
                {count}/{max}
              </span>
              <span className="visually-hidden">{ko.report.counterLabel(count, max)}</span>
            </span>
          </div>
          <textarea
            id={textId}
            className="field__input report-form__text"
            rows={4}
            maxLength={max}
            placeholder={ko.report.extraPlaceholder}
            value={extra}
            disabled={busy}
            aria-describedby={counterId}
            onChange={(event) => {
              setExtra(capLength(event.target.value, max));
              setError(null);
            }}
          />
        </div>

        <FormMessage message={error} />
        <p className="report-form__privacy">
          <Icon name="shield" size={18} />
          <span>{ko.report.privacy}</span>
        </p>

        <div className="modal__actions modal__actions--row">
          <Button variant="secondary" block onClick={onCancel} disabled={busy}>
            {ko.app.cancel}
          </Button>
          <Button type="submit" variant="danger" block loading={busy}>
            {busy ? ko.report.submitting : ko.report.submit}
          </Button>
        </div>
      </form>
    </Modal>
  );
}
