import { useEffect, useRef, useState, type SubmitEvent } from 'react';
import { Navigate, useNavigate } from 'react-router';
import type { Schemas } from '@/api/client';
import { fetchProfile } from '@/api/profile';
import { serverMessage } from '@/api/outcome';
import { useSessionCache } from '@/api/session';
import { Button } from '@/components/button';
import { CodeField } from '@/components/code-field';
import { FormMessage } from '@/components/form-message';
import { Card, PageBody, PageHeader } from '@/components/page';
import { SegmentedControl } from '@/components/segmented-control';
import { TextField } from '@/components/text-field';
import { limits } from '@/config/limits';
import { ko } from '@/i18n/ko';
import { useCountdown } from '@/lib/countdown';
import { storageKeys, writeLocal } from '@/lib/storage';
import {
  birthdateToIso,
  editPhone,
  formatPhone,
  normalizePhone,
  sanitizeBirthdateInput,
  validateBirthdate,
  validateCode,
  validateGender,
  validatePhone,
} from '@/lib/validation';
import { useCheckVerificationCode } from '../api/check-verification-code';
import { useRegister } from '../api/register';
import { useSendVerificationCode } from '../api/send-verification-code';
import { clearRegistrationDraft, readRegistrationDraft, readVerifyForm, saveVerifyForm } from '../hooks/registration-draft';
import '../auth.css';

/** The genders the server lists in its contract. */
type Gender = Schemas['RegisterBody']['gender'];

const genderOptions = [
  { value: '남성', label: ko.verify.male },
  { value: '여성', label: ko.verify.female },
] as const satisfies readonly { value: Gender; label: string }[];

interface Message {
  text: string;
  tone: 'error' | 'success' | 'info';
}

