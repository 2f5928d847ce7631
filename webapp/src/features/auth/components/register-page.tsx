import { useEffect, useRef, useState, type SubmitEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { serverMessage } from '@/api/outcome';
import { AlertDialog } from '@/components/alert-dialog';
import { Button } from '@/components/button';
import { Card, PageBody, PageHeader } from '@/components/page';
import { NewPasswordFields } from '@/components/new-password-fields';
import { TextField } from '@/components/text-field';
import { ko } from '@/i18n/ko';
import { validateNewPassword, validateUsername } from '@/lib/validation';
import { useCheckUsername } from '../api/check-username';
import { readRegisterForm, readTermsAgreement, saveRegisterForm, saveRegistrationDraft } from '../hooks/registration-draft';
import { TermsModal } from './terms-modal';
import '../auth.css';

export type Availability = 'unknown' | 'available' | 'taken';

export function RegisterPage() {
  const navigate = useNavigate();
  // The terms agreed to in the modal; without them (a link straight here, a reload) the
  // modal asks first.
  const [terms, setTerms] = useState(readTermsAgreement);
  const { trigger: checkUsername, isMutating: checking } = useCheckUsername();
  // What was typed before a reload or a way back from /verify-mvp, the check's answer with it.
  const [saved] = useState(readRegisterForm);
  const checkedBefore = saved.availableUsername !== null && saved.availableUsername === saved.username;
  const [username, setUsername] = useState(saved.username);
  const [password, setPassword] = useState(saved.password);
  const [confirmation, setConfirmation] = useState(saved.confirmation);
  const [confirmationError, setConfirmationError] = useState<string | null>(null);
  const [availability, setAvailability] = useState<Availability>(checkedBefore ? 'available' : 'unknown');
  const [usernameMessage, setUsernameMessage] = useState<{ text: string; ok: boolean } | null>(
    checkedBefore ? { text: ko.register.usernameAvailable, ok: true } : null,
  );
  const [modalMessage, setModalMessage] = useState<string | null>(null);
  // The username a running check is about; a reply for an older value is ignored.
  const latestUsername = useRef(username);

  useEffect(() => {
    saveRegisterForm({ username, password, confirmation, availableUsername: availability === 'available' ? username : null });
  }, [username, password, confirmation, availability]);

  function onUsernameChange(value: string) {
    setUsername(value);
    latestUsername.current = value;
    setAvailability('unknown');
    setUsernameMessage(null);
  }

  async function onCheck() {
    const candidate = username;
    const invalid = validateUsername(candidate);
    if (invalid) {
      setUsernameMessage({ text: ko.validation[invalid], ok: false });
      return;
    }
    const outcome = await checkUsername({ username: candidate });
    if (latestUsername.current !== candidate) return;
    if (!outcome.ok) {
      setAvailability('unknown');
      setUsernameMessage({ text: serverMessage(outcome) ?? ko.register.connectionFailed, ok: false });
      return;
    }
    if (outcome.data.isAvailable) {
      setAvailability('available');
      setUsernameMessage({ text: ko.register.usernameAvailable, ok: true });
    } else {
      setAvailability('taken');
      setUsernameMessage({ text: ko.register.usernameTaken, ok: false });
    }
  }

  function onSubmit(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    if (username.trim() === '' || password === '') {
      setModalMessage(ko.validation.FIELDS_REQUIRED);
      return;
    }
    const refused = validateNewPassword(password, confirmation, 'register');
    if (refused === 'RESET_PASSWORD_MISMATCH') {
      // Said where the typo is, not in a dialog.
      setConfirmationError(ko.validation[refused]);
      const field = event.currentTarget.elements.namedItem('confirm-password');
      if (field instanceof HTMLInputElement) field.focus();
      return;
    }
    if (refused) {
      setModalMessage(ko.validation[refused]);
      return;
    }
    if (availability !== 'available') {
      setModalMessage(ko.register.usernameCheckRequired);
      return;
    }
    if (!terms) return;
    saveRegistrationDraft({ username, password, terms });
    void navigate('/verify-mvp');
  }

  return (
    <>
      <PageHeader title={ko.register.title} fallback="/login" />
      <PageBody>
        <p className="lead">{ko.register.description}</p>
        <Card>
          <form className="form" onSubmit={onSubmit} noValidate>
            <TextField
              label={ko.register.username}
              name="username"
              autoComplete="username"
              autoCapitalize="none"
              spellCheck={false}
              placeholder={ko.register.usernamePlaceholder}
              hint={ko.register.usernameHint}
              maxLength={20}
              value={username}
              onChange={(event) => {
                onUsernameChange(event.target.value);
              }}
              error={usernameMessage && !usernameMessage.ok ? usernameMessage.text : null}
              success={usernameMessage?.ok ? usernameMessage.text : null}
              trailing={
                <Button variant="secondary" onClick={() => void onCheck()} loading={checking}>
                  {checking ? ko.register.checkingUsername : ko.register.checkUsername}
                </Button>
              }
            />
            {/* The rule under the field; the confirmation, said to differ as it is typed, and the
                toggle guard against a typo. */}
            <NewPasswordFields
              labels={{ password: ko.register.password, confirmation: ko.register.passwordConfirmation }}
              value={{ password, confirmation }}
              error={confirmationError}
              onChange={(value) => {
                setPassword(value.password);
                setConfirmation(value.confirmation);
                setConfirmationError(null);
              }}
            />
            <Button type="submit" block>
              {ko.register.submit}
            </Button>
          </form>
        </Card>
        <p className="center-note">
          {ko.register.haveAccount}{' '}
          <Link className="text-link text-link--strong" to="/login">
            {ko.register.toLogin}
          </Link>
        </p>
      </PageBody>
      <TermsModal
        open={terms === null}
        onClose={() => void navigate('/login', { replace: true })}
        onAgreed={() => {
          setTerms(readTermsAgreement());
        }}
      />
      <AlertDialog
        open={modalMessage !== null}
        title={ko.register.errorTitle}
        message={modalMessage}
        onConfirm={() => {
          setModalMessage(null);
        }}
      />
    </>
  );
}
