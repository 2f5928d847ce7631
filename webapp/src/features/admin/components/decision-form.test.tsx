import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { koAdmin } from '@/i18n/ko-admin';
import { decisionActions, type Decision } from '../lib/decision';
import { DecisionForm } from './decision-form';

const t = koAdmin.resolve;

function setup() {
  const onDecide = vi.fn<(decision: Decision) => Promise<boolean>>().mockResolvedValue(true);
  const user = userEvent.setup();
  render(<DecisionForm actions={decisionActions} targetName="달빛" onDecide={onDecide} busy={false} />);
  return { onDecide, user };
}

describe('DecisionForm', () => {
  it('dismisses without a reason and without asking', async () => {
    const { onDecide, user } = setup();
    expect(screen.getByRole('radio', { name: t.actions.dismiss })).toBeChecked();
    await user.click(screen.getByRole('button', { name: t.submit.dismiss }));
    expect(onDecide).toHaveBeenCalledWith({ action: 'dismiss', reason: '' });
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
  });

  it('refuses a warning without a reason, then sends it with one', async () => {
    const { onDecide, user } = setup();
    await user.click(screen.getByRole('radio', { name: t.actions.warn }));
    await user.click(screen.getByRole('button', { name: t.submit.warn }));
    expect(screen.getByText(t.errors.reasonRequired)).toBeInTheDocument();
    expect(onDecide).not.toHaveBeenCalled();
    await user.type(screen.getByLabelText(t.reason), '욕설');
    await user.click(screen.getByRole('button', { name: t.submit.warn }));
    expect(onDecide).toHaveBeenCalledWith({ action: 'warn', reason: '욕설' });
  });

  it('counts the reason and refuses more than 200 characters', async () => {
    const { onDecide, user } = setup();
    await user.click(screen.getByRole('radio', { name: t.actions.warn }));
    const reason = screen.getByLabelText(t.reason);
    await user.click(reason);
    await user.paste('가'.repeat(201));
    expect(screen.getByText('201/200')).toHaveClass('field__counter--over');
    await user.click(screen.getByRole('button', { name: t.submit.warn }));
    expect(screen.getByText(t.errors.reasonTooLong)).toBeInTheDocument();
    expect(onDecide).not.toHaveBeenCalled();
  });

  it('needs 1–365 days for a suspension and confirms it first', async () => {
    const { onDecide, user } = setup();
    await user.click(screen.getByRole('radio', { name: t.actions.suspend }));
    const days = screen.getByLabelText(t.days);
    await user.clear(days);
    await user.type(days, '400');
    await user.type(screen.getByLabelText(t.reason), '반복된 욕설');
    expect(screen.queryByRole('button', { name: '400일 정지하기' })).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: t.submit.suspend(null) }));
    expect(screen.getByText(t.errors.daysInvalid)).toBeInTheDocument();
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: '30일' }));
    await user.click(screen.getByRole('button', { name: '30일 정지하기' }));
    const dialog = screen.getByRole('alertdialog', { name: t.confirmSuspendTitle(30) });
    expect(dialog).toHaveTextContent('사유: 반복된 욕설');
    expect(onDecide).not.toHaveBeenCalled();
    await user.click(within(dialog).getByRole('button', { name: t.confirmSuspend }));
    expect(onDecide).toHaveBeenCalledWith({ action: 'suspend', days: 30, reason: '반복된 욕설' });
  });

  it('sends nothing when a ban is not confirmed', async () => {
    const { onDecide, user } = setup();
    await user.click(screen.getByRole('radio', { name: t.actions.ban }));
    await user.type(screen.getByLabelText(t.reason), '협박');
    await user.click(screen.getByRole('button', { name: t.submit.ban }));
    const dialog = screen.getByRole('alertdialog', { name: t.confirmBanTitle });
    await user.click(within(dialog).getByRole('button', { name: koAdmin.app.cancel }));
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    expect(onDecide).not.toHaveBeenCalled();
    await user.click(screen.getByRole('button', { name: t.submit.ban }));
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: t.confirmBan }));
    expect(onDecide).toHaveBeenCalledWith({ action: 'ban', reason: '협박' });
  });
});
