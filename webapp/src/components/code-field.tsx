import type { ReactNode, Ref } from 'react';
import { limits } from '@/config/limits';
import { ko } from '@/i18n/ko';
import type { Countdown } from '@/lib/countdown';
import { CountdownBadge } from './countdown-badge';
import { TextField } from './text-field';

interface CodeFieldProps {
  value: string;
  /** Called with digits only, at most the code's length. */
  onChange: (code: string) => void;
  /** The code's validity: its time left shows beside the label once started, and an expired code says so. */
  countdown: Countdown;
  /** A check's error; shown instead of the expiry notice. */
  error?: string | null;
  /** A control beside the input, such as a resend button. */
  trailing?: ReactNode;
  ref?: Ref<HTMLInputElement>;
}

/** The SMS verification code input with its countdown. */
export function CodeField({ value, onChange, countdown, error, trailing, ref }: CodeFieldProps) {
  return (
    <TextField
      ref={ref}
      label={ko.codeField.label}
      name="code"
      inputMode="numeric"
      autoComplete="one-time-code"
      pattern="\d*"
      maxLength={limits.codeDigits}
      placeholder={ko.codeField.placeholder}
      value={value}
      error={error ?? (countdown.expired ? ko.codeField.expired : null)}
      onChange={(event) => {
        onChange(event.target.value.replace(/\D/g, '').slice(0, limits.codeDigits));
      }}
      labelAside={countdown.started ? <CountdownBadge remaining={countdown.remaining} /> : null}
      trailing={trailing}
    />
  );
}
