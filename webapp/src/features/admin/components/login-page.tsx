import { useState, type SubmitEvent } from 'react';
import { Navigate, useNavigate } from 'react-router';
import { useSWRConfig } from 'swr';
import { serverMessage } from '@/api/outcome';
import { BrandMark } from '@/components/brand';
import { Button } from '@/components/button';
import { FormMessage } from '@/components/form-message';
import { TextField } from '@/components/text-field';
import { koAdmin } from '@/i18n/ko-admin';
import { useAdminLogin } from '../api/login';
import { operatorKey, useOperator } from '../api/me';

/** /admin: the operator's username and password; the second factor follows on /admin/totp. */
export function AdminLoginPage() {
  const navigate = useNavigate();
  const { mutate } = useSWRConfig();
  const { data: operator } = useOperator();
  const { trigger, isMutating } = useAdminLogin();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [failure, setFailure] = useState<string | null>(null);

  // An operator whose session already passed both steps has nothing to do here.
  if (operator?.secondFactor) return <Navigate to="/admin/dashboard" replace />;

  async function onSubmit(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    if (username.trim() === '' || password === '') {
      setFailure(koAdmin.login.required);
      return;
    }
    setFailure(null);
    const outcome = await trigger({ username: username.trim(), password });
    if (!outcome.ok) {
      setPassword('');
      setFailure(outcome.network ? koAdmin.app.networkFailed : (serverMessage(outcome) ?? koAdmin.login.failed));
      return;
    }
    await mutate(operatorKey);
    void navigate('/admin/totp', { replace: true });
  }

  return (
    <main className="console-auth">
      <div className="console-auth__panel">
        <div className="console-auth__hero">
          <BrandMark size={56} />
          <p className="console-auth__brand">{koAdmin.app.title}</p>
          <h1 className="console-auth__title">{koAdmin.login.title}</h1>
          <p className="console-auth__lead">{koAdmin.login.subtitle}</p>
        </div>
        <form className="form" onSubmit={(event) => void onSubmit(event)} noValidate>
          <TextField
            label={koAdmin.login.username}
            name="username"
            autoComplete="username"
            autoCapitalize="none"
            spellCheck={false}
            value={username}
            onChange={(event) => {
              setUsername(event.target.value);
            }}
          />
          <TextField
            label={koAdmin.login.password}
            name="password"
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(event) => {
              setPassword(event.target.value);
            }}
          />
          <FormMessage message={failure} />
          <Button type="submit" block loading={isMutating}>
            {isMutating ? koAdmin.login.submitting : koAdmin.login.submit}
          </Button>
        </form>
        <p className="console-auth__note">{koAdmin.login.note}</p>
      </div>
    </main>
  );
}
