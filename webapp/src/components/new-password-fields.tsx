import { ko } from '@/i18n/ko';
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
}

/** A new password and its confirmation, for the password reset and change forms. */
export function NewPasswordFields({ value, onChange, error }: NewPasswordFieldsProps) {
  return (
    <>
      <TextField
        label={ko.newPassword.label}
        name="new-password"
        type="password"
        autoComplete="new-password"
        placeholder={ko.newPassword.placeholder}
        value={value.password}
        onChange={(event) => {
          onChange({ ...value, password: event.target.value });
        }}
      />
      <TextField
        label={ko.newPassword.confirmation}
        name="confirm-password"
        type="password"
        autoComplete="new-password"
        placeholder={ko.newPassword.confirmationPlaceholder}
        value={value.confirmation}
        error={error}
        onChange={(event) => {
          onChange({ ...value, confirmation: event.target.value });
        }}
      />
    </>
  );
}
