import { Button } from '@/components/button';
import { Icon } from '@/components/icons';
import { Modal } from '@/components/modal';
import { ko } from '@/i18n/ko';

interface MegaphoneIntroProps {
  open: boolean;
  onConfirm: () => void;
  onClose: () => void;
}

/** Shown once, before the first megaphone modal: what a megaphone does. */
export function MegaphoneIntro({ open, onConfirm, onClose }: MegaphoneIntroProps) {
  return (
    <Modal open={open} title={ko.megaphone.introTitle} onClose={onClose} className="megaphone-intro">
      <div className="megaphone-intro__icon" aria-hidden="true">
        <Icon name="megaphone" size={34} />
      </div>
      <ul className="megaphone-intro__lines">
        {ko.megaphone.introLines.map((line) => (
          <li key={line}>{line}</li>
        ))}
      </ul>
      <div className="modal__actions">
        <Button block onClick={onConfirm}>
          {ko.megaphone.introConfirm}
        </Button>
      </div>
    </Modal>
  );
}
