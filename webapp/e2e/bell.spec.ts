import { expect, test } from '@playwright/test';
import { expectAccessible } from './accessibility';
import { signUpByApi, uniquePhone, uniqueUsername, workerPushes } from './helpers';
import { startPushService, type BrowserSubscription, type PushService } from './push-service';
import { startServer, type StartedServer } from './server-env';

/**
 * The opening bell end to end: a newcomer turns it on from My page, the demo clock is set to
 * 19:59:55, and at 20:00 the server's push reaches a push service, which decrypts it, and the
 * service worker shows it; a click opens /main.
 *
 * Headless Chromium refuses real push subscriptions, so the page's PushManager hands out a
 * subscription of the local push service (its keys held by the test), as a browser's would
 * point at its vendor's; the push service gives what it decrypted to the worker through the
 * DevTools protocol, as the browser does after decrypting.
 */
const port = Number(process.env.E2E_BELL_PORT ?? Number(process.env.E2E_PORT ?? 18080) + 5);

let pushService: PushService | undefined;
let server: StartedServer | undefined;

test.beforeAll(async () => {
  test.setTimeout(90_000);
  pushService = await startPushService();
  server = await startServer(`bell-${test.info().project.name}`, port, { TELEPATHY_PUSH_SERVICES: pushService.origin });
});

test.afterAll(async () => {
  await server?.stop();
  await pushService?.stop();
});

/** The page's PushManager, subscribing to the local push service. */
function fakePushManager(subscription: BrowserSubscription) {
  const stored = 'e2e-push-subscription';
  const make = () => ({
    endpoint: subscription.endpoint,
    expirationTime: null,
    options: { userVisibleOnly: true, applicationServerKey: null },
    getKey: () => null,
    toJSON: () => ({ endpoint: subscription.endpoint, expirationTime: null, keys: { p256dh: subscription.p256dh, auth: subscription.auth } }),
    unsubscribe: () => {
      localStorage.removeItem(stored);
      return Promise.resolve(true);
    },
  });
  PushManager.prototype.subscribe = function (options?: PushSubscriptionOptionsInit) {
    const key = options?.applicationServerKey;
    const bytes = key instanceof ArrayBuffer ? new Uint8Array(key) : ArrayBuffer.isView(key) ? new Uint8Array(key.buffer, key.byteOffset, key.byteLength) : null;
    const text = bytes ? btoa(String.fromCharCode(...bytes)).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '') : typeof key === 'string' ? key : '';
    localStorage.setItem(stored, text);
    return Promise.resolve(make() as unknown as PushSubscription);
  };
  PushManager.prototype.getSubscription = function () {
    return Promise.resolve(localStorage.getItem(stored) === null ? null : (make() as unknown as PushSubscription));
  };
}

