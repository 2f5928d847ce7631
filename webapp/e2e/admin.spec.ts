import { expect, test, type Browser } from '@playwright/test';
import {
  addOperator,
  enrolAndLogIn,
  login,
  matchSockets,
  OPERATOR_PASSWORD,
  say,
  signUpByApi,
  TestSocket,
  totpCode,
  uniquePhone,
  uniqueUsername,
} from './helpers';

/** Two members who chatted, the second reporting the first. Returns the reported member's username and their last line. */
async function reportedChat(browser: Browser, baseURL: string | undefined) {
  const suffix = Math.floor(Math.random() * 1_000_000);
  const rude = { username: uniqueUsername('rude'), phone: uniquePhone(), password: 'abcdefg1', nickname: `먹구름${suffix}` };
  const kind = { username: uniqueUsername('kind'), phone: uniquePhone(), password: 'abcdefg1', nickname: `햇살${suffix}` };
  const [rudeContext, kindContext] = await Promise.all([browser.newContext({ baseURL }), browser.newContext({ baseURL })]);
  await Promise.all([signUpByApi(rudeContext, rude), signUpByApi(kindContext, kind)]);
  const [rudeSocket, kindSocket] = await Promise.all([
    rudeContext.newPage().then((page) => TestSocket.open(page)),
    kindContext.newPage().then((page) => TestSocket.open(page)),
  ]);
  const roomId = await matchSockets(rudeSocket, kindSocket);
  await say(kindSocket, rudeSocket, roomId, '안녕하세요! 반가워요');
  await say(rudeSocket, kindSocket, roomId, '말 걸지 마세요');
  const lastLine = `한 번만 더 말하면 가만 안 둬 ${suffix}`;
  await say(rudeSocket, kindSocket, roomId, lastLine);
  const report = await kindContext.request.post('/api/report', {
    data: { roomId, reasons: ['욕설/비하', '위협'], extraMessage: '대화 중에 계속 위협했어요.' },
  });
  expect(report.ok(), await report.text()).toBe(true);
  // The reported side is told only that the partner left: nothing names the reporter.
  const ended = await rudeSocket.next('chatEnded');
  expect(ended.data.reason).toBe('left');
  return { rude, kind, lastLine, rudeSocket, close: () => Promise.all([rudeContext.close(), kindContext.close()]) };
}

