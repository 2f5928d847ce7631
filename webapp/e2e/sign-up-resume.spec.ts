import fs from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { expectAccessible } from './accessibility';
import { latestCode, uniquePhone, uniqueUsername } from './helpers';

const shots = '/tmp/shots-web';

async function screenshot(page: Page, name: string) {
  fs.mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: `${shots}/${name}-${test.info().project.name}.png`, fullPage: true });
}

/** Everything this tab keeps in local storage, where a later user of the device could read it. */
async function localText(page: Page): Promise<string> {
  return page.evaluate(() => Object.keys(localStorage).map((key) => `${key}=${localStorage.getItem(key) ?? ''}`).join('\n'));
}

// A phone in a subway: the tab is reloaded (or dropped and restored) while its user reads the
// SMS, and the browser's back and forward buttons go between the sign-up's two pages.
test('a sign-up survives a reload and back and forward, and its password never reaches local storage', async ({ page, request }) => {
  const username = uniqueUsername('resume');
  const phone = uniquePhone();
  const password = 'abcdefg1';

  await page.goto('/login');
  await page.getByRole('button', { name: '회원가입' }).click();
  await page.getByRole('button', { name: '전체 동의' }).click();
  await page.getByRole('button', { name: '다음' }).click();
  await expect(page.getByRole('heading', { name: '회원가입' })).toBeVisible();
  await page.getByLabel('아이디').fill(username);
  await page.getByRole('button', { name: '중복 확인' }).click();
  await expect(page.getByText('사용 가능한 아이디입니다.')).toBeVisible();
  await page.getByLabel('비밀번호', { exact: true }).fill(password);
  await page.getByLabel('비밀번호 확인').fill(password);

  // A reload on /register keeps the terms (no second modal), the fields and the check.
  await page.reload();
  await expect(page.getByRole('heading', { name: '회원가입' })).toBeVisible();
  await expect(page.getByRole('dialog', { name: '약관 동의' })).toHaveCount(0);
  await expect(page.getByLabel('아이디')).toHaveValue(username);
  await expect(page.getByLabel('비밀번호', { exact: true })).toHaveValue(password);
  await expect(page.getByLabel('비밀번호 확인')).toHaveValue(password);
  await expect(page.getByText('사용 가능한 아이디입니다.')).toBeVisible();
  await page.getByRole('button', { name: '회원가입', exact: true }).click();
  await expect(page).toHaveURL(/\/verify-mvp$/);

  await page.getByLabel('생년월일').fill('20000101');
  await page.getByRole('radio', { name: '여성' }).check();
  await page.getByLabel('휴대폰 번호').fill(phone);

  // Back: /register as it was left. Forward: /verify-mvp as it was left, the birthdate too.
  await page.goBack();
  await expect(page).toHaveURL(/\/register$/);
  await expect(page.getByLabel('아이디')).toHaveValue(username);
  await expect(page.getByLabel('비밀번호', { exact: true })).toHaveValue(password);
  await expect(page.getByLabel('비밀번호 확인')).toHaveValue(password);
  await expect(page.getByRole('dialog', { name: '약관 동의' })).toHaveCount(0);
  await page.goForward();
  await expect(page).toHaveURL(/\/verify-mvp$/);
  await expect(page.getByLabel('생년월일')).toHaveValue('20000101');
  await expect(page.getByRole('radio', { name: '여성' })).toBeChecked();
  // The number reads as people write it, 010-1234-5678.
  const shown = `${phone.slice(0, 3)}-${phone.slice(3, 7)}-${phone.slice(7)}`;
  await expect(page.getByLabel('휴대폰 번호')).toHaveValue(shown);

  await page.getByRole('button', { name: '인증번호 받기' }).click();
  await expect(page.getByLabel('인증번호')).toBeVisible();
  const sent = `${shown}로 인증번호를 보냈어요.`;
  await expect(page.getByText(sent)).toBeVisible();
  expect(await localText(page)).not.toContain(password);

  // The tab reloads while its user reads the SMS: the code is still awaited, its time running.
  await page.reload();
  await expect(page).toHaveURL(/\/verify-mvp$/);
  await expect(page.getByLabel('인증번호')).toBeVisible();
  await expect(page.getByLabel('생년월일')).toHaveValue('20000101');
  await expect(page.getByRole('timer')).toHaveText(/0[23]:\d\d/);
  // The same line as before the reload.
  await expect(page.getByText(sent)).toBeVisible();
  await screenshot(page, 'verify-after-reload');
  await expectAccessible(page, '/verify-mvp after a reload, the code awaited');
  await page.getByLabel('인증번호').fill(await latestCode(request, phone));
  await page.getByRole('button', { name: '인증하고 가입하기' }).click();
  await expect(page).toHaveURL(/\/main$/);

  // Signed up: nothing of the draft stays in the tab, and the password was never in local storage.
  expect(await page.evaluate(() => sessionStorage.getItem('registrationDraft'))).toBeNull();
  expect(await localText(page)).not.toContain(password);
});

test('a sign-up left for the login page takes its password with it', async ({ page }) => {
  await page.goto('/register');
  await page.getByRole('dialog', { name: '약관 동의' }).getByRole('button', { name: '전체 동의' }).click();
  await page.getByRole('button', { name: '다음' }).click();
  await page.getByLabel('아이디').fill(uniqueUsername('leave'));
  await page.getByLabel('비밀번호', { exact: true }).fill('abcdefg1');
  await page.getByLabel('비밀번호 확인').fill('abcdefg1');
  await page.getByRole('link', { name: '로그인' }).click();
  await expect(page).toHaveURL(/\/login$/);
  await expect.poll(() => page.evaluate(() => sessionStorage.getItem('registrationDraft'))).toBeNull();
});
