import { useState, type SubmitEvent } from 'react';
import { Button, ButtonLink } from '@/components/button';
import { Modal } from '@/components/modal';
import { TextField } from '@/components/text-field';
import { ko } from '@/i18n/ko';
import { collapseSpaces, validateRealName } from '@/lib/validation';
import { useUpdateRealName } from '../api/update-real-name';

interface RealNameModalProps {
  open: boolean;
  userId: number;
  /** After the name was saved, with the saved name. */
  onSaved: (name: string) => Promise<unknown>;
  onClose: () => void;
}

/** Asks for the name a transfer is made under, before the first transfer (spec section 4). */
export function RealNameModal({ open, userId, onSaved, onClose }: RealNameModalProps) {
  const t = ko.likes;
  const { trigger, isMutating } = useUpdateRealName();
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);

  async function onSubmit(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    const invalid = validateRealName(name);
    if (invalid) {
      setError(ko.validation[invalid]);
      return;
    }
    const realName = collapseSpaces(name);
    const outcome = await trigger({ user_id: userId, real_name: realName });
    if (!outcome.ok) {
      setError((outcome.network ? undefined : outcome.message) ?? t.realNameFailed);
      return;
    }
    await onSaved(realName);
  }

  return (
    <Modal open={open} title={t.realNameTitle} description={t.realNameDescription} onClose={isMutating ? undefined : onClose} className="real-name-modal">
      <form className="form" onSubmit={(event) => void onSubmit(event)} noValidate>
        <TextField
          label={t.realNameLabel}
          name="realName"
          autoComplete="name"
          maxLength={20}
          placeholder={t.realNamePlaceholder}
          value={name}
          error={error}
          onChange={(event) => {
            setName(event.target.value);
            setError(null);
          }}
        />
        <div className="modal__actions modal__actions--row">
          <Button variant="secondary" block onClick={onClose} disabled={isMutating}>
            {ko.app.cancel}
          </Button>
          <Button type="submit" block loading={isMutating}>
            {isMutating ? t.realNameSaving : t.realNameSave}
          </Button>
        </div>
      </form>
      <ButtonLink to="/verify?next=/likes" variant="ghost" block className="real-name-modal__identity">
        {t.realNameByIdentity}
      </ButtonLink>
    </Modal>
  );
}
