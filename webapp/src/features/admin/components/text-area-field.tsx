import { useId, type TextareaHTMLAttributes } from 'react';

interface TextAreaFieldProps extends Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'id'> {
  label: string;
  hint?: string;
  error?: string | null;
  /** Characters typed and the most allowed, shown as "12/200". */
  count?: { length: number; max: number; text: string };
}

/** A labelled text area in the look of TextField, with a live character counter. */
export function TextAreaField({ label, hint, error, count, className, ...rest }: TextAreaFieldProps) {
  const id = useId();
  const hintId = `${id}-hint`;
  const messageId = `${id}-message`;
  const counterId = `${id}-counter`;
  const describedBy = [hint ? hintId : null, count ? counterId : null, error ? messageId : null].filter(Boolean).join(' ') || undefined;
  return (
    <div className={['field', className ?? ''].filter(Boolean).join(' ')}>
      <div className="field__label-row">
        <label className="field__label" htmlFor={id}>
          {label}
        </label>
        {count ? (
          <span id={counterId} className={`field__counter ${count.length > count.max ? 'field__counter--over' : ''}`}>
            {count.text}
          </span>
        ) : null}
      </div>
      <textarea id={id} className="field__input field__input--area" aria-invalid={error ? true : undefined} aria-describedby={describedBy} {...rest} />
      {hint ? (
        <p id={hintId} className="field__hint">
          {hint}
        </p>
      ) : null}
      <p id={messageId} className="field__message field__message--error" aria-live="polite">
        {error}
      </p>
    </div>
  );
}
