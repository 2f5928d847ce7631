import { expect, test } from '@playwright/test';
import { signUpByApi, uniquePhone, uniqueUsername, workerPushes } from './helpers';

test('the app is installable: a manifest with its icons and start URL, and a service worker in control', async ({ page, request }) => {
  const manifestResponse = await request.get('/manifest.webmanifest');
  expect(manifestResponse.ok()).toBe(true);
  const manifest = (await manifestResponse.json()) as {
    name: string;
    short_name: string;
    start_url: string;
    display: string;
    lang: string;
    theme_color: string;
    background_color: string;
    icons: { src: string; sizes: string; type: string; purpose?: string }[];
  };
  expect(manifest).toMatchObject({ name: '텔레파시', short_name: '텔레파시', start_url: '/main', display: 'standalone', lang: 'ko' });
  expect(manifest.theme_color).toMatch(/^#[0-9a-f]{6}$/);
  expect(manifest.background_color).toMatch(/^#[0-9a-f]{6}$/);
  const sizes = manifest.icons.map((icon) => `${icon.sizes} ${icon.purpose ?? 'any'}`);
  expect(sizes).toEqual(expect.arrayContaining(['192x192 any', '512x512 any', '512x512 maskable']));
  for (const icon of manifest.icons) {
    const image = await request.get(icon.src);
    expect(image.ok(), icon.src).toBe(true);
    expect(image.headers()['content-type']).toBe('image/png');
  }

  await page.goto('/login');
  await expect(page.locator('link[rel="manifest"]')).toHaveAttribute('href', '/manifest.webmanifest');
  const worker = await page.evaluate(async () => {
    const registration = await navigator.serviceWorker.ready;
    return { script: registration.active?.scriptURL ?? '', scope: registration.scope };
  });
  expect(worker.script).toMatch(/\/sw\.js$/);
  expect(new URL(worker.scope).pathname).toBe('/');
});

test('offline, the installed app still opens and says so in Korean; API calls are never served from the cache', async ({ page, context }) => {
  test.skip(test.info().project.name !== 'mobile', 'runs once, on the mobile project');
  const member = { username: uniqueUsername('pwa'), phone: uniquePhone(), password: 'abcdefg1', nickname: `설치${String(Math.floor(Math.random() * 1_000_000))}` };
  await signUpByApi(context, member);
  await page.goto('/main');
  await page.evaluate(async () => navigator.serviceWorker.ready);
  // The page in control of the worker from its next load.
  await page.reload();
  await expect(page.getByRole('button', { name: /확성기 \d+개 보유/ })).toBeVisible();

  await context.setOffline(true);
  await page.reload();
  await expect(page.getByRole('alertdialog', { name: '인터넷에 연결되어 있지 않아요' })).toBeVisible();
  const api = await page.evaluate(async () => {
    try {
      const response = await fetch('/api/auth/check');
      return response.status;
    } catch {
      return 'failed';
    }
  });
  expect(api).toBe('failed');

  await context.setOffline(false);
  await expect(page.getByRole('alertdialog', { name: '인터넷에 연결되어 있지 않아요' })).toBeHidden();
});

test('the worker shows the opening bell’s push, one at a time, with the app’s icon and a Korean fallback', async ({ page, context }) => {
  test.skip(test.info().project.name !== 'desktop', 'runs once, on the desktop project');
  await page.goto('/login');
  const origin = new URL(page.url()).origin;
  await context.grantPermissions(['notifications'], { origin });
  const { pushUntilShown } = await workerPushes(context, page);

  await expect
    .poll(() => pushUntilShown(JSON.stringify({ title: '문이 열렸어요', body: '지금 단어를 골라보세요.', url: '/main', tag: 'opening' })))
    .toEqual([{ title: '문이 열렸어요', body: '지금 단어를 골라보세요.', tag: 'opening', icon: `${origin}/icons/icon-192.png`, lang: 'ko', data: { url: '/main' } }]);

  // A push without a payload still says something, and replaces the day's bell rather than adding one.
  await expect
    .poll(() => pushUntilShown(''))
    .toEqual([expect.objectContaining({ title: '텔레파시', body: '저녁 8시, 텔레파시의 문이 열렸어요.', tag: 'opening' })]);

  const badge = await context.request.get('/icons/badge-96.png');
  expect(badge.headers()['content-type']).toBe('image/png');
});
