import { expect, test } from '@playwright/test';
import {
  addOperator,
  enrolAndLogIn,
  login,
  OPERATOR_PASSWORD,
  pickTogether,
  sameRound,
  setNickname,
  signUp,
  uniquePhone,
  uniqueUsername,
  wordButton,
} from './helpers';

test('one user reports the other: both chats end, the reporter is back on /main after 2 s, the two never meet again, an operator bans the reported user', async ({
  browser,
  request,
  baseURL,
  viewport,
  locale,
  timezoneId,
}) => {
  test.skip(test.info().project.name !== 'mobile', 'runs once, on the mobile project');
  test.setTimeout(180_000);
  const options = { baseURL, viewport, locale, timezoneId, hasTouch: true };
  const [contextA, contextB] = await Promise.all([browser.newContext(options), browser.newContext(options)]);
  const [a, b] = await Promise.all([contextA.newPage(), contextB.newPage()]);
  const suffix = Math.floor(Math.random() * 1_000_000);
  const alice = { username: uniqueUsername('ra'), phone: uniquePhone(), password: 'abcdefg1', nickname: `해님${suffix}` };
  const bob = { username: uniqueUsername('rb'), phone: uniquePhone(), password: 'abcdefg1', nickname: `구름${suffix}` };

  await Promise.all([signUp(a, request, alice), signUp(b, request, bob)]);
  await Promise.all([setNickname(a, alice.nickname), setNickname(b, bob.nickname)]);
  for (const page of [a, b]) await expect(page.getByText(/지금 \d+명 접속 중/)).toBeVisible();

  await pickTogether(a, b);
  const inputB = b.getByRole('textbox', { name: '메시지' });
  await inputB.fill('연락처 알려주면 찾아갈 거야');
  await inputB.press('Enter');
  await expect(a.getByRole('log')).toContainText('찾아갈 거야');

  // Alice reports Bob: an empty report is refused first, then two reasons and a few words go.
  await a.getByRole('button', { name: '신고하기' }).click();
  const report = a.getByRole('dialog', { name: '신고하기' });
  await report.getByRole('button', { name: '신고하기' }).click();
  await expect(report.getByRole('alert')).toHaveText('신고 사유를 선택하거나 내용을 입력해주세요.');
  await report.getByRole('checkbox', { name: '위협' }).check();
  await report.getByRole('checkbox', { name: '욕설/비하' }).check();
  await report.getByLabel('신고 내용').fill('찾아오겠다고 위협했어요.');
  await expect(report.getByText('13/200')).toBeVisible();
  await report.getByRole('button', { name: '신고하기' }).click();

  const accepted = a.getByText('신고가 접수되었어요. 운영팀이 24시간 이내에 확인할게요.');
  await expect(accepted).toBeVisible();
  const acceptedAt = Date.now();
  await expect(report).toBeHidden();
  await expect(a.getByRole('textbox', { name: '메시지' })).toBeDisabled();
  await expect(a).toHaveURL(/\/chatpage$/);

  // Bob's chat ends too; he is told only that Alice left, as the report modal promised:
  // nothing names the reporter.
  const ended = b.getByRole('alertdialog', { name: '대화가 종료되었어요' });
  await expect(ended).toContainText(`${alice.nickname}님이 대화방을 나갔어요.`);
  await expect(ended).not.toContainText('신고로');
  await expect(inputB).toBeDisabled();

  // Alice is back on /main after 2 s, with no mood question.
  await expect(a).toHaveURL(/\/main$/, { timeout: 5_000 });
  expect(Date.now() - acceptedAt).toBeGreaterThanOrEqual(1_800);
  await expect(a.getByRole('heading', { level: 1, name: '텔레파시' })).toBeVisible();
  await expect(a.getByRole('dialog', { name: '방금 대화는 어땠나요?' })).toHaveCount(0);
  expect(await a.evaluate(() => [localStorage.getItem('chatInfo'), localStorage.getItem('feedbackInfo')])).toEqual([null, null]);

  // Bob leaves from the ended chat and is asked how it felt, as anyone whose partner left:
  // nothing there tells him he was reported. He skips it.
  await ended.getByRole('button', { name: '나가기' }).click();
  await expect(b).toHaveURL(/\/main$/);
  const bobMood = b.getByRole('dialog', { name: '방금 대화는 어땠나요?' });
  await bobMood.getByRole('button', { name: '다음에 할게요' }).click();
  await expect(bobMood).toBeHidden();

  // In a fresh round both pick the same word: each waits alone until the round is over.
  const word = await sameRound(a, b);
  await Promise.all([wordButton(a, word).click(), wordButton(b, word).click()]);
  for (const page of [a, b]) await expect(page.getByText(`고른 사람을 기다리고 있어요`)).toBeVisible();
  const expired = new RegExp(`^방금 라운드에는 ‘${word}’(을|를) 고른 사람이 없었어요\\. 새 단어를 골라보세요\\.$`);
  await Promise.all([a, b].map((page) => expect(page.getByText(expired)).toBeVisible({ timeout: 35_000 })));
  await expect(a).toHaveURL(/\/main$/);
  await expect(b).toHaveURL(/\/main$/);

  // An operator logs in with password and TOTP, reads the report with Bob's last words,
  // and bans him.
  const operatorContext = await browser.newContext({ ...options, viewport: { width: 1280, height: 800 } });
  const consolePage = await operatorContext.newPage();
  const operator = uniqueUsername('op');
  addOperator(operator, OPERATOR_PASSWORD);
  await enrolAndLogIn(consolePage, operator);
  await consolePage.getByRole('navigation', { name: '운영 메뉴' }).getByRole('link', { name: '신고' }).click();
  await consolePage.getByRole('link').filter({ hasText: bob.username }).click();
  const transcript = consolePage.getByRole('list', { name: '대화 기록' });
  await expect(transcript.locator('[data-from="reported"]').last()).toContainText('연락처 알려주면 찾아갈 거야');
  await expect(consolePage.getByText('찾아오겠다고 위협했어요.')).toBeVisible();
  await consolePage.getByRole('radio', { name: '영구 정지' }).check();
  await consolePage.getByLabel('사유', { exact: true }).fill('다른 회원을 위협함');
  await consolePage.getByRole('button', { name: '영구 정지하기' }).click();
  await consolePage.getByRole('alertdialog', { name: '영구 정지할까요?' }).getByRole('button', { name: '영구 정지하기' }).click();
  await expect(consolePage).toHaveURL(/\/admin\/reports$/);

  // Bob's open page is told at once, his session ends, and his next login says why.
  const restricted = b.getByRole('alertdialog', { name: '이용이 제한되었어요' });
  await expect(restricted).toContainText('영구 정지되었어요. 사유: 다른 회원을 위협함');
  await restricted.getByRole('button').first().click();
  await expect(b).toHaveURL(/\/login$/);
  await login(b, bob.username, bob.password);
  await expect(b.getByText('운영정책 위반으로 이용이 영구 정지되었어요. 사유: 다른 회원을 위협함')).toBeVisible();
  await expect(b).toHaveURL(/\/login$/);

  await Promise.all([contextA.close(), contextB.close(), operatorContext.close()]);
});
