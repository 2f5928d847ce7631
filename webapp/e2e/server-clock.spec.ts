import fs from 'node:fs';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { signUpByApi, uniquePhone, uniqueUsername } from './helpers';
import { startServer, type StartedServer } from './server-env';

/**
 * A server of its own with the spec's hours, whose demo clock is moved to 15:00 in Seoul on a
 * December day (the Christmas theme), while the browser's clock says a June morning.
 */
const port = Number(process.env.E2E_CLOCK_PORT ?? Number(process.env.E2E_PORT ?? 18080) + 7);
const shots = '/tmp/shots-web';

/** The next 10 December in Seoul: always within the year the demo clock may move. */
function nextDecemberTenth(): string {
  const seoul = new Date(Date.now() + 9 * 60 * 60 * 1000);
  const year = seoul.getUTCMonth() === 11 && seoul.getUTCDate() > 10 ? seoul.getUTCFullYear() + 1 : seoul.getUTCFullYear();
  return `${String(year)}-12-10`;
}

/** A device clock that is wrong: 11:14:30 on 15 June in Seoul, months and hours away. */
const deviceTime = new Date('2026-06-15T11:14:30+09:00');

let server: StartedServer | undefined;

test.beforeAll(async () => {
  test.setTimeout(90_000);
  server = await startServer(`clock-${test.info().project.name}`, port, { TELEPATHY_SERVICE_HOURS: '20:00-02:00' });
  const moved = await fetch(`${server.origin}/api/dev/clock`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ seoulTime: '15:00:00', date: nextDecemberTenth() }),
  });
  expect(moved.ok, await moved.text()).toBe(true);
});

test.afterAll(async () => {
  await server?.stop();
});

function seconds(hhmmss: string): number {
  const [h = 0, m = 0, s = 0] = hhmmss.split(':').map(Number);
  return h * 3600 + m * 60 + s;
}

/** Five hours to the opening, less the few seconds the test has taken since the clock moved. */
async function expectFiveHoursLeft(timer: Locator) {
  await expect(timer).toHaveText(/^0[45]:\d{2}:\d{2}$/);
  const left = seconds((await timer.textContent()) ?? '');
  expect(left).toBeLessThanOrEqual(5 * 3600);
  expect(left).toBeGreaterThan(5 * 3600 - 90);
}

async function screenshot(page: Page, name: string) {
  fs.mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: `${shots}/${name}-${test.info().project.name}.png` });
}

test('with a wrong device clock, the closed hours count down and the theme follow the server’s time', async ({ browser, viewport, locale, timezoneId }) => {
  test.setTimeout(90_000);
  if (!server) throw new Error('the clock server did not start');
  const options = { baseURL: server.origin, viewport, locale, timezoneId };

  // A guest on the login screen.
  const guestContext = await browser.newContext(options);
  const guest = await guestContext.newPage();
  await guest.clock.install({ time: deviceTime });
  await guest.goto('/login');
  const comingSoon = guest.getByRole('dialog', { name: '지금은 운영 시간이 아니에요' });
  await expect(comingSoon).toBeVisible();
  await expectFiveHoursLeft(comingSoon.getByRole('timer'));
  await expect(guest.locator('html')).toHaveAttribute('data-theme', 'christmas');
  expect(await guest.evaluate(() => new Date().getMonth())).toBe(5);
  await screenshot(guest, 'closed-login');
  await guestContext.close();

  // A member on /main.
  const memberContext = await browser.newContext(options);
  await signUpByApi(memberContext, { username: uniqueUsername('clk'), phone: uniquePhone(), password: 'abcdefg1', nickname: `시계${String(Math.floor(Math.random() * 10_000))}` });
  const member = await memberContext.newPage();
  await member.clock.install({ time: deviceTime });
  await member.goto('/main');
  const closed = member.getByRole('dialog', { name: '지금은 운영 시간이 아니에요' });
  await expect(closed).toBeVisible();
  await expectFiveHoursLeft(closed.getByRole('timer'));
  await expect(member.locator('html')).toHaveAttribute('data-theme', 'christmas');
  await screenshot(member, 'closed-main');
  await memberContext.close();
});