export function VerifyMvpPage() {
  const navigate = useNavigate();
  const [draft] = useState(readRegistrationDraft);
  // What was entered before a reload, a way back and forward, or the tab dropped while the
  // SMS was read: a code already sent is still awaited, its countdown going on.
  const [saved] = useState(readVerifyForm);
  const { trigger: sendCode, isMutating: sending } = useSendVerificationCode();
  const { trigger: checkCode } = useCheckVerificationCode();
  const { trigger: register } = useRegister();
  const { markLoggedIn } = useSessionCache();
  const countdown = useCountdown(limits.codeCountdownSeconds, saved.sentAt);
  const cooldown = useCountdown(limits.smsCooldownSeconds, saved.sentAt);
  const codeInput = useRef<HTMLInputElement>(null);

  const [birthdate, setBirthdate] = useState(saved.birthdate);
  const [gender, setGender] = useState<Gender | null>(saved.gender);
  const [phone, setPhone] = useState(() => formatPhone(saved.phone));
  const [code, setCode] = useState('');
  const [sentTo, setSentTo] = useState<string | null>(saved.sentAt === null ? null : saved.sentTo);
  const [sentAt, setSentAt] = useState<number | null>(saved.sentTo === null ? null : saved.sentAt);
  const [errors, setErrors] = useState<{ birthdate?: string; gender?: string; phone?: string; code?: string }>({});
  const [message, setMessage] = useState<Message | null>(sentTo === null ? null : { text: ko.verify.codeSentTo(formatPhone(sentTo)), tone: 'success' });
  const [verifying, setVerifying] = useState(false);

  useEffect(() => {
    if (draft) saveVerifyForm({ birthdate, gender, phone, sentTo, sentAt });
  }, [draft, birthdate, gender, phone, sentTo, sentAt]);

  if (!draft) return <Navigate to="/register" replace />;

  const readyForCode = gender !== null && birthdate.length === limits.birthdateDigits;
  const codeVisible = readyForCode && sentTo !== null;

  async function onSend() {
    const phoneError = validatePhone(phone);
    const birthdateError = validateBirthdate(birthdate);
    const genderError = validateGender(gender);
    setErrors({
      phone: phoneError ? ko.validation[phoneError] : undefined,
      birthdate: birthdateError ? ko.validation[birthdateError] : undefined,
      gender: genderError ? ko.validation[genderError] : undefined,
    });
    if (phoneError || birthdateError || genderError) return;
    const normalized = normalizePhone(phone);
    setMessage(null);
    // With the birthdate, someone too young is told before a code is spent.
    const outcome = await sendCode({ phone: normalized, birthdate: birthdateToIso(birthdate) ?? birthdate });
    if (!outcome.ok) {
      setMessage({ text: outcome.network ? ko.verify.requestFailed : (serverMessage(outcome) ?? ko.verify.sendFailed), tone: 'error' });
      return;
    }
    setSentTo(normalized);
    setSentAt(Date.now());
    setCode('');
    countdown.start();
    cooldown.start();
    // The app's own line, not the server's: the same after a reload, naming the number.
    setMessage({ text: ko.verify.codeSentTo(formatPhone(normalized)), tone: 'success' });
    window.setTimeout(() => codeInput.current?.focus(), 0);
  }

  async function onVerify(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!draft || !sentTo || !gender) return;
    const codeError = validateCode(code);
    if (codeError) {
      setErrors((current) => ({ ...current, code: ko.validation[codeError] }));
      return;
    }
    const isoBirthdate = birthdateToIso(birthdate);
    if (!isoBirthdate) {
      setErrors((current) => ({ ...current, birthdate: ko.validation.BIRTHDATE_INVALID }));
      return;
    }
    setErrors({});
    setMessage(null);
    setVerifying(true);
    try {
      const checked = await checkCode({ phone: sentTo, code: code.trim() });
      if (!checked.ok) {
        setMessage({ text: checked.network ? ko.verify.serverFailed : (serverMessage(checked) ?? ko.verify.codeInvalid), tone: 'error' });
        return;
      }
      const registered = await register({
        username: draft.username,
        password: draft.password,
        phone: sentTo,
        gender,
        birthdate: isoBirthdate,
        ...draft.terms,
      });
      if (!registered.ok) {
        setMessage({ text: registered.network ? ko.verify.serverFailed : (serverMessage(registered) ?? ko.verify.registerFailed), tone: 'error' });
        return;
      }
      writeLocal(storageKeys.username, draft.username);
      try {
        const profile = await fetchProfile();
        if (!profile.nickname) writeLocal(storageKeys.needNicknameSetup, 'true');
      } catch (error) {
        console.error('Nickname profile lookup failed after sign-up', error);
        writeLocal(storageKeys.needNicknameSetup, 'true');
      }
      await markLoggedIn();
      void navigate('/main', { replace: true });
      clearRegistrationDraft();
    } finally {
      setVerifying(false);
    }
  }

  return (
    <>
      <PageHeader title={ko.verify.title} backTo="/register" />
      <PageBody>
        <p className="lead">{ko.verify.description}</p>
        <Card>
          <form className="form" onSubmit={(event) => void onVerify(event)} noValidate>
            <TextField
              label={ko.verify.birthdate}
              name="birthdate"
              inputMode="numeric"
              autoComplete="bday"
              pattern="\d*"
              placeholder={ko.verify.birthdatePlaceholder}
              hint={ko.verify.birthdateHint}
              value={birthdate}
              error={errors.birthdate}
              onChange={(event) => {
                setBirthdate(sanitizeBirthdateInput(event.target.value));
                setErrors((current) => ({ ...current, birthdate: undefined }));
              }}
            />
            <SegmentedControl
              legend={ko.verify.gender}
              name="gender"
              options={genderOptions}
              value={gender}
              error={errors.gender}
              onChange={(value) => {
                setGender(value);
                setErrors((current) => ({ ...current, gender: undefined }));
              }}
            />
            <TextField
              label={ko.verify.phone}
              name="phone"
              type="tel"
              inputMode="tel"
              autoComplete="tel-national"
              maxLength={13}
              placeholder={ko.verify.phonePlaceholder}
              value={phone}
              error={errors.phone}
              onChange={(event) => {
                setPhone(editPhone(phone, event.target.value, event.target.selectionStart));
                setErrors((current) => ({ ...current, phone: undefined }));
                if (sentTo !== null) {
                  setSentTo(null);
                  setSentAt(null);
                  countdown.reset();
                  cooldown.reset();
                  setMessage(null);
                }
              }}
              trailing={
                <Button variant="secondary" onClick={() => void onSend()} loading={sending} disabled={cooldown.running}>
                  {sending
                    ? ko.verify.sending
                    : sentTo === null
                      ? ko.verify.sendCode
                      : cooldown.running
                        ? ko.verify.resendIn(cooldown.remaining)
                        : ko.verify.resend}
                </Button>
              }
            />
            {!readyForCode ? <p className="field__hint">{ko.verify.codeRequirements}</p> : null}
            {codeVisible ? (
              <CodeField
                ref={codeInput}
                value={code}
                countdown={countdown}
                error={errors.code}
                onChange={(value) => {
                  setCode(value);
                  setErrors((current) => ({ ...current, code: undefined }));
                }}
              />
            ) : null}
            {/* "Sent" is no longer true once the code expired; the field says it expired. */}
            <FormMessage
              message={countdown.expired && message?.tone === 'success' ? null : (message?.text ?? null)}
              tone={message?.tone}
            />
            {codeVisible ? (
              <Button type="submit" block loading={verifying} disabled={countdown.expired}>
                {verifying ? ko.verify.submitting : ko.verify.submit}
              </Button>
            ) : null}
          </form>
        </Card>
      </PageBody>
    </>
  );
}
