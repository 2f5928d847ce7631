import { useId, useState, type SubmitEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { useAuthCheck } from '@/api/auth-check';
import { useProfile } from '@/api/profile';
import { AlertDialog } from '@/components/alert-dialog';
import { Button, ButtonLink } from '@/components/button';
import { Icon } from '@/components/icons';
import { Card, PageBody, PageHeader } from '@/components/page';
import { Spinner } from '@/components/spinner';
import { TextField } from '@/components/text-field';
import { ko } from '@/i18n/ko';
import { normalizeAccount, sanitizeWordInput } from '@/lib/validation';
import { useMyTransfers } from '../api/my-transfers';
import { useMyWordsets } from '../api/my-wordsets';
import { useSubmitWordset } from '../api/submit-wordset';
import { draftBank, draftErrors, draftValid, OTHER, type WordsetDraft } from '../lib/wordset-draft';
import '../likes.css';

function LoginPrompt() {
  const t = ko.likes;
  return (
    <Card className="empty-state">
      <div className="empty-state__icon">
        <Icon name="lock" size={32} />
      </div>
      <p className="empty-state__title">{t.loginTitle}</p>
      <p className="empty-state__text">{t.loginText}</p>
      <ButtonLink to="/login">{t.loginButton}</ButtonLink>
    </Card>
  );
}

function NoPayment() {
  const t = ko.wordset;
  return (
    <Card className="empty-state">
      <div className="empty-state__icon">
        <Icon name="card" size={32} />
      </div>
      <p className="empty-state__title">{t.noPaymentTitle}</p>
      <p className="empty-state__text">{t.noPaymentText}</p>
      <ButtonLink to="/likes">{t.toLikes}</ButtonLink>
    </Card>
  );
}

interface WordsetFormProps {
  paymentId: number;
  userId: number;
  onSaved: (message: string) => void;
}

/** Four words and the refund account; saving is enabled only when every field is valid. */
export function WordsetForm({ paymentId, userId, onSaved }: WordsetFormProps) {
  const t = ko.wordset;
  const bankId = useId();
  const { trigger, isMutating } = useSubmitWordset();
  const [draft, setDraft] = useState<WordsetDraft>({ words: ['', '', '', ''], bankChoice: '', bankCustom: '', account: '' });
  const [shown, setShown] = useState(false);
  const [invalidOpen, setInvalidOpen] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const errors = draftErrors(draft);
  const valid = draftValid(errors);

  function setWord(index: number, value: string) {
    const words = [...draft.words] as WordsetDraft['words'];
    words[index] = sanitizeWordInput(value);
    setDraft({ ...draft, words });
  }

  async function onSubmit(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!valid) {
      setShown(true);
      setInvalidOpen(true);
      return;
    }
    const outcome = await trigger({
      user_id: userId,
      payment_id: paymentId,
      wordset: draft.words.map((word) => word.trim()),
      refund_bank: draftBank(draft),
      refund_account: normalizeAccount(draft.account),
    });
    if (!outcome.ok) {
      setFailure(outcome.network ? t.saveError : t.saveFailed(outcome.message ?? t.unknownReason));
      return;
    }
    onSaved(outcome.data.message);
  }

  const show = (error: string | null, value: string) => (shown || value !== '' ? error : null);

  return (
    <form className="form wordset-form" onSubmit={(event) => void onSubmit(event)} noValidate>
      <fieldset className="wordset-form__group">
        <legend className="wordset-form__legend">{t.wordsLegend}</legend>
        <p className="field__hint">{t.wordHint}</p>
        <div className="wordset-form__words">
          {draft.words.map((word, i) => (
            <TextField
              key={i}
              label={t.wordLabel(i + 1)}
              name={`word${i + 1}`}
              autoComplete="off"
              placeholder={t.wordPlaceholder}
              value={word}
              error={show(errors.words[i] ?? null, word)}
              onChange={(event) => {
                setWord(i, event.target.value);
              }}
            />
          ))}
        </div>
      </fieldset>

      <div className="wordset-form__divider" aria-hidden="true" />

      <fieldset className="wordset-form__group">
        <legend className="wordset-form__legend">{t.refundLegend}</legend>
        <p className="field__hint">{t.refundNote}</p>
        <div className="field">
          <label className="field__label" htmlFor={bankId}>
            {t.bankLabel}
          </label>
          <select
            id={bankId}
            className="field__input field__select"
            value={draft.bankChoice}
            aria-invalid={(draft.bankChoice !== OTHER && shown && errors.bank !== null) || undefined}
            aria-describedby={`${bankId}-message`}
            onChange={(event) => {
              setDraft({ ...draft, bankChoice: event.target.value });
            }}
          >
            <option value="" disabled>
              {t.bankPlaceholder}
            </option>
            {t.banks.map((bank) => (
              <option key={bank} value={bank}>
                {bank}
              </option>
            ))}
            <option value={OTHER}>{t.bankOther}</option>
          </select>
          <p id={`${bankId}-message`} className="field__message field__message--error" aria-live="polite">
            {draft.bankChoice !== OTHER && shown ? errors.bank : null}
          </p>
        </div>
        {draft.bankChoice === OTHER ? (
          <TextField
            label={t.bankCustomLabel}
            name="bank"
            autoComplete="off"
            maxLength={20}
            placeholder={t.bankCustomPlaceholder}
            value={draft.bankCustom}
            error={show(errors.bank, draft.bankCustom)}
            onChange={(event) => {
              setDraft({ ...draft, bankCustom: event.target.value });
            }}
          />
        ) : null}
        <TextField
          label={t.accountLabel}
          name="account"
          inputMode="numeric"
          autoComplete="off"
          maxLength={20}
          placeholder={t.accountPlaceholder}
          value={draft.account}
          error={show(errors.account, draft.account)}
          onChange={(event) => {
            setDraft({ ...draft, account: event.target.value.replace(/\D/g, '').slice(0, 20) });
          }}
        />
      </fieldset>

      <Button type="submit" block loading={isMutating} aria-disabled={!valid || undefined} className={valid ? undefined : 'btn--inactive'}>
        {isMutating ? t.saving : t.save}
      </Button>

      <AlertDialog
        open={invalidOpen}
        title={t.invalidTitle}
        message={t.invalidText}
        onConfirm={() => {
          setInvalidOpen(false);
        }}
      />
      <AlertDialog
        open={failure !== null}
        title={t.saveFailedTitle}
        message={failure}
        onConfirm={() => {
          setFailure(null);
        }}
      />
    </form>
  );
}

