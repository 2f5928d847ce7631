import { useState } from 'react';
import { ko } from '@/i18n/ko';
import { confirmationDiffers } from '@/lib/validation';
import { Icon } from './icons';
import { TextField } from './text-field';

export interface NewPassword {
  password: string;
  confirmation: string;
}

interface NewPasswordFieldsProps {
  value: NewPassword;
  onChange: (value: NewPassword) => void;
  /** Why the pair was refused; shown under the confirmation. */
  error?: string | null;
  /** The fields' labels; a new password's by default (reset, change). */
  labels?: { password: string; confirmation: string };
}

/**
 * A password being chosen (sign-up, reset, change) and its confirmation. The rule is stated
 * under the first field before anything is typed; the confirmation says it differs as it is
 * typed; a toggle shows both as typed, so a typo is seen before it locks anyone out.
 */
export function NewPasswordFields({ value, onChange, error, labels }: NewPasswordFieldsProps) {
  const [shown, setShown] = useState(false);
  const type = shown ? 'text' : 'password';
  const differs = confirmationDiffers(value);
  return (
    <>
      <TextField
        label={labels?.password ?? ko.newPassword.label}
        name="new-password"
        type={type}
        autoComplete="new-password"
        autoCapitalize="none"
        spellCheck={false}
        hint={ko.newPassword.rule}
        value={value.password}
        onChange={(event) => {
          onChange({ ...value, password: event.target.value });
        }}
        trailing={
          <button
            type="button"
            className="password-toggle"
            aria-label={ko.newPassword.show}
            title={ko.newPassword.show}
            aria-pressed={shown}
            onClick={() => {
              setShown((current) => !current);
            }}
          >
            <Icon name={shown ? 'eyeOff' : 'eye'} size={22} />
          </button>
        }
      />
      <TextField
        label={labels?.confirmation ?? ko.newPassword.confirmation}
        name="confirm-password"
        type={type}
        autoComplete="new-password"
        autoCapitalize="none"
        spellCheck={false}
        placeholder={ko.newPassword.confirmationPlaceholder}
        value={value.confirmation}
        error={error ?? (differs ? ko.newPassword.mismatch : null)}
        onChange={(event) => {
          onChange({ ...value, confirmation: event.target.value });
        }}
      />
    </>
  );
}
