import { expect, test, type WebSocketRoute } from '@playwright/test';
import { pickTogether, setNickname, signUp, uniquePhone, uniqueUsername } from './helpers';

test('two users pick the same word, chat, one leaves and rates the chat, both keep the word', async ({
  browser,
  request,
  baseURL,
  viewport,
  locale,
  timezoneId,
}) => {
  test.skip(test.info().project.name !== 'mobile', 'runs once, on the mobile project');
  test.setTimeout(90_000);
  const options = { baseURL, viewport, locale, timezoneId, hasTouch: true };
  const [contextA, contextB] = await Promise.all([browser.newContext(options), browser.newContext(options)]);
  const [a, b] = await Promise.all([contextA.newPage(), contextB.newPage()]);
  const suffix = Math.floor(Math.random() * 1_000_000);
  const alice = { username: uniqueUsername('ea'), phone: uniquePhone(), password: 'abcdefg1', nickname: `별빛${suffix}` };
  const bob = { username: uniqueUsername('eb'), phone: uniquePhone(), password: 'abcdefg1', nickname: `달빛${suffix}` };

  // Bob's socket goes through a relay the test can cut, as a network drop would.
  const bobSockets: { page: WebSocketRoute; server: WebSocketRoute }[] = [];
  await b.routeWebSocket('**/ws', (ws) => {
    bobSockets.push({ page: ws, server: ws.connectToServer() });
  });

  // Two new accounts, each with a nickname, both on /main with the socket open.
  await Promise.all([signUp(a, request, alice), signUp(b, request, bob)]);
  await Promise.all([setNickname(a, alice.nickname), setNickname(b, bob.nickname)]);
  for (const page of [a, b]) await expect(page.getByText(/지금 \d+명 접속 중/)).toBeVisible();

  const word = await pickTogether(a, b);

  // The room: the word, the partner, the banner.
  await expect(a.getByRole('heading', { level: 1, name: word })).toBeVisible();
  await expect(a.getByText(`${bob.nickname}님과 같은 단어 ‘${word}’`)).toBeVisible();
  await expect(b.getByText(`${alice.nickname}님과 같은 단어 ‘${word}’`)).toBeVisible();

  // Alice types (Bob sees it), then sends with Enter.
  const inputA = a.getByRole('textbox', { name: '메시지' });
  await inputA.fill('안녕하세요! 반가워요');
  await expect(b.getByText(`${alice.nickname}님이 입력 중이에요`)).toBeVisible();
  await inputA.press('Enter');
  await expect(b.getByRole('log')).toContainText('안녕하세요! 반가워요');
  await expect(b.getByText(`${alice.nickname}님이 입력 중이에요`)).toBeHidden();
  await expect(a.getByRole('log')).toContainText('안녕하세요! 반가워요');
  await expect(a.locator('[data-status="pending"]')).toHaveCount(0);

  // Bob answers with the send button.
  const inputB = b.getByRole('textbox', { name: '메시지' });
  await inputB.fill(`저도 ${word} 골랐어요`);
  await expect(a.getByText(`${bob.nickname}님이 입력 중이에요`)).toBeVisible();
  await b.getByRole('button', { name: '보내기' }).click();
  await expect(a.getByRole('log')).toContainText(`저도 ${word} 골랐어요`);
  await expect(inputB).toHaveValue('');

  // Bob's connection drops: what Alice sends meanwhile, and what Bob writes meanwhile, both arrive
  // once his tab has reconnected and resumed the chat.
  const connectionsBefore = bobSockets.length;
  const dropped = bobSockets[bobSockets.length - 1];
  if (!dropped) throw new Error('Bob has no socket');
  await Promise.all([dropped.page.close(), dropped.server.close()]);
  await inputA.fill('잠깐 연결이 끊겼나요?');
  await inputA.press('Enter');
  await inputB.fill('다시 왔어요');
  await inputB.press('Enter');
  await expect(b.getByRole('log')).toContainText('잠깐 연결이 끊겼나요?');
  await expect(a.getByRole('log')).toContainText('다시 왔어요');
  expect(bobSockets.length).toBeGreaterThan(connectionsBefore);
  await expect(b.locator('[data-status="pending"]')).toHaveCount(0);
  await expect(b.getByRole('log').getByText('다시 왔어요')).toHaveCount(1);

  // The browser's back button asks first; cancelling stays in the chat.
  const confirm = a.getByRole('alertdialog', { name: '대화방을 나갈까요?' });
  await a.goBack();
  await expect(confirm).toBeVisible();
  await confirm.getByRole('button', { name: '취소' }).click();
  await expect(confirm).toBeHidden();
  await expect(a).toHaveURL(/\/chatpage$/);

  // Alice leaves through the confirmation.
  await a.getByRole('button', { name: '나가기' }).click();
  await confirm.getByRole('button', { name: '나가기' }).click();
  await expect(a).toHaveURL(/\/main$/);

  // Bob is told, and cannot write any more.
  const ended = b.getByRole('alertdialog', { name: '대화가 종료되었어요' });
  await expect(ended).toContainText(`${alice.nickname}님이 대화방을 나갔어요.`);
  await expect(inputB).toBeDisabled();

  // Alice rates the chat: no choice is refused, a choice is saved.
  const mood = a.getByRole('dialog', { name: '방금 대화는 어땠나요?' });
  await mood.getByRole('button', { name: '기분 남기기' }).click();
  await expect(a.getByText('기분을 선택해주세요.')).toBeVisible();
  // She chooses never to meet Bob again; the block is kept on the server.
  await mood.getByRole('button', { name: `${bob.nickname}님과 다시 만나지 않기` }).click();
  await a.getByRole('alertdialog', { name: `${bob.nickname}님과 다시 만나지 않을까요?` }).getByRole('button', { name: '다시 만나지 않기' }).click();
  await expect(a.getByText('차단했어요. 이 상대와는 다시 연결되지 않아요.').first()).toBeVisible();
  await expect(mood.getByRole('button', { name: '차단했어요. 이 상대와는 다시 연결되지 않아요.' })).toBeDisabled();
  await mood.getByRole('radio', { name: '기뻐요' }).check();
  await mood.getByRole('button', { name: '기분 남기기' }).click();
  await expect(a.getByText('소중한 기분을 남겨주셔서 고마워요.')).toBeVisible();
  await expect(mood).toBeHidden();
  expect(await a.evaluate(() => localStorage.getItem('feedbackInfo'))).toBeNull();

  // Bob leaves from the ended chat: the mood question waits for him too; he skips it.
  await ended.getByRole('button', { name: '나가기' }).click();
  await expect(b).toHaveURL(/\/main$/);
  const bobMood = b.getByRole('dialog', { name: '방금 대화는 어땠나요?' });
  await expect(bobMood).toBeVisible();
  await bobMood.getByRole('button', { name: '다음에 할게요' }).click();
  await expect(bobMood).toBeHidden();
  expect(await b.evaluate(() => localStorage.getItem('chatInfo'))).toBeNull();
  expect(await b.evaluate(() => localStorage.getItem('feedbackInfo'))).toBeNull();

  // Both keep the word, with the partner's nickname.
  for (const [page, partner] of [
    [a, bob.nickname],
    [b, alice.nickname],
  ] as const) {
    await page.goto('/mywords');
    const card = page.locator('.word-card', { hasText: word });
    await expect(card).toBeVisible();
    await expect(card).toContainText(`${partner}님`);
  }

  await Promise.all([contextA.close(), contextB.close()]);
});
