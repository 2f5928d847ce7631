import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { Outcome } from '@/api/outcome';
import { koAdmin } from '@/i18n/ko-admin';
import { ReasonDialog } from './reason-dialog';

function setup(outcome: Outcome<unknown>) {
  const submit = vi.fn<(reason: string) => Promise<Outcome<unknown>>>(() => Promise.resolve(outcome));
  const onDone = vi.fn<(done: Outcome<unknown>) => Promise<void>>(() => Promise.resolve());
  const onClose = vi.fn();
  render(
    <ReasonDialog
      open
      title="제재를 해제할까요?"
      message="해제한 이유를 감사 기록에 남겨요."
      target={<p>욕설</p>}
      reasonLabel="해제 사유"
      confirm="해제하기"
      pending="해제 중…"
      failed="해제하지 못했어요."
      busy={false}
      submit={submit}
      onDone={onDone}
      onClose={onClose}
    />,
  );
  return { user: userEvent.setup(), submit, onDone, onClose };
}

describe('ReasonDialog', () => {
  it('needs a reason, sends it trimmed, and closes once the server says yes', async () => {
    const { user, submit, onDone, onClose } = setup({ ok: true, data: {} });
    await user.click(screen.getByRole('button', { name: '해제하기' }));
    expect(await screen.findByText(koAdmin.resolve.errors.reasonRequired)).toBeInTheDocument();
    expect(submit).not.toHaveBeenCalled();
    await user.type(screen.getByLabelText('해제 사유'), '  오해였음  ');
    await user.click(screen.getByRole('button', { name: '해제하기' }));
    await waitFor(() => {
      expect(onClose).toHaveBeenCalled();
    });
    expect(submit).toHaveBeenCalledWith('오해였음');
    expect(onDone).toHaveBeenCalledWith({ ok: true, data: {} });
  });

  it('shows the server refusal and stays open', async () => {
    const refusal = { ok: false, network: false, status: 409, code: 'SANCTION_LIFTED', message: '이미 해제된 제재예요.' } as const;
    const { user, onDone, onClose } = setup(refusal);
    await user.type(screen.getByLabelText('해제 사유'), '오해였음');
    await user.click(screen.getByRole('button', { name: '해제하기' }));
    expect(await screen.findByText('이미 해제된 제재예요.')).toBeInTheDocument();
    expect(onDone).toHaveBeenCalledWith(refusal);
    expect(onClose).not.toHaveBeenCalled();
  });
});
