interface FormMessageProps {
  message: string | null;
  tone?: 'error' | 'success' | 'info';
  id?: string;
}

/** A form-level message in a live region that exists before it has text, so it is announced. */
export function FormMessage({ message, tone = 'error', id }: FormMessageProps) {
  return (
    <p
      id={id}
      className={`form-message form-message--${tone}`}
      role={tone === 'error' ? 'alert' : 'status'}
      aria-live={tone === 'error' ? 'assertive' : 'polite'}
      data-empty={message ? undefined : true}
    >
      {message}
    </p>
  );
}