test('a newcomer turns the bell on from My page and is told at 20:00; the click opens /main', async ({ browser, viewport, locale, timezoneId }) => {
  test.skip(test.info().project.name !== 'desktop', 'runs once, on the desktop project');
  test.setTimeout(90_000);
  if (!server || !pushService) throw new Error('the bell server did not start');
  const origin = server.origin;
  const context = await browser.newContext({ baseURL: origin, viewport, locale, timezoneId });
  await context.grantPermissions(['notifications'], { origin });
  const subscription = pushService.subscribe();
  await context.addInitScript(fakePushManager, subscription);
  const page = await context.newPage();

  await signUpByApi(context, { username: uniqueUsername('bell'), password: 'abcdefg1', phone: uniquePhone(), nickname: '종소리' });
  await page.goto('/mypage');
  const bell = page.getByRole('switch', { name: '8시에 알려주기' });
  await expect(bell).toHaveAttribute('aria-checked', 'false');
  await bell.click();
  const consent = page.getByRole('alertdialog', { name: '알림 수신에 동의해주세요' });
  await expect(consent.getByRole('link', { name: /^알림 수신 동의 내용 보기/ })).toHaveAttribute('href', '/terms/notification-consent');
  await consent.getByRole('button', { name: '동의하고 켜기' }).click();
  await expect(page.getByText('저녁 8시에 문이 열리면 이 기기로 알려드릴게요.')).toBeVisible();
  await expect(bell).toHaveAttribute('aria-checked', 'true');
  // Subscribed with the server's key.
  const config = (await (await context.request.get('/api/app-config')).json()) as { pushPublicKey: string };
  expect(await page.evaluate(() => localStorage.getItem('e2e-push-subscription'))).toBe(config.pushPublicKey);
  const state = (await (await context.request.get('/api/push')).json()) as { consent: boolean; devices: number };
  expect(state).toMatchObject({ consent: true, devices: 1 });

  // The demo clock to 19:59:55: nothing yet, then the bell. Each evening rings once: a
  // server started between 20:00 and 20:30 in Seoul has rung tonight's already (to no
  // device), so the test names tomorrow's evening, and a repeated run a later one.
  const evening = new Date(Date.now() + (1 + test.info().repeatEachIndex) * 86_400_000);
  const date = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Seoul' }).format(evening);
  const clock = await context.request.post('/api/dev/clock', { data: { seoulTime: '19:59:55', date } });
  expect(clock.ok(), await clock.text()).toBe(true);
  // My page, a moment before the opening, says what the bell will say.
  await page.reload();
  const preview = page.getByRole('figure', { name: '이렇게 알려드려요' });
  await expect(preview).toContainText('텔레파시가 문을 열었어요');
  await expect(preview).toContainText(/첫 라운드 단어: [^,]+, [^,]+, [^,]+, [^,]+/);
  const previewBody = (await preview.locator('.bell-card__push-body').textContent()) ?? '';
  await page.waitForTimeout(1000);
  expect(pushService.received).toHaveLength(0);
  await expect.poll(() => pushService?.received.length, { timeout: 15_000 }).toBe(1);
  expect(pushService.refused).toEqual([]);
  const [push] = pushService.received;
  if (!push) throw new Error('no push');
  expect(push).toMatchObject({ ttl: 3600, topic: 'opening', urgency: 'high', vapidKey: config.pushPublicKey });
  const payload = JSON.parse(push.payload) as Record<string, string>;
  expect(payload).toMatchObject({ title: '텔레파시가 문을 열었어요', url: '/main', tag: 'opening' });
  // The evening's first four words on a line of their own, before the invitation: what My page said.
  expect(payload.body).toMatch(/^첫 라운드 단어: [^,]+, [^,]+, [^,]+, [^,\n]+\n지금 들어오면 같은 단어를 고른 사람과 이야기할 수 있어요\.$/);
  expect(payload.body).toBe(previewBody);

  // The browser hands the decrypted push to the worker, which shows it.
  const { pushUntilShown } = await workerPushes(context, page);
  await expect
    .poll(async () => (await pushUntilShown(push.payload)).map((n) => `${n.title}|${n.body}`))
    .toEqual([`${payload.title}|${payload.body}`]);

  // A click on it opens /main in the app's window.
  const [worker] = context.serviceWorkers();
  if (!worker) throw new Error('no service worker');
  // The worker's own scope: its types are not the page's.
  await worker.evaluate(`(async () => {
    const [notification] = await self.registration.getNotifications();
    if (notification) self.dispatchEvent(new NotificationEvent('notificationclick', { notification }));
  })()`);
  await expect(page).toHaveURL(`${origin}/main`);
  await context.close();
});

test('My page shows the bell as it will come, at either width', async ({ browser, viewport, locale, timezoneId }) => {
  if (!server) throw new Error('the bell server did not start');
  const context = await browser.newContext({ baseURL: server.origin, viewport, locale, timezoneId });
  const page = await context.newPage();
  await signUpByApi(context, { username: uniqueUsername('bellp'), password: 'abcdefg1', phone: uniquePhone(), nickname: `미리${String(Math.floor(Math.random() * 100_000))}` });
  await page.goto('/mypage');
  const preview = page.getByRole('figure', { name: '이렇게 알려드려요' });
  await expect(preview).toContainText('텔레파시가 문을 열었어요');
  await expect(preview).toContainText('지금 들어오면 같은 단어를 고른 사람과 이야기할 수 있어요.');
  await preview.scrollIntoViewIfNeeded();
  await page.locator('.bell-card').screenshot({ path: `/tmp/shots-web/bell-preview-${test.info().project.name}.png` });
  await expectAccessible(page, 'my page, the bell and what it will say');
  await context.close();
});
