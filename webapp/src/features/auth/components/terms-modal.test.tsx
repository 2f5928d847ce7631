import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { ko } from '@/i18n/ko';
import { renderRoute } from '@/test/render';
import { readTermsAgreement } from '../hooks/registration-draft';
import { TermsModal } from './terms-modal';

function renderModal(onClose = vi.fn()) {
  const view = renderRoute(<TermsModal open onClose={onClose} />, { path: '/login', extraPaths: ['/register'] });
  return { ...view, onClose };
}

describe('TermsModal', () => {
  it('warns and stays when a required term is unticked', async () => {
    const user = userEvent.setup();
    const { router } = renderModal();
    await user.click(screen.getByRole('checkbox', { name: /서비스 이용약관/ }));
    await user.click(screen.getByRole('checkbox', { name: /개인정보 처리방침/ }));
    await user.click(screen.getByRole('button', { name: ko.terms.next }));
    expect(screen.getByRole('alert')).toHaveTextContent(ko.terms.requiredWarning);
    expect(router.state.location.pathname).toBe('/login');
  });

  it('warns when nothing is ticked', async () => {
    const user = userEvent.setup();
    renderModal();
    await user.click(screen.getByRole('button', { name: ko.terms.next }));
    expect(screen.getByRole('alert')).toHaveTextContent(ko.terms.requiredWarning);
  });

  it('goes to /register after agree all', async () => {
    const user = userEvent.setup();
    const { router } = renderModal();
    await user.click(screen.getByRole('button', { name: ko.terms.agreeAll }));
    for (const checkbox of screen.getAllByRole('checkbox')) expect(checkbox).toBeChecked();
    await user.click(screen.getByRole('button', { name: ko.terms.next }));
    expect(router.state.location.pathname).toBe('/register');
    expect(readTermsAgreement()).toEqual({ service: true, privacy: true, youth: true, improve: true, alarm: true });
  });

  it('goes on with only the required terms ticked', async () => {
    const user = userEvent.setup();
    const { router } = renderModal();
    for (const name of [/서비스 이용약관/, /개인정보 처리방침/, /청소년 보호정책/]) {
      await user.click(screen.getByRole('checkbox', { name }));
    }
    await user.click(screen.getByRole('button', { name: ko.terms.next }));
    expect(router.state.location.pathname).toBe('/register');
    expect(readTermsAgreement()).toEqual({ service: true, privacy: true, youth: true, improve: false, alarm: false });
  });

  it('agree all a second time unticks everything', async () => {
    const user = userEvent.setup();
    renderModal();
    const agreeAll = screen.getByRole('button', { name: ko.terms.agreeAll });
    await user.click(agreeAll);
    await user.click(agreeAll);
    for (const checkbox of screen.getAllByRole('checkbox')) expect(checkbox).not.toBeChecked();
  });

  it('each label links to its terms page', () => {
    renderModal();
    expect(screen.getByRole('link', { name: /서비스 이용약관/ })).toHaveAttribute('href', '/terms/service-agreement');
    expect(screen.getByRole('link', { name: /알림 수신 동의/ })).toHaveAttribute('href', '/terms/notification-consent');
  });

  it('closes on Escape and on a click outside', async () => {
    const user = userEvent.setup();
    const { onClose } = renderModal();
    await user.keyboard('{Escape}');
    expect(onClose).toHaveBeenCalledTimes(1);
    await user.click(screen.getByTestId('modal-backdrop'));
    expect(onClose).toHaveBeenCalledTimes(2);
  });

  it('keeps focus inside the dialog', async () => {
    const user = userEvent.setup();
    renderModal();
    const dialog = screen.getByRole('dialog');
    for (let i = 0; i < 15; i += 1) {
      await user.tab();
      expect(dialog).toContainElement(document.activeElement as HTMLElement);
    }
  });
});
