import { useId, type InputHTMLAttributes, type ReactNode, type Ref } from 'react';

interface TextFieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'id'> {
  label: string;
  /** Help text under the field, always shown. */
  hint?: ReactNode;
  /** Error text under the field; marks the field invalid. */
  error?: string | null;
  /** Positive result under the field, such as an available username. */
  success?: string | null;
  /** A control beside the input, such as a check button. */
  trailing?: ReactNode;
  /** Something shown at the end of the label row, such as a countdown. */
  labelAside?: ReactNode;
  id?: string;
  ref?: Ref<HTMLInputElement>;
}

/**
 * A labelled input. Hint, error and success texts are tied to the input with aria-describedby
 * and announced politely when they change.
 */
export function TextField({ label, hint, error, success, trailing, labelAside, id, className, ref, ...rest }: TextFieldProps) {
  const generated = useId();
  const inputId = id ?? generated;
  const hintId = `${inputId}-hint`;
  const messageId = `${inputId}-message`;
  const message = error ?? success ?? null;
  const describedBy = [hint ? hintId : null, message ? messageId : null].filter(Boolean).join(' ') || undefined;

  return (
    <div className={['field', className ?? ''].filter(Boolean).join(' ')}>
      <div className="field__label-row">
        <label className="field__label" htmlFor={inputId}>
          {label}
        </label>
        {labelAside}
      </div>
      <div className={trailing ? 'field__row' : undefined}>
        <input
          ref={ref}
          id={inputId}
          className="field__input"
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy}
          {...rest}
        />
        {trailing}
      </div>
      {hint ? (
        <p id={hintId} className="field__hint">
          {hint}
        </p>
      ) : null}
      <p
        id={messageId}
        className={`field__message ${error ? 'field__message--error' : 'field__message--success'}`}
        aria-live="polite"
      >
        {message}
      </p>
    </div>
  );
}
