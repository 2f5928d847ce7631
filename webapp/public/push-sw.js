// @ts-check
/**
 * The opening bell in the service worker: shows the server's push at 20:00 and opens the app
 * when it is clicked. The worker Workbox generates (vite.config.ts) loads this file with
 * `importScripts`, so the caching it does stays exactly as generated; this file adds only
 * these three listeners. Plain JavaScript because it is served as it is; `npm run typecheck`
 * checks it (tsconfig.worker.json) and src/app/push-worker.test.ts runs it.
 */

const sw = /** @type {ServiceWorkerGlobalScope} */ (/** @type {unknown} */ (self));

/** Shown when a push carries no readable payload (kept in step with src/i18n/ko.ts by a test). */
const DEFAULT_TITLE = '텔레파시';
const DEFAULT_BODY = '저녁 8시, 텔레파시의 문이 열렸어요.';
const DEFAULT_URL = '/main';
const ICON = '/icons/icon-192.png';
const BADGE = '/icons/badge-96.png';

/**
 * The payload the server sends: `{ title, body, url, tag }`. A missing or non-JSON payload
 * still shows a notification (browsers require one for every push).
 * @param {PushMessageData | null} data
 * @returns {{ title: string, body: string, url: string, tag: string }}
 */
function readPayload(data) {
  /** @type {Record<string, unknown> | null} */
  let fields = null;
  const text = data ? data.text().trim() : '';
  try {
    const parsed = /** @type {unknown} */ (JSON.parse(text));
    if (typeof parsed === 'object' && parsed !== null) fields = /** @type {Record<string, unknown>} */ (parsed);
  } catch {
    // Not JSON (or nothing at all): the text, if any, is the message itself.
  }
  /** @param {unknown} value */
  const words = (value) => (typeof value === 'string' && value.trim() !== '' ? value : null);
  return {
    title: words(fields?.title) ?? DEFAULT_TITLE,
    body: (fields ? words(fields.body) : words(text)) ?? DEFAULT_BODY,
    url: appPath(fields?.url),
    tag: words(fields?.tag) ?? 'opening',
  };
}

/**
 * A path of this app to open, or /main: anything that is not a same-origin path (another
 * site, `//host`, `javascript:`) is ignored.
 * @param {unknown} value
 * @returns {string}
 */
function appPath(value) {
  if (typeof value !== 'string' || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return DEFAULT_URL;
  try {
    const url = new URL(value, sw.location.origin);
    if (url.origin !== sw.location.origin) return DEFAULT_URL;
    return url.pathname + url.search + url.hash;
  } catch {
    return DEFAULT_URL;
  }
}

sw.addEventListener('push', (event) => {
  const { title, body, url, tag } = readPayload(event.data);
  event.waitUntil(
    sw.registration.showNotification(title, {
      body,
      icon: ICON,
      badge: BADGE,
      tag,
      // One bell a day: a second push with the same tag replaces the first without ringing again.
      // @ts-expect-error renotify is in browsers, not in TypeScript's NotificationOptions.
      renotify: false,
      lang: 'ko',
      data: { url },
    }),
  );
});

sw.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const data = /** @type {unknown} */ (event.notification.data);
  const url = appPath(typeof data === 'object' && data !== null && 'url' in data ? data.url : undefined);
  event.waitUntil(openApp(url));
});

/**
 * Brings a window of the app forward at `path`, or opens one.
 * @param {string} path
 */
async function openApp(path) {
  const target = new URL(path, sw.location.origin);
  const windows = await sw.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const ours = windows.filter((client) => new URL(client.url).origin === sw.location.origin);
  const client = ours.find((candidate) => candidate.focused) ?? ours[0];
  if (!client) {
    await sw.clients.openWindow(target.href);
    return;
  }
  let focused = client;
  try {
    focused = await client.focus();
  } catch {
    // Focusing needs the click's user activation, which a browser may not pass on; the
    // window is still taken to the app's page.
  }
  const here = new URL(focused.url);
  if (here.pathname + here.search === target.pathname + target.search) return;
  try {
    await focused.navigate(target.href);
  } catch {
    // A window this worker does not control cannot be navigated from here; it is in front at least.
  }
}

/**
 * The browser renewed or dropped the subscription (it may, at any time): the server learns the
 * new endpoint and forgets the old one, so the bell keeps ringing without a visit to My page.
 */
sw.addEventListener('pushsubscriptionchange', (event) => {
  const change = /** @type {ExtendableEvent & { oldSubscription?: PushSubscription | null, newSubscription?: PushSubscription | null }} */ (event);
  change.waitUntil(renew(change.oldSubscription ?? null, change.newSubscription ?? null));
});

/**
 * @param {PushSubscription | null} previous
 * @param {PushSubscription | null} next
 */
async function renew(previous, next) {
  let current = next;
  if (!current && previous) {
    try {
      current = await sw.registration.pushManager.subscribe(previous.options);
    } catch {
      current = null;
    }
  }
  const json = current?.toJSON();
  if (json?.endpoint && json.keys?.p256dh && json.keys.auth) {
    await post('/api/push/subscribe', { endpoint: json.endpoint, keys: { p256dh: json.keys.p256dh, auth: json.keys.auth } });
  }
  if (previous && previous.endpoint !== current?.endpoint) {
    await post('/api/push/unsubscribe', { endpoint: previous.endpoint });
  }
}

/**
 * @param {string} path
 * @param {unknown} body
 */
async function post(path, body) {
  try {
    await fetch(path, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch {
    // Offline: My page sends the subscription again on the next visit.
  }
}