test('an operator enrols TOTP, reads a reported chat, bans the reported member, finds the ban in the audit log, hides a comment and a megaphone', async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const chat = await reportedChat(browser, baseURL);
  const operator = uniqueUsername('op');
  addOperator(operator, OPERATOR_PASSWORD);

  await enrolAndLogIn(page, operator);
  const bar = page.getByRole('banner');
  await expect(bar.getByText(operator)).toBeVisible();
  await expect(page.getByRole('heading', { level: 1, name: '대시보드' })).toBeVisible();
  await expect(page.getByText('대기 중인 신고')).toBeVisible();

  // The queue: the report, its time left of 24 hours, its reasons.
  await page.getByRole('navigation', { name: '운영 메뉴' }).getByRole('link', { name: '신고' }).click();
  await expect(page).toHaveURL(/\/admin\/reports$/);
  await expect(page.getByRole('tab', { name: /대기 중/ })).toHaveAttribute('aria-selected', 'true');
  const row = page.getByRole('link').filter({ hasText: chat.rude.username });
  await expect(row).toBeVisible();
  await expect(row).toContainText(/2[34]시간 \d+분 남음/);
  await expect(row.getByText('욕설/비하', { exact: true })).toBeVisible();
  await expect(row.getByText('위협', { exact: true })).toBeVisible();
  await row.click();

  // The report: the chat as it was said, the last line included, each side labelled.
  await expect(page).toHaveURL(/\/admin\/reports\/\d+$/);
  const reportId = /\/admin\/reports\/(\d+)$/.exec(page.url())?.[1] ?? '';
  const transcript = page.getByRole('list', { name: '대화 기록' });
  await expect(transcript).toContainText(chat.lastLine);
  await expect(transcript.locator('[data-from="reported"]').last()).toContainText(chat.lastLine);
  await expect(transcript.locator('[data-from="reporter"]').first()).toContainText('안녕하세요! 반가워요');
  await expect(page.getByText('대화 중에 계속 위협했어요.')).toBeVisible();
  await expect(page.getByRole('heading', { name: chat.rude.nickname })).toBeVisible();
  await expect(page.getByRole('heading', { name: chat.kind.nickname })).toBeVisible();

  // A ban needs a reason and a confirmation.
  await page.getByRole('radio', { name: '영구 정지' }).check();
  await page.getByRole('button', { name: '영구 정지하기' }).click();
  await expect(page.getByText('사유를 입력해주세요.')).toBeVisible();
  const reason = `반복된 위협 ${reportId}`;
  await page.getByLabel('사유', { exact: true }).fill(reason);
  await page.getByRole('button', { name: '영구 정지하기' }).click();
  const confirm = page.getByRole('alertdialog', { name: '영구 정지할까요?' });
  await expect(confirm).toContainText(`사유: ${reason}`);
  await confirm.getByRole('button', { name: '영구 정지하기' }).click();

  // The outcome, back in the queue, where the report is no longer waiting.
  await expect(page.getByText(`신고 #${reportId}: 영구 정지 처리했어요.`)).toBeVisible();
  await expect(page).toHaveURL(/\/admin\/reports$/);
  await expect(page.getByRole('link').filter({ hasText: chat.rude.username })).toHaveCount(0);
  // The banned member's socket was told why, and closed.
  const restricted = await chat.rudeSocket.next('accountRestricted');
  expect(restricted.data.reason).toBe(reason);

  // Handled reports show the decision.
  await page.getByRole('tab', { name: '처리됨' }).click();
  const handled = page.getByRole('link').filter({ hasText: chat.rude.username });
  await expect(handled).toContainText(`영구 정지: ${reason}`);

  // The audit log lists the ban, newest first.
  await page.getByRole('navigation', { name: '운영 메뉴' }).getByRole('link', { name: '감사 기록' }).click();
  const ban = page.getByRole('row').filter({ hasText: '신고 처리' }).first();
  await expect(ban).toContainText(`영구 정지: ${reason}`);
  await expect(ban).toContainText(`신고 #${reportId}`);
  await expect(ban).toContainText(operator);

  // The member cannot log in any more.
  const login = await page.request.post('/api/auth/login', { data: { username: chat.rude.username, password: chat.rude.password } });
  expect(login.status()).toBe(403);

  // The comment board: a guest's comment is hidden from it.
  const comment = `광고 보러 오세요 ${reportId}`;
  const posted = await page.request.post('/api/comments', { data: { content: comment } });
  expect(posted.ok(), await posted.text()).toBe(true);
  await page.getByRole('navigation', { name: '운영 메뉴' }).getByRole('link', { name: '댓글' }).click();
  const item = page.getByRole('listitem').filter({ hasText: comment });
  await item.getByRole('button', { name: '숨기기' }).click();
  const hide = page.getByRole('dialog', { name: '이 댓글을 숨길까요?' });
  await hide.getByLabel('숨기는 사유').fill('광고');
  await hide.getByRole('button', { name: '숨기기' }).click();
  await expect(item).toContainText('숨김');
  const board = (await (await page.request.get('/api/comments')).json()) as { content: string }[];
  expect(board.map((c) => c.content)).not.toContain(comment);

  // A megaphone: the operator hides it; a screen showing it drops it at once.
  const shouter = await browser.newContext({ baseURL });
  await signUpByApi(shouter, { username: uniqueUsername('shout'), phone: uniquePhone(), password: 'abcdefg1', nickname: `외침${reportId}` });
  const order = (await (await shouter.request.post('/api/payments/prepare', { data: { item: 'megaphone_1' } })).json()) as { merchantUid: string };
  const paid = (await (await shouter.request.post('/api/payments/demo-pay', { data: { merchantUid: order.merchantUid } })).json()) as { impUid: string };
  const granted = await shouter.request.post('/api/payments/verify', { data: { imp_uid: paid.impUid, merchant_uid: order.merchantUid, item: 'megaphone_1' } });
  expect(granted.ok(), await granted.text()).toBe(true);
  const shouting = await TestSocket.open(await shouter.newPage());
  const shout = `광고 확성기 ${reportId}`;
  await shouting.send('megaphone:send', { message: shout });
  await shouting.next('megaphoneSent');
  await page.getByRole('navigation', { name: '운영 메뉴' }).getByRole('link', { name: '확성기' }).click();
  const megaphone = page.getByRole('listitem').filter({ hasText: shout });
  await megaphone.getByRole('button', { name: '숨기기' }).click();
  const hideMegaphone = page.getByRole('dialog', { name: '이 확성기를 숨길까요?' });
  await hideMegaphone.getByLabel('숨기는 사유').fill('광고');
  await hideMegaphone.getByRole('button', { name: '숨기기' }).click();
  await expect(megaphone).toContainText('숨김');
  await shouting.next('megaphoneHidden');
  await shouter.close();

  // Logging out ends the console session.
  await bar.getByRole('button', { name: '로그아웃' }).click();
  await expect(page).toHaveURL(/\/admin$/);
  await page.goto('/admin/reports');
  await expect(page).toHaveURL(/\/admin$/);
  await expect(page.getByText('다시 로그인해주세요.')).toBeVisible();
  await chat.close();
});

