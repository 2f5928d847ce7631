import useSWR from 'swr';
import useSWRMutation from 'swr/mutation';
import { api, type Schemas } from '@/api/client';
import { settle, unwrap } from '@/api/outcome';

export type TotpEnrollment = Schemas['TotpEnrollment'];

/**
 * The authenticator app's secret while enrolling. Each read is audited and the secret stays the
 * same until the first code, so it is read once per visit.
 */
export function useTotpEnrollment(enabled: boolean) {
  return useSWR<TotpEnrollment, Error>(
    enabled ? 'admin/totp/enrollment' : null,
    () => unwrap(api.GET('/admin/totp/enrollment')),
    { revalidateOnFocus: false, revalidateOnReconnect: false, shouldRetryOnError: false },
  );
}

/** Sends the app's code: it completes the session's second factor (and enrols the app the first time). */
export function useSubmitTotp() {
  return useSWRMutation('POST /admin/totp', (_key: string, { arg }: { arg: string }) =>
    settle(api.POST('/admin/totp', { body: { code: arg } })),
  );
}
