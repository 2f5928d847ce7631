import type { ReactNode } from 'react';
import { ko } from '@/i18n/ko';
import { Button } from './button';
import { Modal } from './modal';

interface AlertDialogProps {
  open: boolean;
  title: ReactNode;
  message?: ReactNode;
  onConfirm: () => void;
  confirmLabel?: string;
}

/** A message with one confirm button ('확인'). */
export function AlertDialog({ open, title, message, onConfirm, confirmLabel = ko.app.confirm }: AlertDialogProps) {
  return (
    <Modal open={open} title={title} description={message} onClose={onConfirm} role="alertdialog">
      <div className="modal__actions">
        <Button block onClick={onConfirm}>
          {confirmLabel}
        </Button>
      </div>
    </Modal>
  );
}

interface ConfirmDialogProps {
  open: boolean;
  title: ReactNode;
  message?: ReactNode;
  confirmLabel: string;
  cancelLabel?: string;
  onConfirm: () => void;
  onCancel: () => void;
  danger?: boolean;
  busy?: boolean;
}

/** A question with cancel and confirm buttons. */
export function ConfirmDialog({
  open,
  title,
  message,
  confirmLabel,
  cancelLabel = ko.app.cancel,
  onConfirm,
  onCancel,
  danger = false,
  busy = false,
}: ConfirmDialogProps) {
  return (
    <Modal open={open} title={title} description={message} onClose={busy ? undefined : onCancel} role="alertdialog">
      <div className="modal__actions modal__actions--row">
        <Button variant="secondary" block onClick={onCancel} disabled={busy}>
          {cancelLabel}
        </Button>
        <Button variant={danger ? 'danger' : 'primary'} block onClick={onConfirm} loading={busy}>
          {confirmLabel}
        </Button>
      </div>
    </Modal>
  );
}
