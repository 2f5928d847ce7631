import fs from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { expectAccessible } from './accessibility';
import { signUpByApi, uniquePhone, uniqueUsername } from './helpers';
import { startServer, type StartedServer } from './server-env';

/**
 * A demo server of its own with demo mode's hours (always open), whose clock the test moves
 * to 15:00 in Seoul and back, as `POST /api/dev/clock` lets anyone on the machine.
 */
const port = Number(process.env.E2E_DEMO_HOURS_PORT ?? Number(process.env.E2E_PORT ?? 18080) + 8);
const shots = '/tmp/shots-web';

let server: StartedServer | undefined;

test.beforeAll(async () => {
  test.setTimeout(90_000);
  server = await startServer(`demo-hours-${test.info().project.name}`, port, {});
});

test.afterAll(async () => {
  await server?.stop();
});

async function moveClock(body: Record<string, string>) {
  if (!server) throw new Error('the demo server did not start');
  const moved = await fetch(`${server.origin}/api/dev/clock`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: server.origin },
    body: JSON.stringify(body),
  });
  expect(moved.ok, await moved.text()).toBe(true);
}

function seconds(hhmmss: string): number {
  const [h = 0, m = 0, s = 0] = hhmmss.split(':').map(Number);
  return h * 3600 + m * 60 + s;
}

async function screenshot(page: Page, name: string) {
  fs.mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: `${shots}/${name}-${test.info().project.name}.png` });
}

test('the demo is open on the real time, shows the closed hours once its clock is moved to 15:00, and opens again when moved back', async ({
  browser,
  viewport,
  locale,
  timezoneId,
}) => {
  test.setTimeout(90_000);
  if (!server) throw new Error('the demo server did not start');
  const context = await browser.newContext({ baseURL: server.origin, viewport, locale, timezoneId });
  const suffix = String(Math.floor(Math.random() * 10_000));
  await signUpByApi(context, { username: uniqueUsername('dh'), phone: uniquePhone(), password: 'abcdefg1', nickname: `데모${suffix}` });
  const page = await context.newPage();
  try {
    // Open whatever the hour: nobody trying the demo at noon is locked out.
    await page.goto('/main');
    const closed = page.getByRole('dialog', { name: '지금은 운영 시간이 아니에요' });
    await expect(page.locator('.word-button').first()).toBeEnabled();
    await expect(closed).toHaveCount(0);

    // 15:00 in Seoul on the demo's clock: closed until 20:00, five hours away.
    await moveClock({ seoulTime: '15:00:00' });
    await expect(closed).toBeVisible({ timeout: 15_000 });
    await expect(closed).toContainText('매일 20:00 ~ 02:00');
    const timer = closed.getByRole('timer');
    await expect(timer).toHaveText(/^0[45]:\d{2}:\d{2}$/);
    const left = seconds((await timer.textContent()) ?? '');
    expect(left).toBeLessThanOrEqual(5 * 3600);
    expect(left).toBeGreaterThan(5 * 3600 - 90);
    await expect(timer).not.toHaveText((await timer.textContent()) ?? '', { timeout: 3000 });

    await screenshot(page, 'demo-closed-main');
    await expectAccessible(page, 'main, closed on the demo clock');

    // The board takes a word meanwhile.
    const board = closed.getByRole('region', { name: '기다리는 사람들의 한마디' });
    const words = `데모에서도 기다려요 ${suffix}`;
    await board.getByLabel('한마디 남기기').fill(words);
    await board.getByRole('button', { name: '남기기' }).click();
    await expect(board.getByRole('listitem').first()).toContainText(words);

    // Back on the real time: open again.
    await moveClock({});
    await expect(closed).toBeHidden({ timeout: 15_000 });
    await expect(page.locator('.word-button').first()).toBeEnabled();
  } finally {
    await moveClock({});
    await context.close();
  }
});
