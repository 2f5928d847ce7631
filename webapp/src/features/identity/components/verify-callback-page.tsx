import { useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { serverMessage } from '@/api/outcome';
import { ButtonLink } from '@/components/button';
import { Card, PageBody, PageHeader } from '@/components/page';
import { Spinner } from '@/components/spinner';
import { ko } from '@/i18n/ko';
import { verifyReturn } from '@/lib/verify-return';
import { useConfirmIdentityVerification } from '../api/confirm-identity-verification';
import { Icon } from '@/components/icons';

type Result =
  | { state: 'checking' }
  | { state: 'done'; success: boolean; message: string; name?: string };

/** Shows the result of the identity check whose id the provider put in the query. */
export function VerifyCallbackPage() {
  const [params] = useSearchParams();
  const identityVerificationId = params.get('identityVerificationId');
  const { trigger: confirm } = useConfirmIdentityVerification();
  // The page that sent the user here for a real name, if one did.
  const [back] = useState(verifyReturn);
  const [result, setResult] = useState<Result>(() =>
    identityVerificationId ? { state: 'checking' } : { state: 'done', success: false, message: ko.identity.invalidId },
  );
  // Confirming twice (React's development double effect) would be refused the second time.
  const confirmedFor = useRef<string | null>(null);

  useEffect(() => {
    if (!identityVerificationId || confirmedFor.current === identityVerificationId) return;
    confirmedFor.current = identityVerificationId;
    void confirm({ identityVerificationId }).then((outcome) => {
      if (!outcome.ok) {
        setResult({
          state: 'done',
          success: false,
          message: outcome.network ? ko.identity.error : (serverMessage(outcome) ?? ko.identity.error),
        });
        return;
      }
      setResult({ state: 'done', success: true, message: outcome.data.message, name: outcome.data.user.name });
    });
  }, [identityVerificationId, confirm]);

  return (
    <>
      <PageHeader title={ko.identity.callbackTitle} backTo="/main" />
      <PageBody>
        <Card className="stack center">
          {result.state === 'checking' ? (
            <>
              <Spinner />
              <p role="status">{ko.identity.checking}</p>
            </>
          ) : (
            <>
              <div className={`result-icon ${result.success ? 'result-icon--ok' : 'result-icon--error'}`} aria-hidden="true">
                <Icon name={result.success ? 'check' : 'alert'} size={32} strokeWidth={2.6} />
              </div>
              <p role={result.success ? 'status' : 'alert'} className="result-message">
                {result.message}
              </p>
              {result.success && result.name ? <p className="result-name">{ko.identity.verifiedName(result.name)}</p> : null}
              {back ? (
                <ButtonLink to={back} block>
                  {ko.identity.goBack}
                </ButtonLink>
              ) : null}
              <ButtonLink to="/main" block variant={back ? 'secondary' : 'primary'}>
                {ko.identity.toMain}
              </ButtonLink>
            </>
          )}
        </Card>
      </PageBody>
    </>
  );
}
