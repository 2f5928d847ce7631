import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { ko } from '@/i18n/ko';
import { NewPasswordFields, type NewPassword } from './new-password-fields';

function Harness({ error, onValue }: { error?: string; onValue?: (value: NewPassword) => void }) {
  const [value, setValue] = useState<NewPassword>({ password: '', confirmation: '' });
  return (
    <NewPasswordFields
      value={value}
      error={error}
      onChange={(next) => {
        setValue(next);
        onValue?.(next);
      }}
    />
  );
}

describe('NewPasswordFields', () => {
  it('edits the password and its confirmation apart', async () => {
    const onValue = vi.fn<(value: NewPassword) => void>();
    const user = userEvent.setup();
    render(<Harness onValue={onValue} />);
    const password = screen.getByLabelText(ko.newPassword.label);
    const confirmation = screen.getByLabelText(ko.newPassword.confirmation);
    for (const input of [password, confirmation]) {
      expect(input).toHaveAttribute('type', 'password');
      expect(input).toHaveAttribute('autocomplete', 'new-password');
    }
    // The rule, stated before anything is typed, in 해요체.
    expect(password).toHaveAccessibleDescription(ko.newPassword.rule);
    expect(confirmation).toHaveAttribute('placeholder', ko.newPassword.confirmationPlaceholder);
    await user.type(password, 'abcdef');
    await user.type(confirmation, 'abcdeg');
    expect(password).toHaveValue('abcdef');
    expect(confirmation).toHaveValue('abcdeg');
    expect(onValue).toHaveBeenLastCalledWith({ password: 'abcdef', confirmation: 'abcdeg' });
  });

  it('says the confirmation differs as it is typed, not while it is still the password’s beginning', async () => {
    const user = userEvent.setup();
    render(<Harness />);
    const confirmation = screen.getByLabelText(ko.newPassword.confirmation);
    await user.type(screen.getByLabelText(ko.newPassword.label), 'abcdefg1');
    await user.type(confirmation, 'abcd');
    expect(confirmation).not.toHaveAccessibleDescription(ko.newPassword.mismatch);
    await user.type(confirmation, 'x');
    expect(confirmation).toHaveAccessibleDescription(ko.newPassword.mismatch);
    await user.clear(confirmation);
    await user.type(confirmation, 'abcdefg1');
    expect(confirmation).not.toHaveAccessibleDescription(ko.newPassword.mismatch);
    await user.type(confirmation, '2');
    expect(confirmation).toHaveAccessibleDescription(ko.newPassword.mismatch);
  });

  it('shows both passwords as typed while the toggle is pressed', async () => {
    const user = userEvent.setup();
    render(<Harness />);
    const toggle = screen.getByRole('button', { name: ko.newPassword.show });
    expect(toggle).toHaveAttribute('aria-pressed', 'false');
    await user.click(toggle);
    expect(toggle).toHaveAttribute('aria-pressed', 'true');
    expect(screen.getByLabelText(ko.newPassword.label)).toHaveAttribute('type', 'text');
    expect(screen.getByLabelText(ko.newPassword.confirmation)).toHaveAttribute('type', 'text');
    await user.click(toggle);
    expect(screen.getByLabelText(ko.newPassword.label)).toHaveAttribute('type', 'password');
  });

  it('shows a refusal under the confirmation', () => {
    render(<Harness error={ko.validation.NEW_PASSWORD_MISMATCH} />);
    const confirmation = screen.getByLabelText(ko.newPassword.confirmation);
    expect(confirmation).toHaveAttribute('aria-invalid', 'true');
    expect(confirmation).toHaveAccessibleDescription(ko.validation.NEW_PASSWORD_MISMATCH);
    expect(screen.getByLabelText(ko.newPassword.label)).not.toHaveAttribute('aria-invalid');
  });
});
