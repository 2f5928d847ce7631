import fs from 'node:fs';
import { expect, test } from '@playwright/test';
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
