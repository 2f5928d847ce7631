import fs from 'node:fs';
import { expect, test, type BrowserContextOptions, type Page, type WebSocketRoute } from '@playwright/test';
import { expectAccessible } from './accessibility';
import { login, twoInChat } from './helpers';
import { startServer, type StartedServer } from './server-env';

/**
 * How a chat looks from where it did not end: the one who was left, another device or tab of
 * a member in a chat, and a phone that comes back after its chat ended. A server of its own
 * with a grace period of 3 s, so a socket gone "more than the grace" takes seconds, not 30.
 */
const port = Number(process.env.E2E_CHAT_ENDS_PORT ?? Number(process.env.E2E_PORT ?? 18080) + 9);
const GRACE_SECONDS = 3;
const shots = '/tmp/shots-web';

let server: StartedServer | undefined;

test.beforeAll(async () => {
  test.setTimeout(90_000);
  server = await startServer(`chat-ends-${test.info().project.name}`, port, { TELEPATHY_GRACE_SECONDS: String(GRACE_SECONDS) });
});

test.afterAll(async () => {
  await server?.stop();
});

async function screenshot(page: Page, name: string) {
  fs.mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: `${shots}/${name}-${test.info().project.name}.png` });
}

function options(viewport: BrowserContextOptions['viewport'], locale: string | undefined, timezoneId: string | undefined): BrowserContextOptions {
  if (!server) throw new Error('the server did not start');
  return { baseURL: server.origin, viewport, locale, timezoneId };
}

test('the one who was left is asked how it felt and may choose never to meet the partner again', async ({ browser, viewport, locale, timezoneId }) => {
  test.setTimeout(120_000);
  const { contextA, contextB, a, b, alice } = await twoInChat(browser, options(viewport, locale, timezoneId), 'lf');

  // Alice leaves through the confirmation.
  await a.getByRole('button', { name: '나가기' }).click();
  await a.getByRole('alertdialog', { name: '대화방을 나갈까요?' }).getByRole('button', { name: '나가기' }).click();
  await expect(a).toHaveURL(/\/main$/);

  // Bob is told, and leaves from there: the same question Alice gets waits on /main.
  const ended = b.getByRole('alertdialog', { name: '대화가 종료되었어요' });
  await expect(ended).toContainText(`${alice.nickname}님이 대화방을 나갔어요.`);
  await ended.getByRole('button', { name: '나가기' }).click();
  await expect(b).toHaveURL(/\/main$/);
  const mood = b.getByRole('dialog', { name: '방금 대화는 어땠나요?' });
  await expect(mood).toBeVisible();
  await screenshot(b, 'left-one-mood');
  await expectAccessible(b, 'main, the mood question of the one who was left');

  // He chooses never to meet Alice again (the server takes it from him), then a mood.
  await mood.getByRole('button', { name: `${alice.nickname}님과 다시 만나지 않기` }).click();
  // A block asks first, as taking a pair back does.
  const ask = b.getByRole('alertdialog', { name: `${alice.nickname}님과 다시 만나지 않을까요?` });
  await expect(ask).toContainText('같은 단어를 골라도 이 상대와는 다시 연결되지 않아요.');
  await screenshot(b, 'block-confirmation');
  await expectAccessible(b, 'main, the block’s confirmation');
  await ask.getByRole('button', { name: '다시 만나지 않기' }).click();
  await expect(b.getByText('차단했어요. 이 상대와는 다시 연결되지 않아요.').first()).toBeVisible();
  await expect(mood.getByRole('button', { name: '차단했어요. 이 상대와는 다시 연결되지 않아요.' })).toBeDisabled();
  await mood.getByRole('radio', { name: '슬퍼요' }).check();
  await mood.getByRole('button', { name: '기분 남기기' }).click();
  await expect(b.getByText('소중한 기분을 남겨주셔서 고마워요.')).toBeVisible();
  await expect(mood).toBeHidden();
  expect(await b.evaluate(() => localStorage.getItem('feedbackInfo'))).toBeNull();

  await Promise.all([contextA.close(), contextB.close()]);
});

test('a chat open on another device or tab shows on /main as a card back to it, and the words wait', async ({ browser, viewport, locale, timezoneId }) => {
  test.setTimeout(120_000);
  const opts = options(viewport, locale, timezoneId);
  const { contextA, contextB, a, b, alice, bob, word } = await twoInChat(browser, opts, 'tb');
  await a.getByRole('textbox', { name: '메시지' }).fill('휴대폰에서 먼저 보낸 말');
  await a.getByRole('textbox', { name: '메시지' }).press('Enter');
  await expect(b.getByRole('log')).toContainText('휴대폰에서 먼저 보낸 말');

  // Alice's computer: a browser that stored nothing of the chat. The server knows her room.
  const computer = await browser.newContext(opts);
  const c = await computer.newPage();
  await login(c, alice.username, alice.password);
  await expect(c).toHaveURL(/\/main$/);
  const card = c.getByRole('region', { name: '대화 중인 상대가 있어요' });
  await expect(card).toBeVisible();
  await expect(card).toContainText(`${bob.nickname}님과 ‘${word}’`);
  await expect(card).toContainText('대화를 마치면 새 단어를 고를 수 있어요.');
  await expect(c.locator('.word-button').first()).toBeVisible();
  for (const button of await c.locator('.word-button').all()) await expect(button).toBeDisabled();
  await screenshot(c, 'main-chat-elsewhere');
  await expectAccessible(c, 'main, a chat open elsewhere');

  // A second tab of her phone's browser says the same.
  const tab = await contextA.newPage();
  await tab.goto('/main');
  await expect(tab.getByRole('region', { name: '대화 중인 상대가 있어요' })).toBeVisible();
  await expect(tab.locator('.word-button').first()).toBeVisible();
  for (const button of await tab.locator('.word-button').all()) await expect(button).toBeDisabled();
  await tab.close();

  // Back to the chat from the computer: the conversation so far, and it goes on.
  await card.getByRole('link', { name: '대화로 돌아가기' }).click();
  await expect(c).toHaveURL(/\/chatpage$/);
  await expect(c.getByRole('heading', { level: 1, name: word })).toBeVisible();
  await expect(c.getByText(`${bob.nickname}님과 같은 단어 ‘${word}’`)).toBeVisible();
  await expect(c.getByRole('log')).toContainText('휴대폰에서 먼저 보낸 말');
  await c.getByRole('textbox', { name: '메시지' }).fill('컴퓨터에서 이어서 써요');
  await c.getByRole('textbox', { name: '메시지' }).press('Enter');
  await expect(b.getByRole('log')).toContainText('컴퓨터에서 이어서 써요');
  await expect(a.getByRole('log')).toContainText('컴퓨터에서 이어서 써요');

  await Promise.all([contextA.close(), contextB.close(), computer.close()]);
});

