import type { Schemas } from '@/api/client';

/**
 * The browser's side of the opening bell: whether this browser can take pushes, the
 * notification permission, and this device's push subscription. The server's side is in
 * ../api/push.ts; the worker that shows the pushes is public/push-sw.js.
 */

/** Where this browser stands: able to take pushes, unable, or an iPhone's Safari tab. */
export type BellSupport = 'supported' | 'unsupported' | 'ios-browser';

export function bellSupport({ ios, standalone }: { ios: boolean; standalone: boolean }): BellSupport {
  // iOS and iPadOS give web push only to an app added to the home screen.
  if (ios && !standalone) return 'ios-browser';
  const able = 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;
  return able ? 'supported' : 'unsupported';
}

/** Why turning the bell on failed on the browser's side. */
export type BellFailure = 'permission-blocked' | 'permission-dismissed' | 'subscribe-failed';

export class BellError extends Error {
  readonly reason: BellFailure;

  constructor(reason: BellFailure, options?: ErrorOptions) {
    super(reason, options);
    this.name = 'BellError';
    this.reason = reason;
  }
}

/** The bytes of a base64url text (padding optional); a TypeError for anything else. */
export function base64UrlToBytes(value: string): Uint8Array<ArrayBuffer> {
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(value) || value.replace(/=+$/, '').length % 4 === 1) {
    throw new TypeError('not base64url');
  }
  const base64 = value.replace(/=+$/, '').replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(base64.padEnd(Math.ceil(base64.length / 4) * 4, '='));
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

/** The server's VAPID public key as `pushManager.subscribe` takes it: an uncompressed P-256 point. */
export function applicationServerKey(publicKey: string): Uint8Array<ArrayBuffer> {
  let key: Uint8Array<ArrayBuffer>;
  try {
    key = base64UrlToBytes(publicKey);
  } catch (error) {
    throw new BellError('subscribe-failed', { cause: error });
  }
  if (key.length !== 65 || key[0] !== 4) throw new BellError('subscribe-failed');
  return key;
}

/** This device's subscription, if the worker has one. */
export async function currentSubscription(): Promise<PushSubscription | null> {
  try {
    const registration = await navigator.serviceWorker.getRegistration();
    return registration ? await registration.pushManager.getSubscription() : null;
  } catch {
    return null;
  }
}

/**
 * Asks for the permission to notify unless it is granted already. Safari and Firefox ask only
 * from a user's tap, so call this first in a click handler, before any other await.
 */
export async function askPermission(): Promise<void> {
  if (Notification.permission === 'granted') return;
  const answer = await Notification.requestPermission();
  if (answer === 'granted') return;
  throw new BellError(answer === 'denied' ? 'permission-blocked' : 'permission-dismissed');
}

/** How long to wait for the worker to be active (it installs on the first visit). */
export const WORKER_WAIT_MS = 10_000;

async function activeRegistration(): Promise<ServiceWorkerRegistration> {
  const registration = await navigator.serviceWorker.getRegistration();
  if (registration?.active) return registration;
  // Still installing on a first visit; where there is no worker at all (the development
  // server has none), the wait runs out.
  let timer = 0;
  const timeout = new Promise<never>((_, reject) => {
    timer = window.setTimeout(() => {
      reject(new BellError('subscribe-failed'));
    }, WORKER_WAIT_MS);
  });
  try {
    return await Promise.race([navigator.serviceWorker.ready, timeout]);
  } finally {
    window.clearTimeout(timer);
  }
}

function sameBytes(a: ArrayBuffer | null, b: Uint8Array): boolean {
  if (!a || a.byteLength !== b.length) return false;
  const bytes = new Uint8Array(a);
  return bytes.every((byte, index) => byte === b[index]);
}

/**
 * Subscribes this device to the server's pushes, reusing a subscription made with the same key.
 * One made with another key (the server's key changed) is dropped first: the browser refuses a
 * second key on the same worker.
 */
export async function subscribeDevice(publicKey: string): Promise<PushSubscription> {
  const key = applicationServerKey(publicKey);
  const registration = await activeRegistration();
  try {
    const existing = await registration.pushManager.getSubscription();
    if (existing) {
      if (sameBytes(existing.options.applicationServerKey, key)) return existing;
      await existing.unsubscribe();
    }
    return await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
  } catch (error) {
    throw new BellError('subscribe-failed', { cause: error });
  }
}

/** What the server keeps of a subscription: exactly `toJSON()`'s endpoint and keys. */
export function subscriptionBody(subscription: PushSubscription): Schemas['PushSubscriptionBody'] | null {
  const { endpoint, keys } = subscription.toJSON();
  const p256dh = keys?.p256dh;
  const auth = keys?.auth;
  if (!endpoint || !p256dh || !auth) return null;
  return { endpoint, keys: { p256dh, auth } };
}

/** Drops this device's subscription; false when the browser could not. */
export async function dropSubscription(subscription: PushSubscription): Promise<boolean> {
  try {
    return await subscription.unsubscribe();
  } catch {
    return false;
  }
}

/**
 * Turns the bell off on this device as its user leaves it (logout): the server forgets the
 * subscription while the session still holds, then the browser drops it. A device left
 * logged out is not told for the account. Nothing to do without a subscription.
 */
export async function forgetThisDevice(unsubscribe: (endpoint: string) => Promise<unknown>): Promise<void> {
  const subscription = await currentSubscription();
  if (!subscription) return;
  await unsubscribe(subscription.endpoint);
  await dropSubscription(subscription);
}