test('a member warned while away is told at their next visit, until they confirm it', async ({ page, browser, baseURL }) => {
  test.setTimeout(120_000);
  const chat = await reportedChat(browser, baseURL);
  // The reported member is gone before the operator decides.
  await chat.close();
  const operator = uniqueUsername('op');
  addOperator(operator, OPERATOR_PASSWORD);
  await enrolAndLogIn(page, operator);
  await page.getByRole('navigation', { name: '운영 메뉴' }).getByRole('link', { name: '신고' }).click();
  await page.getByRole('link').filter({ hasText: chat.rude.username }).click();
  await expect(page).toHaveURL(/\/admin\/reports\/\d+$/);
  const reportId = /\/admin\/reports\/(\d+)$/.exec(page.url())?.[1] ?? '';
  await page.getByRole('radio', { name: '경고', exact: true }).check();
  const reason = `거친 말 ${reportId}`;
  await page.getByLabel('사유', { exact: true }).fill(reason);
  await page.getByRole('button', { name: '경고하기' }).click();
  await expect(page.getByText(`신고 #${reportId}: 경고 처리했어요.`)).toBeVisible();

  // The next visit: the warning, with the operator's reason, until the member confirms it.
  const member = await browser.newContext({ baseURL, locale: 'ko-KR', timezoneId: 'Asia/Seoul' });
  const visit = await member.newPage();
  await login(visit, chat.rude.username, chat.rude.password);
  const warned = visit.getByRole('alertdialog', { name: '운영팀의 경고가 있어요' });
  await expect(warned).toContainText(`같은 일이 반복되면 이용이 정지될 수 있어요. 사유: ${reason}`);
  const seen = visit.waitForResponse((r) => r.url().endsWith('/seen') && r.request().method() === 'POST');
  await warned.getByRole('button', { name: '확인' }).click();
  expect((await seen).ok()).toBe(true);
  await expect(warned).toBeHidden();
  await expect(visit).toHaveURL(/\/main$/);

  // Seen once is seen everywhere: the next visit shows no warning.
  const listed = visit.waitForResponse((r) => r.url().endsWith('/api/warnings'));
  await visit.reload();
  expect(await (await listed).json()).toMatchObject({ warnings: [] });
  await expect(visit.getByRole('button', { name: /확성기 \d+개 보유/ })).toBeVisible();
  await expect(warned).toHaveCount(0);
  await member.close();
});

test('a logged-in member visiting the console is sent to its login', async ({ page }) => {
  const member = { username: uniqueUsername('mem'), phone: uniquePhone(), password: 'abcdefg1', nickname: `별${Math.floor(Math.random() * 1_000_000)}` };
  await signUpByApi(page.context(), member);
  const check = await page.request.get('/api/auth/check');
  expect(await check.json()).toMatchObject({ loggedIn: true });
  const refused = await page.request.get('/api/admin/dashboard');
  expect(refused.status()).toBe(401);
  await page.goto('/admin/dashboard');
  await expect(page).toHaveURL(/\/admin$/);
  await expect(page.getByRole('heading', { name: '운영 콘솔' })).toBeVisible();
  await expect(page.getByText('다시 로그인해주세요.')).toBeVisible();
});

test('a wrong password and a wrong code keep the operator out', async ({ page }) => {
  const operator = uniqueUsername('op');
  addOperator(operator, OPERATOR_PASSWORD);
  await page.goto('/admin');
  await page.getByLabel('운영자 아이디').fill(operator);
  await page.getByLabel('비밀번호').fill('Wrong-Pass-2026');
  await page.getByRole('button', { name: '로그인', exact: true }).click();
  await expect(page.getByRole('alert')).toContainText('아이디 또는 비밀번호');
  await expect(page).toHaveURL(/\/admin$/);

  await page.getByLabel('비밀번호').fill(OPERATOR_PASSWORD);
  await page.getByRole('button', { name: '로그인', exact: true }).click();
  await expect(page).toHaveURL(/\/admin\/totp$/);
  const shown = (await page.getByTestId('totp-secret').textContent()) ?? '';
  const right = totpCode(shown);
  const wrong = String((Number(right) + 500_000) % 1_000_000).padStart(6, '0');
  await page.getByLabel('인증 코드').fill(wrong);
  await page.getByRole('button', { name: '확인', exact: true }).click();
  await expect(page.getByRole('alert')).toContainText('인증 코드가 올바르지 않아요.');
  // The console stays shut until the second factor passes.
  await page.goto('/admin/dashboard');
  await expect(page).toHaveURL(/\/admin\/totp$/);
});
