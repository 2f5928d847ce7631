import { expect, test, type Locator, type Page } from '@playwright/test';
import { signUpByApi, uniquePhone, uniqueUsername } from './helpers';
import { startServer, type StartedServer } from './server-env';

/** A server of its own whose service hours start two hours from now: closed for the whole test. */
const port = Number(process.env.E2E_CLOSED_PORT ?? Number(process.env.E2E_PORT ?? 18080) + 1);
const OPENS_IN_SECONDS = 2 * 60 * 60;

/** HH:MM in Seoul, `offsetSeconds` from now (rounded down to the minute). */
function seoulTime(offsetSeconds: number): string {
  const seoul = new Date(Date.now() + offsetSeconds * 1000 + 9 * 60 * 60 * 1000);
  return `${String(seoul.getUTCHours()).padStart(2, '0')}:${String(seoul.getUTCMinutes()).padStart(2, '0')}`;
}

function seconds(hhmmss: string): number {
  const [h = 0, m = 0, s = 0] = hhmmss.split(':').map(Number);
  return h * 3600 + m * 60 + s;
}

let server: StartedServer | undefined;

test.beforeAll(async () => {
  test.setTimeout(90_000);
  const hours = `${seoulTime(OPENS_IN_SECONDS)}-${seoulTime(OPENS_IN_SECONDS + 3600)}`;
  server = await startServer(`closed-${test.info().project.name}`, port, { TELEPATHY_SERVICE_HOURS: hours });
});

test.afterAll(async () => {
  await server?.stop();
});

/** The closed screen's countdown ticks: its text changes, and it counts down to the opening. */
async function expectTicking(timer: Locator) {
  const first = (await timer.textContent()) ?? '';
  expect(first).toMatch(/^\d{2}:\d{2}:\d{2}$/);
  // The window starts on a whole minute at most a minute before two hours from now.
  expect(seconds(first)).toBeGreaterThan(OPENS_IN_SECONDS - 120);
  expect(seconds(first)).toBeLessThanOrEqual(OPENS_IN_SECONDS);
  await expect(timer).not.toHaveText(first, { timeout: 3000 });
  expect(seconds((await timer.textContent()) ?? '')).toBeLessThan(seconds(first));
}

/** Counts the comments a page posts. */
function countPosts(page: Page): () => number {
  let posts = 0;
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/comments') posts += 1;
  });
  return () => posts;
}

test('outside the service hours a guest and a member see when it opens, and leave a word on the board', async ({
  browser,
  viewport,
  locale,
  timezoneId,
}) => {
  test.setTimeout(90_000);
  if (!server) throw new Error('the closed server did not start');
  const options = { baseURL: server.origin, viewport, locale, timezoneId };
  const suffix = Math.floor(Math.random() * 10_000);

  // Three older comments, so the newest three must drop one.
  const seeder = await browser.newContext(options);
  for (const content of ['첫 번째 한마디', '두 번째 한마디', '세 번째 한마디']) {
    const response = await seeder.request.post('/api/comments', { data: { content: `${content} ${suffix}` } });
    expect(response.ok()).toBe(true);
  }
  await seeder.close();

  // A guest on the login screen: the coming-soon dialog.
  const guestContext = await browser.newContext(options);
  const guest = await guestContext.newPage();
  const guestPosts = countPosts(guest);
  await guest.goto('/login');
  const comingSoon = guest.getByRole('dialog', { name: '지금은 운영 시간이 아니에요' });
  await expect(comingSoon).toBeVisible();
  await expect(comingSoon).toContainText('매일 20:00 ~ 02:00');
  await expectTicking(comingSoon.getByRole('timer'));

  const guestBoard = comingSoon.getByRole('region', { name: '기다리는 사람들의 한마디' });
  await expect(guestBoard.getByRole('listitem')).toHaveCount(3);
  await expect(guestBoard).toContainText(`세 번째 한마디 ${suffix}`);

  // Blank text is not sent, by the button or by Enter.
  const guestInput = guestBoard.getByLabel('한마디 남기기');
  await guestInput.fill('   ');
  await expect(guestBoard.getByRole('button', { name: '남기기' })).toBeDisabled();
  await guestInput.press('Enter');

  const guestWords = `손님도 기다려요 ${suffix}`;
  await guestInput.fill(`  ${guestWords} `);
  await guestInput.press('Enter');
  const guestLine = guestBoard.getByRole('listitem').filter({ hasText: guestWords });
  await expect(guestLine).toContainText('익명');
  await expect(guestBoard.getByRole('listitem')).toHaveCount(3);
  await expect(guestBoard.getByRole('listitem').first()).toContainText(guestWords);
  await expect(guestBoard).not.toContainText(`첫 번째 한마디 ${suffix}`);
  await expect(guestInput).toHaveValue('');
  expect(guestPosts()).toBe(1);

  // A member on /main: the closed screen over the round, with the same board.
  const memberContext = await browser.newContext(options);
  const nickname = `기다림${suffix}`;
  await signUpByApi(memberContext, { username: uniqueUsername('ch'), phone: uniquePhone(), password: 'abcdefg1', nickname });
  const member = await memberContext.newPage();
  await member.goto('/main');
  const closed = member.getByRole('dialog', { name: '지금은 운영 시간이 아니에요' });
  await expect(closed).toBeVisible();
  await expectTicking(closed.getByRole('timer'));
  const memberBoard = closed.getByRole('region', { name: '기다리는 사람들의 한마디' });
  await expect(memberBoard.getByRole('listitem').first()).toContainText(guestWords);

  const memberWords = `오늘 밤엔 고양이 ${suffix}`;
  await memberBoard.getByLabel('한마디 남기기').fill(memberWords);
  await memberBoard.getByRole('button', { name: '남기기' }).click();
  await expect(memberBoard.getByRole('listitem').first()).toContainText(nickname);
  await expect(memberBoard.getByRole('listitem').first()).toContainText(memberWords);
  await expect(memberBoard.getByRole('listitem')).toHaveCount(3);

  // The guest's board refreshes by itself (every 10 s) and shows the member's words.
  await expect(guestBoard.getByRole('listitem').first()).toContainText(memberWords, { timeout: 15_000 });
  await expect(guestBoard.getByRole('listitem')).toHaveCount(3);

  // The guest can still close it and log in.
  await comingSoon.getByRole('button', { name: '닫기' }).click();
  await expect(comingSoon).toBeHidden();
  await expect(guest.getByLabel('아이디')).toBeVisible();

  // Escape closes it as it closes any dialog that may be closed: on arrival, and from its board.
  await guest.reload();
  await expect(comingSoon).toBeVisible();
  await guest.keyboard.press('Escape');
  await expect(comingSoon).toBeHidden();
  await guest.reload();
  await guestInput.click();
  await guest.keyboard.press('Escape');
  await expect(comingSoon).toBeHidden();
  // And after a word left by the button, which gives way while it is sent.
  await guest.reload();
  await guestInput.fill(`한 번 더 ${suffix}`);
  await guestBoard.getByRole('button', { name: '남기기' }).click();
  await expect(guestBoard.getByRole('listitem').first()).toContainText(`한 번 더 ${suffix}`);
  await guest.keyboard.press('Escape');
  await expect(comingSoon).toBeHidden();
  await expect(guest.getByLabel('아이디')).toBeVisible();

  await Promise.all([guestContext.close(), memberContext.close()]);
});
