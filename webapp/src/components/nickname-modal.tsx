import { useEffect, useState, type SubmitEvent } from 'react';
import { toast } from 'sonner';
import { useProfile } from '@/api/profile';
import { Button } from '@/components/button';
import { Modal } from '@/components/modal';
import { TextField } from '@/components/text-field';
import { limits } from '@/config/limits';
import { ko } from '@/i18n/ko';
import { removeLocal, storageKeys, writeLocal } from '@/lib/storage';
import { validateNickname } from '@/lib/validation';
import { checkNickname, useSetNickname } from '@/api/nickname';
import './nickname-modal.css';

/** How long typing must pause before the nickname is checked with the server. */
const CHECK_AFTER_MS = 400;

interface NicknameModalProps {
  open: boolean;
  /**
   * Given when the user changes a nickname they have (My page): the modal can then be closed,
   * and closes itself once the new one is saved. Without it the modal asks a user without a
   * nickname for one, and cannot be dismissed: the rest of the app needs the nickname.
   */
  onClose?: () => void;
}

/**
 * A nickname in two steps: enter, then confirm (a nickname is kept for a month). As it is
 * typed, the server's check says whether it can be had: the abuse filter, and whether another
 * account has it.
 */
export function NicknameModal({ open, onClose }: NicknameModalProps) {
  const { mutate: revalidateProfile } = useProfile();
  const { trigger, isMutating } = useSetNickname();
  const [step, setStep] = useState<'enter' | 'confirm'>('enter');
  const [nickname, setNickname] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [available, setAvailable] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);
  const changing = onClose !== undefined;

  // As the user types: once the local rules pass, the server's check (the abuse filter lives
  // there, in one place) tells at once whether the nickname would be refused.
  useEffect(() => {
    const trimmed = nickname.trim();
    if (step !== 'enter' || validateNickname(trimmed) !== null) return;
    let current = true;
    const timer = setTimeout(() => {
      void checkNickname(trimmed).then((outcome) => {
        if (!current) return;
        if (outcome.ok) setAvailable(outcome.data.message);
        else if (!outcome.network && outcome.message) setError(outcome.message);
      });
    }, CHECK_AFTER_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [nickname, step]);

  async function onNext(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    const trimmed = nickname.trim();
    const invalid = validateNickname(trimmed);
    if (invalid) {
      setError(ko.validation[invalid]);
      return;
    }
    setChecking(true);
    const outcome = await checkNickname(trimmed);
    setChecking(false);
    // A network failure is left to the save, which reports it.
    if (!outcome.ok && !outcome.network) {
      setError(outcome.message ?? ko.mypage.unknownError);
      return;
    }
    setNickname(trimmed);
    setStep('confirm');
  }

  async function onConfirm() {
    const outcome = await trigger({ nickname });
    if (!outcome.ok) {
      toast.error(outcome.network ? ko.nickname.serverError : ko.nickname.saveFailed(outcome.message ?? ko.mypage.unknownError));
      setStep('enter');
      return;
    }
    removeLocal(storageKeys.needNicknameSetup);
    writeLocal(storageKeys.nickname, nickname);
    toast.success(ko.nickname.saved);
    await revalidateProfile();
    if (onClose) {
      setStep('enter');
      setNickname('');
      onClose();
    }
  }

  if (step === 'confirm') {
    return (
      <Modal key="confirm" open={open} onClose={onClose} title={ko.nickname.confirmTitle} role="alertdialog" className="nickname-modal">
        <p className="nickname-modal__preview">{nickname}</p>
        <p className="modal__description">{ko.nickname.confirmQuestion(nickname)}</p>
        <p className="modal__note">{ko.nickname.confirmNote}</p>
        <div className="modal__actions modal__actions--row">
          <Button
            variant="secondary"
            block
            disabled={isMutating}
            onClick={() => {
              setStep('enter');
            }}
          >
            {ko.nickname.back}
          </Button>
          <Button block loading={isMutating} onClick={() => void onConfirm()}>
            {isMutating ? ko.nickname.submitting : ko.nickname.submit}
          </Button>
        </div>
      </Modal>
    );
  }

  return (
    <Modal
      key="enter"
      open={open}
      onClose={onClose}
      title={changing ? ko.nickname.changeTitle : ko.nickname.title}
      description={changing ? ko.nickname.changeDescription : ko.nickname.description}
      className="nickname-modal"
    >
      <form className="form" onSubmit={(event) => void onNext(event)} noValidate>
        <TextField
          label={ko.nickname.label}
          name="nickname"
          autoComplete="nickname"
          maxLength={limits.nicknameMaxLength}
          placeholder={ko.nickname.placeholder}
          value={nickname}
          error={error}
          success={error ? null : available}
          hint={`${Array.from(nickname).length}/${limits.nicknameMaxLength}`}
          onChange={(event) => {
            setNickname(event.target.value);
            setError(null);
            setAvailable(null);
          }}
        />
        <Button type="submit" block loading={checking}>
          {ko.nickname.next}
        </Button>
      </form>
    </Modal>
  );
}
