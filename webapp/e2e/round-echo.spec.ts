import fs from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { expectAccessible } from './accessibility';
import { roundOnScreen, secondsLeft, signUpByApi, uniquePhone, uniqueUsername, wordButton } from './helpers';
import { startServer, type StartedServer } from './server-env';

/**
 * The round's echo and tonight's word. A server of its own, so that its only room tonight is
 * this test's (tonight's word counts every room of the evening, and the suite's server has
 * many): two members pick the same word, a third another, and two more the other two words
 * (the echo waits for five picks, so that the few cannot tell what the others chose); a second
 * after the round closes, /main tells everyone there how many picked each word, and My page
 * names the pair's word.
 */
const port = Number(process.env.E2E_ROUND_ECHO_PORT ?? Number(process.env.E2E_PORT ?? 18080) + 11);
const shots = '/tmp/shots-echo';

let server: StartedServer | undefined;

test.beforeAll(async () => {
  test.setTimeout(90_000);
  server = await startServer(`round-echo-${test.info().project.name}`, port, {});
});

test.afterAll(async () => {
  await server?.stop();
});

async function screenshot(page: Page, name: string) {
  fs.mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: `${shots}/${name}-${test.info().project.name}.png` });
}

/** The top left corner and size of each word button, to see that nothing moved them. */
function wordBoxes(page: Page) {
  return page.locator('[data-round] .word-button').evaluateAll((buttons) =>
    buttons.map((button) => {
      const { x, y, width, height } = button.getBoundingClientRect();
      return { x, y, width, height };
    }),
  );
}

test('a round’s picks echo on /main once it closes, and My page names tonight’s word', async ({ browser, viewport, locale, timezoneId }) => {
  test.setTimeout(150_000);
  if (!server) throw new Error('the server did not start');
  const options = { baseURL: server.origin, viewport, locale, timezoneId };
  const [contextA, contextB, contextC, contextD, contextE] = await Promise.all([
    browser.newContext(options),
    browser.newContext(options),
    browser.newContext(options),
    browser.newContext(options),
    browser.newContext(options),
  ]);
  const suffix = Math.floor(Math.random() * 1_000_000);
  const member = (prefix: string, nickname: string) => ({
    username: uniqueUsername(prefix),
    phone: uniquePhone(),
    password: 'abcdefg1',
    nickname: `${nickname}${suffix}`,
  });
  await Promise.all([
    signUpByApi(contextA, member('ea', '하늘')),
    signUpByApi(contextB, member('eb', '바다')),
    signUpByApi(contextC, member('ec', '구름')),
    signUpByApi(contextD, member('ed', '별빛')),
    signUpByApi(contextE, member('ee', '노을')),
  ]);
  const [a, b, c, d, e] = await Promise.all([
    contextA.newPage(),
    contextB.newPage(),
    contextC.newPage(),
    contextD.newPage(),
    contextE.newPage(),
  ]);
  await Promise.all([a, b, c, d, e].map((page) => page.goto('/main')));

  // One round on all three screens, with time to leave a chat before it closes.
  await expect
    .poll(
      async () => {
        const [ra, rb, rc, rd, re, left] = await Promise.all([
          roundOnScreen(a),
          roundOnScreen(b),
          roundOnScreen(c),
          roundOnScreen(d),
          roundOnScreen(e),
          secondsLeft(c),
        ]);
        return ra !== null && ra === rb && rb === rc && rc === rd && rd === re && left >= 15;
      },
      { timeout: 40_000, intervals: [250] },
    )
    .toBe(true);
  const round = await roundOnScreen(c);
  const words = await c.locator('[data-round] .word-button__text').allTextContents();
  expect(words).toHaveLength(4);
  const [pairWord, otherWord, thirdWord, fourthWord] = words;
  if (!pairWord || !otherWord || !thirdWord || !fourthWord) throw new Error('a round without words');

  await Promise.all([
    wordButton(a, pairWord).click(),
    wordButton(b, pairWord).click(),
    wordButton(c, otherWord).click(),
    wordButton(d, thirdWord).click(),
    wordButton(e, fourthWord).click(),
  ]);
  await expect(a).toHaveURL(/\/chatpage$/, { timeout: 10_000 });
  await expect(b).toHaveURL(/\/chatpage$/, { timeout: 5_000 });
  await expect(c.getByText(`‘${otherWord}’`)).toBeVisible();

  // Alice goes back to /main before the round closes; Bob stays in the chat.
  await a.getByRole('button', { name: '나가기' }).click();
  await a.getByRole('alertdialog', { name: '대화방을 나갈까요?' }).getByRole('button', { name: '나가기' }).click();
  await expect(a).toHaveURL(/\/main$/);

  // The round closes: each word with how many picked it, in the round's order.
  const counts = new Map([
    [pairWord, 2],
    [otherWord, 1],
    [thirdWord, 1],
    [fourthWord, 1],
  ]);
  // Each viewer's own word is marked: its count includes them (Alice's though she went to
  // the chat and back in between).
  const expected = (mine: string) =>
    `방금 라운드: ${words.map((word) => `${word} ${counts.get(word) ?? 0}${word === mine ? ' 나 포함' : ''}`).join(' · ')}`;
  const echo = c.locator('.round-echo');
  await expect(echo).toHaveText(expected(otherWord), { timeout: 40_000 });
  await expect(echo).toHaveAttribute('data-echo-round', round ?? '');
  await expect(c.locator('.round-echo-slot')).toHaveAttribute('aria-live', 'polite');
  await expect(echo.locator('[data-mine]')).toHaveCount(1);
  await expect(a.locator('.round-echo')).toHaveText(expected(pairWord));
  // The dots between the words are read, not shown: no line of it ends in one.
  for (const separator of await echo.locator('.round-echo__separator').all()) {
    await expect(separator).toHaveCSS('position', 'absolute');
  }
  // It fades in, but not for someone who asked for less motion (as the tests' pages do).
  await c.emulateMedia({ reducedMotion: 'no-preference' });
  await expect(echo).toHaveCSS('animation-name', 'round-echo-in');
  await expect(a.locator('.round-echo')).toHaveCSS('animation-name', 'none');
  // Not in the chat: it is /main's.
  await expect(b).toHaveURL(/\/chatpage$/);
  await expect(b.getByText('방금 라운드')).toHaveCount(0);

  const withEcho = await wordBoxes(c);
  await screenshot(c, 'round-echo-main');
  await expectAccessible(c, 'main, with the last round’s echo');

  // A few seconds later it is gone, and the words never moved for it.
  await expect(echo).toHaveCount(0, { timeout: 10_000 });
  expect(await wordBoxes(c)).toEqual(withEcho);

  // Tonight's word: the pair's, with the two people its room seated.
  await c.goto('/mypage');
  const tonight = c.getByRole('region', { name: '오늘 밤의 단어' });
  await expect(tonight).toContainText(`‘${pairWord}’`);
  await expect(tonight).toContainText('오늘 밤 2명을 이어줬어요');
  await screenshot(c, 'round-echo-mypage');
  await expectAccessible(c, 'my page, with tonight’s word');

  await Promise.all([contextA, contextB, contextC, contextD, contextE].map((x) => x.close()));
});
