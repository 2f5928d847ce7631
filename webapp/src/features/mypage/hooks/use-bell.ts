import { useCallback, useEffect, useRef, useState } from 'react';
import { toast } from 'sonner';
import { useAppConfig } from '@/api/app-config';
import type { Failure } from '@/api/outcome';
import { ko } from '@/i18n/ko';
import { useInstall } from '@/lib/install';
import { setPushConsent, subscribePush, unsubscribePush, usePushState, type PushState } from '../api/push';
import {
  askPermission,
  BellError,
  bellSupport,
  currentSubscription,
  dropSubscription,
  subscribeDevice,
  subscriptionBody,
  type BellFailure,
} from '../lib/bell';

const failureText: Record<BellFailure, string> = {
  'permission-blocked': ko.bell.permissionBlocked,
  'permission-dismissed': ko.bell.permissionDismissed,
  'subscribe-failed': ko.bell.subscribeFailed,
};

function serverFailureText(failure: Failure): string {
  return failure.network ? ko.bell.networkFailed : (failure.message ?? ko.bell.failed);
}

function readPermission(): NotificationPermission {
  return Notification.permission;
}

/**
 * The opening bell of this device: on when the worker holds a push subscription and the server
 * knows the user consents. Turning it on asks the browser, the server and the push service in
 * turn; each failure leaves it off and says why in a toast.
 */
export function useBell() {
  const { ios, standalone } = useInstall();
  const support = bellSupport({ ios, standalone });
  const supported = support === 'supported';
  const { data: config, error: configError } = useAppConfig();
  const { data: state, error: stateError, mutate } = usePushState();
  const [permission, setPermission] = useState<NotificationPermission | null>(() => (supported ? readPermission() : null));
  // undefined while the worker is still being asked.
  const [subscription, setSubscription] = useState<PushSubscription | null | undefined>(supported ? undefined : null);
  const [busy, setBusy] = useState(false);

  // The permission and the subscription can change outside the page (the browser's site
  // settings), so they are read again when the permission changes or the page comes back.
  useEffect(() => {
    if (!supported) return;
    let live = true;
    const refresh = () => {
      setPermission(readPermission());
      void currentSubscription().then((found) => {
        if (live) setSubscription(found);
      });
    };
    refresh();
    let status: PermissionStatus | null = null;
    // `permissions` is missing in older browsers and in jsdom, whatever the DOM types say.
    const permissions = (navigator as Partial<Navigator>).permissions;
    permissions
      ?.query({ name: 'notifications' })
      .then((found) => {
        if (!live) return;
        status = found;
        status.addEventListener('change', refresh);
      })
      .catch(() => undefined);
    const onVisible = () => {
      if (document.visibilityState === 'visible') refresh();
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      live = false;
      status?.removeEventListener('change', refresh);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [supported]);

  // Once per visit, this device and the server are brought in step. A subscription the server
  // may have lost (the user withdrew on another device and agreed again, another member used
  // this browser, the push service renewed it) is sent again; one left after a withdrawal is
  // dropped, so the switch shows what will happen at 20:00.
  const synced = useRef(false);
  useEffect(() => {
    if (synced.current || !state || subscription === undefined || busy) return;
    synced.current = true;
    if (!subscription) return;
    if (!state.consent) {
      void dropSubscription(subscription).then(() => {
        setSubscription(null);
      });
      return;
    }
    const body = subscriptionBody(subscription);
    if (!body) return;
    void subscribePush(body).then((outcome) => {
      if (outcome.ok) void mutate();
    });
  }, [state, subscription, busy, mutate]);

  const showState = useCallback(
    (next: Pick<PushState, 'consent' | 'devices'>) =>
      // The switch is in use only once the state is known: there is a state to update.
      mutate((current) => (current ? { ...current, ...next } : current), { revalidate: false }),
    [mutate],
  );

  /** Call straight from the click (the permission prompt needs the user's tap). */
  async function turnOn({ consentGiven }: { consentGiven: boolean }) {
    if (!config || busy) return;
    setBusy(true);
    try {
      // First, while the tap still counts: Safari and Firefox ask only from a user's gesture.
      await askPermission();
      if (!consentGiven) {
        const consent = await setPushConsent(true);
        if (!consent.ok) {
          toast.error(serverFailureText(consent));
          return;
        }
        await showState(consent.data);
      }
      const created = await subscribeDevice(config.pushPublicKey);
      const body = subscriptionBody(created);
      const answer = body ? await subscribePush(body) : null;
      if (!answer?.ok) {
        // The server does not know it: the device stays off, with no subscription of its own.
        await dropSubscription(created);
        setSubscription(null);
        toast.error(answer ? serverFailureText(answer) : ko.bell.subscribeFailed);
        return;
      }
      setSubscription(created);
      toast.success(answer.data.message || ko.bell.onDone);
    } catch (error) {
      if (error instanceof BellError) {
        toast.error(failureText[error.reason]);
      } else {
        console.error('Turning the opening bell on failed', error);
        toast.error(ko.bell.failed);
      }
    } finally {
      setPermission(readPermission());
      setBusy(false);
      void mutate();
    }
  }

  async function turnOff() {
    if (!subscription || busy) return;
    setBusy(true);
    try {
      // Dropped here first: the push service forgets the endpoint, so nothing more arrives even
      // if the server is not reached now (it forgets the endpoint at its next, refused, push).
      if (!(await dropSubscription(subscription))) {
        toast.error(ko.bell.failed);
        return;
      }
      setSubscription(null);
      const answer = await unsubscribePush(subscription.endpoint);
      toast.success(answer.ok ? answer.data.message || ko.bell.offDone : ko.bell.offDone);
    } finally {
      setBusy(false);
      void mutate();
    }
  }

  /** Withdraws the consent; true when the server took it. */
  async function withdraw(): Promise<boolean> {
    setBusy(true);
    try {
      const answer = await setPushConsent(false);
      if (!answer.ok) {
        toast.error(serverFailureText(answer));
        return false;
      }
      await showState(answer.data);
      if (subscription) {
        await dropSubscription(subscription);
        setSubscription(null);
      }
      toast.success(answer.data.message || ko.bell.withdrawDone);
      return true;
    } finally {
      setBusy(false);
    }
  }

  const on = subscription != null && state?.consent === true && permission !== 'denied';
  const loadFailed = stateError !== undefined || configError !== undefined;
  const loading = !loadFailed && (state === undefined || config === undefined || subscription === undefined);

  return { support, permission, state, loadFailed, on, busy, loading, turnOn, turnOff, withdraw };
}