test('back after the grace period, /main and /chatpage say the chat ended', async ({ browser, viewport, locale, timezoneId }) => {
  test.setTimeout(120_000);
  const { contextA, contextB, a, b, alice, bob, word } = await twoInChat(browser, options(viewport, locale, timezoneId), 'gr');

  // Alice's phone drops the tab; Bob is told once the grace period is over.
  await a.close({ runBeforeUnload: false });
  const ended = b.getByRole('alertdialog', { name: '대화가 종료되었어요' });
  await expect(ended).toContainText(`${alice.nickname}님과의 연결이 끊겨 대화가 종료되었어요.`, { timeout: 20_000 });

  // She comes back to /main: it says her chat ended while she was away.
  const main = await contextA.newPage();
  await main.goto('/main');
  const card = main.getByRole('region', { name: '대화가 끝났어요' });
  await expect(card).toBeVisible();
  await expect(card).toContainText(`${bob.nickname}님과 ‘${word}’`);
  await expect(card).toContainText('자리를 비운 사이에 끝났어요.');
  await expect(main.getByRole('region', { name: '대화 중인 상대가 있어요' })).toHaveCount(0);
  await screenshot(main, 'main-chat-ended-away');
  await expectAccessible(main, 'main, a chat that ended while away');

  // She may say how it felt (and block), as anyone whose chat ended.
  await card.getByRole('button', { name: '기분 남기기' }).click();
  const mood = main.getByRole('dialog', { name: '방금 대화는 어땠나요?' });
  await expect(mood.getByRole('button', { name: `${bob.nickname}님과 다시 만나지 않기` })).toBeVisible();
  await mood.getByRole('button', { name: '다음에 할게요' }).click();
  await expect(mood).toBeHidden();
  await expect(card).toBeHidden();

  // /chatpage, reopened: the server says that chat is over, with a way back.
  await main.goto('/chatpage');
  await expect(main.getByRole('heading', { level: 1, name: '대화가 종료되었어요' })).toBeVisible();
  await expect(main.getByText(`${bob.nickname}님과 ‘${word}’`)).toBeVisible();
  await expect(main.getByText('채팅에 필요한 정보가 없어요.')).toHaveCount(0);
  await screenshot(main, 'chatpage-ended-away');
  await expectAccessible(main, 'chatpage, a chat that ended while away');
  await main.getByRole('button', { name: '메인으로' }).click();
  await expect(main).toHaveURL(/\/main$/);

  await Promise.all([contextA.close(), contextB.close()]);
});

test('a chat page reloaded after the grace period says the chat ended while away', async ({ browser, viewport, locale, timezoneId }) => {
  test.setTimeout(120_000);
  // Alice's socket passes through a relay the test can cut, and keep cut, as a tunnel would.
  let away = false;
  const relays: { page: WebSocketRoute; server: WebSocketRoute }[] = [];
  const { contextA, contextB, a, b, bob } = await twoInChat(browser, options(viewport, locale, timezoneId), 'rl', { prepareA: async (context) => {
    await context.routeWebSocket('**/ws', (ws) => {
      if (away) {
        void ws.close();
        return;
      }
      relays.push({ page: ws, server: ws.connectToServer() });
    });
  } });

  // Her connection goes and stays away past the grace period; Bob is told.
  away = true;
  await Promise.all(relays.map(({ page, server: toServer }) => Promise.all([page.close(), toServer.close()])));
  await expect(b.getByRole('alertdialog', { name: '대화가 종료되었어요' })).toBeVisible({ timeout: 20_000 });

  // Out of the tunnel, she reloads the chat page.
  away = false;
  a.on('dialog', (dialog) => void dialog.accept());
  await a.reload();
  const ended = a.getByRole('alertdialog', { name: '대화가 종료되었어요' });
  const over = a.getByRole('heading', { level: 1, name: '대화가 종료되었어요' });
  await expect(ended.or(over)).toBeVisible();
  await expect(a.getByText('채팅에 필요한 정보가 없어요.')).toHaveCount(0);
  if (await ended.isVisible()) {
    await expect(ended).toContainText('자리를 비운 사이에 대화가 끝났어요.');
    await screenshot(a, 'chatpage-reloaded-ended');
    // Leaving asks how it felt, as for anyone whose chat ended.
    await ended.getByRole('button', { name: '나가기' }).click();
    await expect(a).toHaveURL(/\/main$/);
    await expect(a.getByRole('dialog', { name: '방금 대화는 어땠나요?' })).toContainText(`${bob.nickname}님과`);
  } else {
    await expect(a.getByText(`${bob.nickname}님과`)).toBeVisible();
  }

  await Promise.all([contextA.close(), contextB.close()]);
});
