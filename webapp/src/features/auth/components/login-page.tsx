import { useState, type SubmitEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { serverMessage } from '@/api/outcome';
import { useSessionCache } from '@/api/session';
import { AlertDialog } from '@/components/alert-dialog';
import { BrandMark } from '@/components/brand';
import { Button } from '@/components/button';
import { Card } from '@/components/page';
import { TextField } from '@/components/text-field';
import { ko } from '@/i18n/ko';
import { storageKeys, writeLocal } from '@/lib/storage';
import { useLogin } from '../api/login';
import { TermsModal } from './terms-modal';

export function LoginPage() {
  const navigate = useNavigate();
  const { trigger, isMutating } = useLogin();
  const { markLoggedIn } = useSessionCache();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [failure, setFailure] = useState<string | null>(null);
  const [termsOpen, setTermsOpen] = useState(false);

  async function onSubmit(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    if (username.trim() === '' || password === '') {
      setFailure(ko.validation.FIELDS_REQUIRED);
      return;
    }
    const outcome = await trigger({ username: username.trim(), password });
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
