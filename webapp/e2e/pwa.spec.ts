import { expect, test } from '@playwright/test';
import { signUpByApi, uniquePhone, uniqueUsername } from './helpers';

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
  const member = { username: uniqueUsername('pwa'), phone: uniquePhone(), password: 'abcdefg1', nickname: `설치${String(Math.floor(Math.random() * 1000))}` };
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
