import { useEffect, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { serverMessage } from '@/api/outcome';
import { Button } from '@/components/button';
import { FormMessage } from '@/components/form-message';
import { Card, PageBody, PageHeader } from '@/components/page';
import { ko } from '@/i18n/ko';
import { rememberVerifyReturn } from '@/lib/verify-return';
import { usePrepareIdentityVerification } from '../api/prepare-identity-verification';
import { Icon } from '@/components/icons';

function callbackPath(identityVerificationId: string): string {
  return `/verify/callback?identityVerificationId=${encodeURIComponent(identityVerificationId)}`;
}

/** Starts the identity check: the provider's window in production, straight to the result in demo mode. */
export function VerifyPage() {
  const navigate = useNavigate();
  const { trigger: prepare } = usePrepareIdentityVerification();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [params] = useSearchParams();
  const next = params.get('next');

  useEffect(() => {
    rememberVerifyReturn(next);
  }, [next]);

  async function start() {
    setBusy(true);
    setError(null);
    try {
      const prepared = await prepare();
      if (!prepared.ok) {
        setError(serverMessage(prepared) ?? ko.identity.error);
        return;
      }
      const { identityVerificationId, storeId, channelKey, demo } = prepared.data;
      if (demo) {
        void navigate(callbackPath(identityVerificationId));
        return;
      }
      // Loaded only here: the provider's SDK is needed by this one page.
      const { requestIdentityVerification } = await import('@portone/browser-sdk/v2');
      const response = await requestIdentityVerification({
        storeId,
        identityVerificationId,
        channelKey,
        redirectUrl: `${window.location.origin}/verify/callback`,
      });
      if (response?.code !== undefined) {
        setError(response.message ?? ko.identity.error);
        return;
      }
      // Without a redirect (desktop window) the result comes back here.
      void navigate(callbackPath(response?.identityVerificationId ?? identityVerificationId));
    } catch (cause) {
      console.error('Identity verification could not start', cause);
      setError(ko.identity.error);
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <PageHeader title={ko.identity.title} />
      <PageBody>
        <Card className="stack center">
          <div className="empty-state__icon">
            <Icon name="idCard" size={36} />
          </div>
          <p className="lead">{ko.identity.description}</p>
          <FormMessage message={error} />
          <Button block onClick={() => void start()} loading={busy}>
            {busy ? ko.identity.starting : error ? ko.identity.retry : ko.identity.start}
          </Button>
        </Card>
      </PageBody>
    </>
  );
}
