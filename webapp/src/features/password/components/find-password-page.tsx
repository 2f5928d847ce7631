import { useRef, useState, type SubmitEvent } from 'react';
import { serverMessage } from '@/api/outcome';
import { Button, ButtonLink } from '@/components/button';
import { CodeField } from '@/components/code-field';
import { FormMessage } from '@/components/form-message';
import { Icon } from '@/components/icons';
import { NewPasswordFields, type NewPassword } from '@/components/new-password-fields';
import { Card, PageBody, PageHeader } from '@/components/page';
import { TextField } from '@/components/text-field';
import { limits } from '@/config/limits';
import { ko } from '@/i18n/ko';
import { useCountdown } from '@/lib/countdown';
import { validateCode, validateNewPassword } from '@/lib/validation';
import { useCheckUser } from '../api/check-user';
import { useResetPassword } from '../api/reset-password';
import { useSendResetCode } from '../api/send-reset-code';

type Step = 'username' | 'no-record' | 'reset' | 'done';

/**
 * Password recovery in four steps: the username; a no-record screen when it is unknown; a code
 * sent to the account's phone with the new password; a done message.
 */
export function FindPasswordPage() {
  const [step, setStep] = useState<Step>('username');
  const [username, setUsername] = useState('');
  const [error, setError] = useState<string | null>(null);
  const { trigger: checkUser, isMutating: checking } = useCheckUser();
  const resetCode = useResetCode();
  const usernameInput = useRef<HTMLInputElement>(null);

  async function onCheck(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    if (username.trim() === '') {
      setError(ko.validation.USERNAME_REQUIRED);
      return;
    }
    setError(null);
    const outcome = await checkUser({ username: username.trim() });
    if (!outcome.ok) {
      setError(outcome.network ? ko.findPassword.requestFailed : (serverMessage(outcome) ?? ko.findPassword.requestFailed));
      return;
    }
    if (!outcome.data.exists) {
      setStep('no-record');
      return;
    }
    setStep('reset');
    await resetCode.send(username.trim());
  }

  return (
    <>
      <PageHeader title={ko.findPassword.title} fallback="/login" />
      <PageBody>
        {step === 'username' ? (
          <Card>
            <form className="form" onSubmit={(event) => void onCheck(event)} noValidate>
              <p className="lead">{ko.findPassword.step1Description}</p>
              <TextField
                ref={usernameInput}
                label={ko.findPassword.username}
                name="username"
                autoComplete="username"
                autoCapitalize="none"
                spellCheck={false}
                placeholder={ko.findPassword.usernamePlaceholder}
                value={username}
                error={error}
                onChange={(event) => {
                  setUsername(event.target.value);
                  setError(null);
                }}
              />
              <Button type="submit" block loading={checking}>
                {checking ? ko.findPassword.checking : ko.findPassword.next}
              </Button>
            </form>
          </Card>
        ) : null}

        {step === 'no-record' ? (
          <Card className="stack center">
            <div className="result-icon result-icon--error">
              <Icon name="question" size={32} strokeWidth={2.4} />
            </div>
            <h2 className="card-title">{ko.findPassword.noRecordTitle}</h2>
            <p role="alert">{ko.findPassword.noRecordDescription(username.trim())}</p>
            <div className="button-row">
              <ButtonLink to="/login" variant="secondary" block>
                {ko.findPassword.back}
              </ButtonLink>
              <Button
                block
                onClick={() => {
                  setStep('username');
                  window.setTimeout(() => usernameInput.current?.focus(), 0);
                }}
              >
                {ko.findPassword.recheck}
              </Button>
            </div>
          </Card>
        ) : null}

        {step === 'reset' ? (
          <ResetStep
            username={username.trim()}
            resetCode={resetCode}
            onDone={() => {
              setStep('done');
            }}
          />
        ) : null}

        {step === 'done' ? (
          <Card className="stack center">
            <div className="result-icon result-icon--ok">
              <Icon name="check" size={32} strokeWidth={2.6} />
            </div>
            <h2 className="card-title" role="status">
              {ko.findPassword.doneTitle}
            </h2>
            <p>{ko.findPassword.doneDescription}</p>
            <ButtonLink to="/login" block replace>
              {ko.findPassword.toLogin}
            </ButtonLink>
          </Card>
        ) : null}
      </PageBody>
    </>
  );
}

/** The code sent to the account's registered phone, and its countdown. */
function useResetCode() {
  const { trigger, isMutating: sending } = useSendResetCode();
  const countdown = useCountdown(limits.codeCountdownSeconds);
  const cooldown = useCountdown(limits.smsCooldownSeconds);
  const [maskedPhone, setMaskedPhone] = useState<string | null>(null);
  const [sendError, setSendError] = useState<string | null>(null);

  async function send(username: string) {
    setSendError(null);
    const outcome = await trigger({ username });
    if (!outcome.ok) {
      setSendError(outcome.network ? ko.findPassword.requestFailed : (serverMessage(outcome) ?? ko.findPassword.sendFailed));
      return;
    }
    setMaskedPhone(outcome.data.maskedPhone);
    countdown.start();
    cooldown.start();
  }

  return { send, sending, countdown, cooldown, maskedPhone, sendError };
}

interface ResetStepProps {
  username: string;
  resetCode: ReturnType<typeof useResetCode>;
  onDone: () => void;
}

function ResetStep({ username, resetCode, onDone }: ResetStepProps) {
  const { send, sending, countdown, cooldown, maskedPhone, sendError } = resetCode;
  const { trigger: reset, isMutating: resetting } = useResetPassword();
  const [code, setCode] = useState('');
  const [newPassword, setNewPassword] = useState<NewPassword>({ password: '', confirmation: '' });
  const [codeError, setCodeError] = useState<string | null>(null);
  const [passwordError, setPasswordError] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);

  async function onSubmit(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    const missingCode = validateCode(code);
    const mismatch = validateNewPassword(newPassword.password, newPassword.confirmation, 'reset');
    setCodeError(missingCode ? ko.validation[missingCode] : null);
    setPasswordError(mismatch ? ko.validation[mismatch] : null);
    if (missingCode || mismatch) return;
    setFormError(null);
    const outcome = await reset({ username, password: newPassword.password, code: code.trim() });
    if (!outcome.ok) {
      setFormError(serverMessage(outcome) ?? ko.findPassword.resetFailed);
      return;
    }
    onDone();
  }

  return (
    <Card>
      <form className="form" onSubmit={(event) => void onSubmit(event)} noValidate>
        <FormMessage
          message={sendError ?? (maskedPhone ? ko.findPassword.codeSentTo(maskedPhone) : sending ? ko.findPassword.sendingCode : null)}
          tone={sendError ? 'error' : 'info'}
        />
        <CodeField
          value={code}
          countdown={countdown}
          error={codeError}
          onChange={(value) => {
            setCode(value);
            setCodeError(null);
          }}
          trailing={
            <Button variant="secondary" onClick={() => void send(username)} loading={sending} disabled={cooldown.running}>
              {cooldown.running ? ko.findPassword.resendIn(cooldown.remaining) : ko.findPassword.resend}
            </Button>
          }
        />
        <NewPasswordFields
          value={newPassword}
          error={passwordError}
          onChange={(value) => {
            setNewPassword(value);
            setPasswordError(null);
          }}
        />
        <FormMessage message={formError} />
        <Button type="submit" block loading={resetting}>
          {resetting ? ko.findPassword.submitting : ko.findPassword.submit}
        </Button>
      </form>
    </Card>
  );
}