/** /wordset: the four words and the refund account, with a paid transfer (spec section 4). */
export function WordSetPage() {
  const t = ko.wordset;
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const { data: auth } = useAuthCheck();
  const { data: profile } = useProfile();
  const transfers = useMyTransfers();
  const wordsets = useMyWordsets(profile?.id);
  const [thanks, setThanks] = useState<string | null>(null);

  const named = Number(params.get('payment'));
  const usable = transfers.data?.payments.filter((p) => p.status === 'paid' && !p.used) ?? [];
  const payment = Number.isInteger(named) && named > 0 ? usable.find((p) => p.id === named) : usable[0];

  let content;
  if (auth?.loggedIn === false) {
    content = <LoginPrompt />;
  } else if (thanks !== null) {
    content = null;
  } else if (!profile || !transfers.data) {
    content = (
      <div className="center">
        <Spinner label={ko.app.loading} />
      </div>
    );
  } else if (!payment) {
    content = <NoPayment />;
  } else {
    content = (
      <Card>
        <p className="card-text wordset-lead">{t.lead}</p>
        <WordsetForm
          paymentId={payment.id}
          userId={profile.id}
          onSaved={(message) => {
            setThanks(message);
            void transfers.mutate();
            void wordsets.mutate();
          }}
        />
      </Card>
    );
  }

  return (
    <>
      <PageHeader title={t.title} fallback="/likes" />
      <PageBody className="wordset-page">{content}</PageBody>
      <AlertDialog
        open={thanks !== null}
        title={t.thanksTitle}
        message={thanks ?? t.thanksFallback}
        confirmLabel={t.thanksConfirm}
        onConfirm={() => {
          setThanks(null);
          void navigate('/likes');
        }}
      />
    </>
  );
}
