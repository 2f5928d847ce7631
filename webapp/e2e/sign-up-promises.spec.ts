import { expect, test } from '@playwright/test';
import { signUpByApi, uniquePhone, uniqueUsername } from './helpers';

test('/register asks for the terms first, and going back from /verify-mvp keeps them', async ({ page }) => {
  await page.goto('/register');
  const terms = page.getByRole('dialog', { name: '약관 동의' });
  await expect(terms).toBeVisible();
  await terms.getByRole('button', { name: '다음' }).click();
  await expect(terms.getByRole('alert')).toBeVisible();
  await terms.getByRole('button', { name: '전체 동의' }).click();
  await terms.getByRole('button', { name: '다음' }).click();
  await expect(terms).toBeHidden();
  await expect(page).toHaveURL(/\/register$/);

  await page.getByLabel('아이디').fill(uniqueUsername('terms'));
  await page.getByRole('button', { name: '중복 확인' }).click();
  await expect(page.getByText('사용 가능한 아이디입니다.')).toBeVisible();
  await page.getByLabel('비밀번호', { exact: true }).fill('abcdefg1');
  await page.getByLabel('비밀번호 확인').fill('abcdefg1');
  await page.getByRole('button', { name: '회원가입', exact: true }).click();
  await expect(page).toHaveURL(/\/verify-mvp$/);

  // Someone under 14 is told before a code is spent; a birthdate pasted with dashes is read whole.
  const birthdate = page.getByLabel('생년월일');
  await birthdate.fill('2015-01-01');
  await expect(birthdate).toHaveValue('20150101');
  await page.getByRole('radio', { name: '여성' }).check();
  await page.getByLabel('휴대폰 번호').fill(uniquePhone());
  await page.getByRole('button', { name: '인증번호 받기' }).click();
  await expect(page.getByText('만 14세 미만은 가입할 수 없', { exact: false })).toBeVisible();
  await expect(page.getByLabel('인증번호')).toHaveCount(0);

  // Back to /register: the terms given are kept, no second modal.
  await page.getByRole('button', { name: '뒤로' }).click();
  await expect(page).toHaveURL(/\/register$/);
  await expect(page.getByRole('dialog', { name: '약관 동의' })).toHaveCount(0);
});

test('a nickname another member has is refused while typing, in any case', async ({ browser, baseURL, viewport, locale, timezoneId }) => {
  const options = { baseURL, viewport, locale, timezoneId };
  const suffix = String(Math.floor(Math.random() * 1_000_000));
  const holder = await browser.newContext(options);
  await signUpByApi(holder, { username: uniqueUsername('nh'), phone: uniquePhone(), password: 'abcdefg1', nickname: `Moon${suffix}` });
  const newcomer = await browser.newContext(options);
  await signUpByApi(newcomer, { username: uniqueUsername('nn'), phone: uniquePhone(), password: 'abcdefg1' });
  const page = await newcomer.newPage();
  await page.goto('/main');
  const field = page.getByRole('textbox', { name: '닉네임' });
  await field.fill(`MOON${suffix}`);
  await expect(page.getByText('이미 사용 중인 닉네임이에요', { exact: false })).toBeVisible();
  await field.fill(`Sun${suffix}`);
  await expect(page.getByText('사용할 수 있는 닉네임이에요', { exact: false })).toBeVisible();
  await holder.close();
  await newcomer.close();
});

test('My page says when the nickname may change, and changes it once the month is over', async ({ browser, baseURL, viewport, locale, timezoneId }) => {
  test.skip(test.info().project.name !== 'mobile', 'moves the shared demo clock: runs once');
  const options = { baseURL, viewport, locale, timezoneId };
  const suffix = String(Math.floor(Math.random() * 1_000_000));
  const context = await browser.newContext(options);
  const account = { username: uniqueUsername('nc'), phone: uniquePhone(), password: 'abcdefg1', nickname: `별${suffix}` };
  await signUpByApi(context, account);
  const page = await context.newPage();
  await page.goto('/mypage');
  await expect(page.getByText(account.nickname, { exact: true })).toBeVisible();
  await expect(page.getByText('부터 바꿀 수 있어요', { exact: false })).toBeVisible();
  await expect(page.getByRole('button', { name: '바꾸기' })).toHaveCount(0);

  // A month and a day later (the demo clock), logged in again: the change is offered.
  const later = new Date(Date.now() + 31 * 24 * 3600 * 1000).toISOString().slice(0, 10);
  const moved = await context.request.post('/api/dev/clock', { data: { date: later, seoulTime: '21:00:00' } });
  expect(moved.ok(), await moved.text()).toBe(true);
  try {
    const login = await context.request.post('/api/auth/login', { data: { username: account.username, password: account.password } });
    expect(login.ok(), await login.text()).toBe(true);
    await page.goto('/mypage');
    await page.getByRole('button', { name: '바꾸기' }).click();
    const dialog = page.getByRole('dialog', { name: '닉네임 바꾸기' });
    await dialog.getByRole('textbox', { name: '닉네임' }).fill(`달${suffix}`);
    await dialog.getByRole('button', { name: '다음' }).click();
    await page.getByRole('button', { name: '이 닉네임으로 할게요' }).click();
    await expect(page.getByRole('dialog')).toHaveCount(0);
    // The confirmation, which names the new nickname too, stays until the change is saved.
    await expect(page.getByTestId('modal-backdrop')).toHaveCount(0);
    await expect(page.getByText(`달${suffix}`, { exact: true })).toBeVisible();
    await expect(page.getByText('부터 바꿀 수 있어요', { exact: false })).toBeVisible();
  } finally {
    await context.request.post('/api/dev/clock', { data: {} });
    await context.close();
  }
});
