import { useEffect, useId, useRef, type KeyboardEvent as ReactKeyboardEvent, type ReactNode, type RefObject } from 'react';
import { createPortal } from 'react-dom';

const FOCUSABLE = [
  'a[href]',
  'button:not([disabled])',
  'input:not([disabled]):not([type="hidden"])',
  'select:not([disabled])',
  'textarea:not([disabled])',
  '[tabindex]:not([tabindex="-1"])',
].join(',');

interface ModalProps {
  open: boolean;
  title: ReactNode;
  /** Closing by Escape or by a click outside; omit to make the dialog stay until answered. */
  onClose?: () => void;
  children: ReactNode;
  description?: ReactNode;
  /** alertdialog for messages that need an answer; dialog otherwise. */
  role?: 'dialog' | 'alertdialog';
  /** The element to focus first; defaults to the first focusable element. */
  initialFocus?: RefObject<HTMLElement | null>;
  className?: string;
}

/**
 * A modal dialog: rendered over the page, focus kept inside while open and given back to the
 * opener afterwards, Escape and a click on the backdrop close it, the page behind does not scroll.
 */
export function Modal({ open, title, onClose, children, description, role = 'dialog', initialFocus, className }: ModalProps) {
  const titleId = useId();
  const descriptionId = useId();
  const panelRef = useRef<HTMLDivElement>(null);
  const onCloseRef = useRef(onClose);

  useEffect(() => {
    onCloseRef.current = onClose;
  });

  useEffect(() => {
    if (!open) return;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const panel = panelRef.current;
    const target = initialFocus?.current ?? panel?.querySelector<HTMLElement>(FOCUSABLE) ?? panel;
    target?.focus();
    // Focus that lands outside (a click on the page behind, a removed element) comes back in;
    // not from another dialog opened over this one (an invitation that reaches any page),
    // which keeps its own.
    const keepFocusInside = (event: FocusEvent) => {
      if (!panel || !(event.target instanceof Element) || panel.contains(event.target)) return;
      if (event.target.closest('[aria-modal="true"]')) return;
      panel.focus();
    };
    document.addEventListener('focusin', keepFocusInside);
    // Focus can fall out to the page with no focusin to bring it back (a button pressed inside
    // gives way while it works, as the board's 남기기 does): Escape still closes the dialog on
    // top. Keys inside a dialog are its own (onKeyDown below).
    const escapeFromOutside = (event: KeyboardEvent) => {
      if (event.key !== 'Escape' || !panel) return;
      if (event.target instanceof Element && event.target.closest('[aria-modal="true"]')) return;
      const dialogs = document.querySelectorAll('[aria-modal="true"]');
      if (dialogs[dialogs.length - 1] !== panel) return;
      onCloseRef.current?.();
    };
    document.addEventListener('keydown', escapeFromOutside);
    const { overflow } = document.body.style;
    document.body.style.overflow = 'hidden';
    return () => {
      document.removeEventListener('focusin', keepFocusInside);
      document.removeEventListener('keydown', escapeFromOutside);
      document.body.style.overflow = overflow;
      opener?.focus();
    };
  }, [open, initialFocus]);

  if (!open) return null;

  function onKeyDown(event: ReactKeyboardEvent<HTMLDivElement>) {
    if (event.key === 'Escape') {
      if (onClose) {
        event.stopPropagation();
        onClose();
      }
      return;
    }
    if (event.key !== 'Tab' || !panelRef.current) return;
    const focusables = [...panelRef.current.querySelectorAll<HTMLElement>(FOCUSABLE)];
    const first = focusables[0];
    const last = focusables[focusables.length - 1];
    if (!first || !last) {
      event.preventDefault();
      return;
    }
    const active = document.activeElement;
    if (event.shiftKey && (active === first || !panelRef.current.contains(active))) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && (active === last || !panelRef.current.contains(active))) {
      event.preventDefault();
      first.focus();
    }
  }

  return createPortal(
    <div
      className="modal-backdrop"
      data-testid="modal-backdrop"
      onMouseDown={(event) => {
        if (event.target === event.currentTarget) onClose?.();
      }}
    >
      <div
        ref={panelRef}
        className={['modal', className ?? ''].filter(Boolean).join(' ')}
        role={role}
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={description ? descriptionId : undefined}
        tabIndex={-1}
        onKeyDown={onKeyDown}
      >
        <h2 id={titleId} className="modal__title">
          {title}
        </h2>
        {description ? (
          <div id={descriptionId} className="modal__description">
            {description}
          </div>
        ) : null}
        {children}
      </div>
    </div>,
    document.body,
  );
}
