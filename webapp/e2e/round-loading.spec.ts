import fs from 'node:fs';
import { expect, test } from '@playwright/test';
import { expectAccessible } from './accessibility';
import { signUpByApi, uniquePhone, uniqueUsername } from './helpers';

const shots = '/tmp/shots-web';

// On a slow network the round comes late: until it does, the timer says it is loading rather
// than showing a number it cannot know.
test('while the round is on its way, the timer says it is loading, then counts the server’s seconds', async ({ page, context }) => {
  await signUpByApi(context, { username: uniqueUsername('slow'), phone: uniquePhone(), password: 'abcdefg1', nickname: `느린${String(Math.floor(Math.random() * 10_000))}` });

  // Everything that tells the round is held back: the two round calls and the socket's frames.
  let held = true;
  const release: (() => void)[] = [];
  await page.route(/\/api\/(server-time|match\/current-round)$/, async (route) => {
    if (held) await new Promise<void>((resolve) => release.push(resolve));
    await route.continue();
  });
  await page.routeWebSocket('**/ws', (ws) => {
    const server = ws.connectToServer();
    server.onMessage((message) => {
      if (held) release.push(() => ws.send(message));
      else ws.send(message);
    });
  });

  await page.goto('/main');
  const loading = page.getByRole('timer', { name: '남은 시간을 불러오는 중' });
  await expect(loading).toBeVisible();
  await expect(loading).toHaveAttribute('aria-busy', 'true');
  await expect(page.getByRole('status', { name: '단어를 불러오는 중…' })).toBeVisible();
  // Not a frozen "30초", nor a count from a guess.
  await page.waitForTimeout(2500);
  await expect(loading).toBeVisible();
  await expect(loading).not.toHaveText(/\d/);
  fs.mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: `${shots}/round-loading-${test.info().project.name}.png` });

  held = false;
  for (const go of release.splice(0)) go();
  await expect(page.getByRole('timer', { name: /^남은 시간 \d+초$/ })).toBeVisible();
  await expect(loading).toHaveCount(0);
  await expect(page.locator('[data-round] .word-button')).toHaveCount(4);
});

// On a slow network the login check comes late too: /main shows its frame at once, not a
// wordless spinner, and what needs the account follows once the check answers.
test('while the login check is on its way, /main shows its frame at once', async ({ page, context }) => {
  await signUpByApi(context, { username: uniqueUsername('slowa'), phone: uniquePhone(), password: 'abcdefg1', nickname: `틀${String(Math.floor(Math.random() * 100_000))}` });
  let held = true;
  const release: (() => void)[] = [];
  await page.route(/\/api\/auth\/check$/, async (route) => {
    if (held) await new Promise<void>((resolve) => release.push(resolve));
    await route.continue();
  });

  await page.goto('/main');
  await expect(page.getByRole('heading', { level: 1, name: '텔레파시' })).toBeVisible();
  await expect(page.getByText('같은 단어를 고른 사람과 연결돼요')).toBeVisible();
  await expect(page.getByRole('navigation', { name: '주요 메뉴' })).toBeVisible();
  await page.waitForTimeout(1500);
  await expect(page).toHaveURL(/\/main$/);
  fs.mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: `${shots}/main-before-login-check-${test.info().project.name}.png` });
  await expectAccessible(page, '/main before the login check answers');

  held = false;
  for (const go of release.splice(0)) go();
  await expect(page.locator('[data-round] .word-button')).toHaveCount(4);
  await expect(page).toHaveURL(/\/main$/);
});

test('a guest on /main is still sent to /login once the check answers', async ({ page }) => {
  await page.goto('/main');
  await expect(page).toHaveURL(/\/login$/);
});
