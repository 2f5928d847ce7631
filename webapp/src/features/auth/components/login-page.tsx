import { useEffect, useState, type SubmitEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { useAppConfig } from '@/api/app-config';
import { serverMessage } from '@/api/outcome';
import { useSessionCache } from '@/api/session';
import { AlertDialog } from '@/components/alert-dialog';
import { BrandMark } from '@/components/brand';
import { Button } from '@/components/button';
import { Icon } from '@/components/icons';
import { Card } from '@/components/page';
import { TextField } from '@/components/text-field';
import { ko } from '@/i18n/ko';
import { storageKeys, writeLocal } from '@/lib/storage';
import { useLogin } from '../api/login';
import { clearRegistrationDraft } from '../hooks/registration-draft';
import { ComingSoonModal } from './coming-soon-modal';
import { TermsModal } from './terms-modal';
import '../auth.css';

export function LoginPage() {
  const navigate = useNavigate();
  const { trigger, isMutating } = useLogin();
  const { markLoggedIn } = useSessionCache();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [failure, setFailure] = useState<string | null>(null);
  /** The server's sentence for a suspended or banned account: why, and until when. */
  const [restricted, setRestricted] = useState<string | null>(null);

  // Back on the login page, a sign-up in progress was left: its password leaves the tab.
  useEffect(() => {
    clearRegistrationDraft();
  }, []);
  const { data: appConfig } = useAppConfig();
  const appealEmail = appConfig?.business.email;
  const [termsOpen, setTermsOpen] = useState(false);

  async function onSubmit(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    if (username.trim() === '' || password === '') {
      setFailure(ko.validation.FIELDS_REQUIRED);
      return;
    }
    setRestricted(null);
    const outcome = await trigger({ username: username.trim(), password });
    if (!outcome.ok && !outcome.network && outcome.code === 'ACCOUNT_RESTRICTED') {
      setRestricted(outcome.message ?? ko.restricted.title);
      return;
    }
    if (!outcome.ok) {
      setFailure(outcome.network ? ko.login.networkFailed : (serverMessage(outcome) ?? ko.login.failed));
      return;
    }
    writeLocal(storageKeys.username, username.trim());
    await markLoggedIn();
    void navigate('/main', { replace: true });
  }

  return (
    <main className="auth-screen">
      <div className="auth-hero">
        <BrandMark size={72} />
        <h1 className="auth-hero__title">{ko.login.title}</h1>
        <p className="auth-hero__tagline">{ko.login.tagline}</p>
      </div>
      {restricted ? (
        <section className="restricted-notice" role="alert" aria-labelledby="restricted-title">
          <span className="restricted-notice__icon" aria-hidden="true">
            <Icon name="lock" size={24} />
          </span>
          <div>
            <h2 id="restricted-title" className="restricted-notice__title">
              {ko.restricted.loginTitle}
            </h2>
            <p className="restricted-notice__message">{restricted}</p>
            {appealEmail ? <p className="restricted-notice__appeal">{ko.restricted.appeal(appealEmail)}</p> : null}
          </div>
        </section>
      ) : null}
      <Card>
        <form className="form" onSubmit={(event) => void onSubmit(event)} noValidate>
          <TextField
            label={ko.login.username}
            name="username"
            autoComplete="username"
            autoCapitalize="none"
            spellCheck={false}
            placeholder={ko.login.usernamePlaceholder}
            value={username}
            onChange={(event) => {
              setUsername(event.target.value);
            }}
          />
          <TextField
            label={ko.login.password}
            name="password"
            type="password"
            autoComplete="current-password"
            placeholder={ko.login.passwordPlaceholder}
            value={password}
            onChange={(event) => {
              setPassword(event.target.value);
            }}
          />
          <Button type="submit" block loading={isMutating}>
            {isMutating ? ko.login.submitting : ko.login.submit}
          </Button>
        </form>
        <div className="auth-links">
          <Link className="text-link" to="/findpassword">
            {ko.login.toFindPassword}
          </Link>
          <span className="auth-links__divider" aria-hidden="true" />
          <span>
            {ko.login.noAccount}{' '}
            <button
              type="button"
              className="text-link text-link--strong"
              onClick={() => {
                setTermsOpen(true);
              }}
            >
              {ko.login.toRegister}
            </button>
          </span>
        </div>
      </Card>
      <ComingSoonModal />
      <TermsModal
        open={termsOpen}
        onClose={() => {
          setTermsOpen(false);
        }}
      />
      <AlertDialog
        open={failure !== null}
        title={ko.login.failedTitle}
        message={failure}
        onConfirm={() => {
          setFailure(null);
        }}
      />
    </main>
  );
}
