import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { Modal } from './modal';

describe('Modal', () => {
  it('closes on Escape when focus fell out of it to the page', () => {
    const onClose = vi.fn();
    render(
      <Modal open title="창" onClose={onClose}>
        <button type="button">안</button>
      </Modal>,
    );
    // A focused button that gave way (disabled while it works) leaves focus on the page.
    (document.activeElement as HTMLElement | null)?.blur();
    expect(document.activeElement).toBe(document.body);
    fireEvent.keyDown(document.body, { key: 'Escape' });
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it('closes only the dialog on top, and not one that must be answered', () => {
    const closeBelow = vi.fn();
    const closeAbove = vi.fn();
    // The one above opens over the one below (a confirmation over the mood question).
    const { rerender } = render(
      <Modal open title="아래" onClose={closeBelow}>
        <Modal open={false} title="위" onClose={closeAbove}>
          <button type="button">안</button>
        </Modal>
      </Modal>,
    );
    rerender(
      <Modal open title="아래" onClose={closeBelow}>
        <Modal open title="위" onClose={closeAbove}>
          <button type="button">안</button>
        </Modal>
      </Modal>,
    );
    (document.activeElement as HTMLElement | null)?.blur();
    fireEvent.keyDown(document.body, { key: 'Escape' });
    expect(closeAbove).toHaveBeenCalledTimes(1);
    expect(closeBelow).not.toHaveBeenCalled();

    rerender(
      <Modal open title="아래" onClose={closeBelow}>
        <Modal open title="위">
          <button type="button">안</button>
        </Modal>
      </Modal>,
    );
    (document.activeElement as HTMLElement | null)?.blur();
    fireEvent.keyDown(document.body, { key: 'Escape' });
    expect(closeBelow).not.toHaveBeenCalled();
    expect(screen.getByRole('dialog', { name: '위' })).toBeInTheDocument();
  });

  it('takes Escape inside it once', () => {
    const onClose = vi.fn();
    render(
      <Modal open title="창" onClose={onClose}>
        <button type="button">안</button>
      </Modal>,
    );
    fireEvent.keyDown(screen.getByRole('button', { name: '안' }), { key: 'Escape' });
    expect(onClose).toHaveBeenCalledTimes(1);
  });
});
