import { useId, useState, type SubmitEvent } from 'react';
import { Navigate, useNavigate } from 'react-router';
import { toast } from 'sonner';
import { ApiError, serverMessage } from '@/api/outcome';
import { BrandMark } from '@/components/brand';
import { Button } from '@/components/button';
import { FormMessage } from '@/components/form-message';
import { Spinner } from '@/components/spinner';
import { TextField } from '@/components/text-field';
import { koAdmin } from '@/i18n/ko-admin';
import { useAdminLogout } from '../api/logout';
import { useOperator } from '../api/me';
import { useSubmitTotp, useTotpEnrollment, type TotpEnrollment } from '../api/totp';
import { useClearConsoleCache } from '../hooks/use-clear-console-cache';
import { groupSecret } from '../lib/format';
import { SessionRedirect } from './session-redirect';
import { ErrorState, LoadingState } from './states';

const CODE_DIGITS = 6;

/** An SVG document as a data: URL, base64 over its UTF-8 bytes. */
function svgDataUrl(svg: string): string {
  const bytes = new TextEncoder().encode(svg);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `data:image/svg+xml;base64,${btoa(binary)}`;
}

function EnrollmentSteps({ enrollment }: { enrollment: TotpEnrollment }) {
  const secretId = useId();
  const grouped = groupSecret(enrollment.secret);
  return (
    <ol className="totp-steps">
      <li>
        <p>{koAdmin.totp.step1}</p>
        <img className="totp-qr" src={svgDataUrl(enrollment.qrSvg)} alt={koAdmin.totp.qrAlt} width={200} height={200} />
      </li>
      <li>
        <p>{koAdmin.totp.step2}</p>
        <div className="totp-secret">
          <span className="totp-secret__label" id={secretId}>
            {koAdmin.totp.secretLabel}
          </span>
          <code className="totp-secret__value" aria-labelledby={secretId} data-testid="totp-secret">
            {grouped}
          </code>
          {typeof navigator !== 'undefined' && 'clipboard' in navigator ? (
            <Button
              variant="subtle"
              size="sm"
              onClick={() => {
                void navigator.clipboard.writeText(enrollment.secret).then(() => toast.success(koAdmin.totp.copied));
              }}
            >
              {koAdmin.totp.copy}
            </Button>
          ) : null}
        </div>
      </li>
      <li>
        <p>{koAdmin.totp.step3}</p>
      </li>
    </ol>
  );
}

/** /admin/totp: enrols the authenticator app on the first login, then asks for its code. */
export function TotpPage() {
  const navigate = useNavigate();
  const clear = useClearConsoleCache();
  const { data: operator, error, mutate } = useOperator();
  const enrolling = operator !== undefined && !operator.secondFactor && !operator.totpEnrolled;
  const enrollment = useTotpEnrollment(enrolling);
  const { trigger, isMutating } = useSubmitTotp();
  const logout = useAdminLogout();
  const [code, setCode] = useState('');
  const [failure, setFailure] = useState<string | null>(null);

  if (error instanceof ApiError && error.status === 401) return <SessionRedirect to="/admin" />;
  if (error) return <ErrorState error={error} onRetry={() => void mutate()} />;
  if (!operator) return <LoadingState />;
  if (operator.secondFactor) return <Navigate to="/admin/dashboard" replace />;

  async function onSubmit(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    if (code.length !== CODE_DIGITS) {
      setFailure(koAdmin.totp.codeRequired);
      return;
    }
    setFailure(null);
    const outcome = await trigger(code);
    if (!outcome.ok) {
      setCode('');
      if (!outcome.network && outcome.status === 401 && outcome.code === 'OPERATOR_ONLY') {
        await clear();
        void navigate('/admin', { replace: true });
        return;
      }
      setFailure(outcome.network ? koAdmin.app.networkFailed : (serverMessage(outcome) ?? koAdmin.totp.failed));
      return;
    }
    await mutate();
    void navigate('/admin/dashboard', { replace: true });
  }

  async function otherAccount() {
    await logout.trigger();
    await clear();
    void navigate('/admin', { replace: true });
  }

  return (
    <main className="console-auth">
      <div className={`console-auth__panel ${enrolling ? 'console-auth__panel--wide' : ''}`}>
        <div className="console-auth__hero">
          <BrandMark size={48} />
          <p className="console-auth__brand">{koAdmin.app.title}</p>
          <h1 className="console-auth__title">{enrolling ? koAdmin.totp.enrollTitle : koAdmin.totp.verifyTitle}</h1>
          <p className="console-auth__lead">{enrolling ? koAdmin.totp.enrollLead : koAdmin.totp.verifyLead}</p>
        </div>
        {enrolling ? (
          enrollment.data ? (
            <EnrollmentSteps enrollment={enrollment.data} />
          ) : enrollment.error ? (
            <ErrorState
              error={enrollment.error}
              onRetry={() => {
                void enrollment.mutate();
                void mutate();
              }}
            />
          ) : (
            <div className="console-state">
              <Spinner label={koAdmin.app.loading} />
            </div>
          )
        ) : null}
        <form className="form" onSubmit={(event) => void onSubmit(event)} noValidate>
          <TextField
            label={koAdmin.totp.code}
            hint={koAdmin.totp.codeHint}
            name="code"
            className="totp-code"
            inputMode="numeric"
            autoComplete="one-time-code"
            pattern="[0-9]*"
            maxLength={CODE_DIGITS}
            value={code}
            onChange={(event) => {
              setCode(event.target.value.replace(/\D/g, '').slice(0, CODE_DIGITS));
            }}
          />
          <FormMessage message={failure} />
          <Button type="submit" block loading={isMutating} disabled={enrolling && !enrollment.data}>
            {isMutating ? koAdmin.totp.submitting : koAdmin.totp.submit}
          </Button>
        </form>
        <button type="button" className="text-link console-auth__switch" onClick={() => void otherAccount()}>
          {koAdmin.totp.otherAccount}
        </button>
      </div>
    </main>
  );
}
