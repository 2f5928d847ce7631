import useSWR from 'swr';
import { useAuthCheck } from '@/api/auth-check';
import { api, type Schemas } from '@/api/client';
import { settle, unwrap } from '@/api/outcome';

/** The opening bell's endpoints: the consent to notifications and this device's subscription. */

export const pushStateKey = '/push';

export function fetchPushState() {
  return unwrap(api.GET('/push'));
}

export type PushState = Awaited<ReturnType<typeof fetchPushState>>;

/** Whether the user consents to notifications, and on how many devices the bell is on. */
export function usePushState() {
  const { data: auth } = useAuthCheck();
  return useSWR<PushState, Error>(auth?.loggedIn === true ? pushStateKey : null, fetchPushState);
}

/** Gives (`agree: true`) or withdraws the consent; withdrawing silences every device. */
export function setPushConsent(agree: boolean) {
  return settle(api.POST('/push/consent', { body: { agree } }));
}

export type PushSubscriptionBody = Schemas['PushSubscriptionBody'];

/** Tells the server this device's subscription, to ring it at the opening. */
export function subscribePush(body: PushSubscriptionBody) {
  return settle(api.POST('/push/subscribe', { body }));
}

/** Makes the server forget a subscription. */
export function unsubscribePush(endpoint: string) {
  return settle(api.POST('/push/unsubscribe', { body: { endpoint } }));
}
