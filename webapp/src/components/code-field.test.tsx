import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ko } from '@/i18n/ko';
import { useCountdown } from '@/lib/countdown';
import { CodeField } from './code-field';

/** The field as the forms hold it: its own value, and a countdown started by a button. */
function Harness({ error, onCode }: { error?: string; onCode?: (code: string) => void }) {
  const [code, setCode] = useState('');
  const countdown = useCountdown(180);
  return (
    <>
      <CodeField
        value={code}
        countdown={countdown}
        error={error}
        onChange={(value) => {
          setCode(value);
          onCode?.(value);
        }}
        trailing={
          <button type="button" onClick={countdown.start}>
            {ko.findPassword.resend}
          </button>
        }
      />
    </>
  );
}

afterEach(() => {
  vi.useRealTimers();
});

describe('CodeField', () => {
  it('keeps digits only, at most six', async () => {
    const onCode = vi.fn<(code: string) => void>();
    const user = userEvent.setup();
    render(<Harness onCode={onCode} />);
    const input = screen.getByLabelText(ko.codeField.label);
    expect(input).toHaveAttribute('placeholder', ko.codeField.placeholder);
    expect(input).toHaveAttribute('autocomplete', 'one-time-code');
    await user.type(input, '12a3-45678');
    expect(input).toHaveValue('123456');
    expect(onCode).toHaveBeenLastCalledWith('123456');
  });

  it('shows the countdown only once started, and says when the code expired', () => {
    vi.useFakeTimers();
    render(<Harness />);
    expect(screen.queryByRole('timer')).not.toBeInTheDocument();
    act(() => {
      screen.getByRole('button', { name: ko.findPassword.resend }).click();
    });
    expect(screen.getByRole('timer')).toHaveTextContent('03:00');
    expect(screen.getByRole('timer')).toHaveAccessibleName(`${ko.codeField.remaining} 03:00`);
    act(() => {
      vi.advanceTimersByTime(61_000);
    });
    expect(screen.getByRole('timer')).toHaveTextContent('01:59');
    expect(screen.queryByText(ko.codeField.expired)).not.toBeInTheDocument();
    act(() => {
      vi.advanceTimersByTime(120_000);
    });
    expect(screen.getByRole('timer')).toHaveTextContent('00:00');
    expect(screen.getByText(ko.codeField.expired)).toBeInTheDocument();
    expect(screen.getByLabelText(ko.codeField.label)).toHaveAttribute('aria-invalid', 'true');
  });

  it('shows a check error instead of the expiry notice', () => {
    vi.useFakeTimers();
    render(<Harness error={ko.validation.CODE_REQUIRED} />);
    act(() => {
      screen.getByRole('button', { name: ko.findPassword.resend }).click();
    });
    act(() => {
      vi.advanceTimersByTime(181_000);
    });
    expect(screen.getByText(ko.validation.CODE_REQUIRED)).toBeInTheDocument();
    expect(screen.queryByText(ko.codeField.expired)).not.toBeInTheDocument();
  });
});
