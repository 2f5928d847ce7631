import { useRef, useState } from 'react';
import { useServiceStatus } from '@/api/server-time';
import { Button } from '@/components/button';
import { ComingSoon } from '@/components/coming-soon';
import { Modal } from '@/components/modal';
import { ko } from '@/i18n/ko';

/**
 * The closed hours as a visitor meets them on the login screen: the opening hours, the time
 * until the next opening and the comment board, where a guest posts as 익명. It closes on
 * request, so an account can still log in.
 */
export function ComingSoonModal() {
  const status = useServiceStatus();
  const [dismissed, setDismissed] = useState(false);
  // Focus the way out rather than the comment field: a phone would open its keyboard.
  const closeButton = useRef<HTMLButtonElement>(null);
  const dismiss = () => {
    setDismissed(true);
  };

  return (
    <Modal
      open={status?.isOpen === false && !dismissed}
      title={ko.closed.title}
      description={ko.closed.description}
      onClose={dismiss}
      initialFocus={closeButton}
      className="coming-soon-modal"
    >
      <ComingSoon nextOpenAt={status?.nextOpenAt ?? null} />
      <div className="modal__actions">
        <Button ref={closeButton} variant="ghost" block onClick={dismiss}>
          {ko.app.close}
        </Button>
      </div>
    </Modal>
  );
}
