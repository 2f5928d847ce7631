import { execFileSync } from 'node:child_process';
import { expect, test, type Page } from '@playwright/test';
import { signUpByApi, uniquePhone, uniqueUsername } from './helpers';
import { serverBinary, serverDatabaseUrl } from './server-env';

/** Runs `telepathy transfer|wordset …` as an operator would, on the database of the server under test. */
function operator(args: string[]): string {
  return execFileSync(serverBinary, args, {
    env: { ...process.env, DATABASE_URL: serverDatabaseUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
  });
}

async function member(page: Page) {
  const suffix = Math.floor(Math.random() * 1_000_000);
  await signUpByApi(page.context(), {
    username: uniqueUsername('ew'),
    phone: uniquePhone(),
    password: 'abcdefg1',
    nickname: `단어${suffix}`,
  });
}

/** The newest transfer of the logged-in user, as the server lists it. */
async function newestTransfer(page: Page): Promise<{ id: number; depositor: string; status: string }> {
  const response = await page.request.get('/api/sp_payments/mine');
  expect(response.ok()).toBe(true);
  const body = (await response.json()) as { payments: { id: number; depositor: string; status: string }[] };
  const newest = body.payments[0];
  if (!newest) throw new Error('no transfer');
  return newest;
}

/** From /likes: the real name (when asked), then the transfer on screen. */
async function openTransfer(page: Page, askName: boolean) {
  await page.goto('/likes');
  await page.getByRole('button', { name: '1,000원 입금하고 단어 세트 만들기' }).click();
  if (askName) {
    const modal = page.getByRole('dialog', { name: '입금자 이름 입력' });
    await modal.getByRole('button', { name: '저장하고 계속하기' }).click();
    await expect(modal.getByText('이름을 입력해주세요.', { exact: true })).toBeVisible();
    await modal.getByLabel('이름').fill('김민준');
    await modal.getByRole('button', { name: '저장하고 계속하기' }).click();
  }
  await expect(page.getByRole('heading', { name: '아래 계좌로 1,000원을 보내주세요' })).toBeVisible();
}

test('a word set from the transfer to the review: pending, checking, confirmed by an operator, the form, thanks', async ({ page }) => {
  test.setTimeout(60_000);
  await member(page);
  await openTransfer(page, true);

  // Pending: the QR code, the account and the memo to type.
  const transfer = await newestTransfer(page);
  expect(transfer.status).toBe('pending');
  expect(transfer.depositor).toMatch(/^김민준\d{4}$/);
  await expect(page.getByRole('img', { name: /1,000원 보내기 QR 코드/ })).toBeVisible();
  await expect(page.getByText(transfer.depositor, { exact: true })).toBeVisible();
  await expect(page.getByText('000-0000-0000')).toBeVisible();

  // Checking: the countdown runs while the status is polled; an operator sees the money come in.
  await page.getByRole('button', { name: '입금했어요' }).click();
  await expect(page.getByRole('heading', { name: '입금을 확인하고 있어요' })).toBeVisible();
  await expect(page.getByRole('timer')).toHaveAttribute('aria-label', /남은 시간 (60|59|58|57)초/);
  expect(operator(['transfer', 'list'])).toContain(transfer.depositor);
  expect(operator(['transfer', 'confirm', String(transfer.id)])).toContain('확인했어요');

  // Paid: the modal leads to the form.
  const paid = page.getByRole('alertdialog', { name: '입금이 확인되었어요!' });
  await expect(paid).toBeVisible({ timeout: 10_000 });
  await paid.getByRole('button', { name: '단어 입력하러 가기' }).click();
  await expect(page).toHaveURL(new RegExp(`/wordset\\?payment=${transfer.id}$`));

  // The form: every rule, and no save until all is valid.
  const word = (n: number) => page.getByLabel(`단어 ${n}`, { exact: true });
  await word(1).fill('sea바다1');
  await expect(word(1)).toHaveValue('바다');
  // Saving is dimmed (aria-disabled) until all is valid; submitting anyway (Enter) says why.
  await expect(page.getByRole('button', { name: '저장하기' })).toHaveAttribute('aria-disabled', 'true');
  await word(1).press('Enter');
  const invalid = page.getByRole('alertdialog', { name: '입력한 정보를 다시 확인해주세요' });
  await expect(invalid).toBeVisible();
  await invalid.getByRole('button', { name: '확인' }).click();
  await expect(page.getByText('단어 4개를 모두 입력해주세요.')).toHaveCount(3);
  await expect(page.getByText('은행 이름은 한글 또는 영문 2~20자로 입력해주세요.')).toBeVisible();
  await expect(page.getByText('계좌번호는 숫자 4~20자리로 입력해주세요.')).toBeVisible();
  await word(2).fill('바다');
  await expect(page.getByText('서로 다른 단어 4개를 입력해주세요.', { exact: true })).toBeVisible();
  await word(2).fill('ㄴㅇ');
  await expect(page.getByText('단어는 한글 1~6자로 입력해주세요.')).toBeVisible();
  await word(2).fill('노을');
  await word(3).fill('한강');
  await word(4).fill('아이스크림');
  await page.getByLabel('은행', { exact: true }).selectOption('직접 입력');
  await page.getByLabel('은행 이름').fill('국');
  await expect(page.getByText('은행 이름은 한글 또는 영문 2~20자로 입력해주세요.')).toBeVisible();
  await page.getByLabel('은행', { exact: true }).selectOption('카카오뱅크');
  await page.getByLabel('계좌번호').fill('12');
  await expect(page.getByText('계좌번호는 숫자 4~20자리로 입력해주세요.')).toBeVisible();
  await page.getByLabel('계좌번호').fill('3333012345678');
  await expect(page.getByRole('button', { name: '저장하기' })).not.toHaveAttribute('aria-disabled');
  await page.getByRole('button', { name: '저장하기' }).click();

  // Thanks, then /likes lists the set waiting for review.
  const thanks = page.getByRole('alertdialog', { name: '고마워요!' });
  await expect(thanks).toContainText('24시간 이내에 반영될 거예요');
  await thanks.getByRole('button', { name: '확인' }).click();
  await expect(page).toHaveURL(/\/likes$/);
  const sets = page.getByRole('list', { name: '내 단어 세트' });
  await expect(sets).toContainText('아이스크림');
  await expect(sets.getByText('검토 중')).toBeVisible();
  await expect(page.getByRole('list', { name: '내 결제' }).getByText('단어 등록 완료')).toBeVisible();

  // An operator approves it; the user reads the decision.
  const list = operator(['wordset', 'list']);
  const id = /^(\d+)\t바다 노을 한강 아이스크림/m.exec(list)?.[1];
  expect(id, list).toBeDefined();
  operator(['wordset', 'approve', id ?? '']);
  await page.reload();
  await expect(page.getByRole('list', { name: '내 단어 세트' }).getByText('반영됨')).toBeVisible();
});

test('no deposit within 60 seconds shows the expired screen; a later confirmation still pays', async ({ page }) => {
  test.setTimeout(60_000);
  // The page's clock is the test's: 60 seconds pass at once.
  await page.clock.install();
  await member(page);
  await openTransfer(page, true);
  const transfer = await newestTransfer(page);
  await page.getByRole('button', { name: '입금했어요' }).click();
  await expect(page.getByRole('heading', { name: '입금을 확인하고 있어요' })).toBeVisible();
  await page.clock.fastForward(30_000);
  await expect(page.getByRole('heading', { name: '입금을 확인하고 있어요' })).toBeVisible();
  await page.clock.fastForward(31_000);
  await expect(page.getByRole('heading', { name: '아직 입금이 확인되지 않았어요' })).toBeVisible();
  await expect(page.getByText(/24시간 안에 입금이 확인되면/)).toBeVisible();
  await page.getByRole('button', { name: '처음으로 돌아가기' }).click();
  await expect(page.getByRole('button', { name: '1,000원 입금하고 단어 세트 만들기' })).toBeVisible();
  const payments = page.getByRole('list', { name: '내 결제' });
  await expect(payments.getByText('입금 대기')).toBeVisible();

  // The money comes in late; the operator confirms it, and the payment leads to the form.
  operator(['transfer', 'confirm', String(transfer.id)]);
  await page.reload();
  await expect(payments.getByText('입금 확인')).toBeVisible();
  await payments.getByRole('link', { name: '단어 입력하기' }).click();
  await expect(page).toHaveURL(new RegExp(`/wordset\\?payment=${transfer.id}$`));
  await expect(page.getByLabel('단어 1', { exact: true })).toBeVisible();
});

test('on a phone the transfer shows the account and the memo first; no banking app opens by itself', async ({ browser, baseURL, viewport, locale, timezoneId }) => {
  const context = await browser.newContext({
    baseURL,
    viewport,
    locale,
    timezoneId,
    userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148',
  });
  const page = await context.newPage();
  const opened: string[] = [];
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) opened.push(frame.url());
  });
  await member(page);
  await openTransfer(page, true);
  const { depositor } = await newestTransfer(page);
  await expect(page.getByText(depositor, { exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: '입금자명 복사' })).toBeVisible();
  await expect(page.getByText('송금 앱을 열기 전에 입금자명을 복사해 두세요', { exact: false })).toBeVisible();
  // Well past the 2 seconds after which the page used to leave for the app and start checking.
  await page.waitForTimeout(3000);
  expect(opened.some((url) => url.startsWith('supertoss:'))).toBe(false);
  await expect(page).toHaveURL(/\/likes$/);
  await expect(page.getByRole('heading', { name: '입금을 확인하고 있어요' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: '토스 앱으로 보내기' })).toBeVisible();
  await context.close();
});
