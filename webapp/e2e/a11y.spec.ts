import { expect, test } from '@playwright/test';
import { expectAccessible } from './accessibility';
import { latestCode, signUpByApi, twoInChat, uniquePhone, uniqueUsername } from './helpers';

test('the guest pages and the console login meet WCAG 2.2 AA', async ({ page, request }) => {
  test.setTimeout(60_000);
  await page.goto('/login');
  await expect(page.getByRole('button', { name: '로그인', exact: true })).toBeVisible();
  await expectAccessible(page, 'login');

  await page.getByRole('button', { name: '회원가입' }).click();
  await expect(page.getByRole('dialog', { name: '약관 동의' })).toBeVisible();
  await expectAccessible(page, 'terms agreement');
  await page.getByRole('button', { name: '전체 동의' }).click();
  await page.getByRole('button', { name: '다음' }).click();
  await expect(page.getByRole('heading', { name: '회원가입' })).toBeVisible();
  await expectAccessible(page, 'register');

  await page.getByLabel('아이디').fill(uniqueUsername('ax'));
  await page.getByRole('button', { name: '중복 확인' }).click();
  await expect(page.getByText('사용 가능한 아이디입니다.')).toBeVisible();
  await page.getByLabel('비밀번호', { exact: true }).fill('abcdefg1');
  await page.getByLabel('비밀번호 확인').fill('abcdefg1');
  await page.getByRole('button', { name: '회원가입', exact: true }).click();
  await expect(page).toHaveURL(/\/verify-mvp$/);
  await expectAccessible(page, 'verify-mvp');
  const phone = uniquePhone();
  await page.getByLabel('생년월일').fill('20000101');
  await page.getByRole('radio', { name: '여성' }).check();
  await page.getByLabel('휴대폰 번호').fill(phone);
  await page.getByRole('button', { name: '인증번호 받기' }).click();
  await expect(page.getByLabel('인증번호')).toBeVisible();
  expect(await latestCode(request, phone)).toMatch(/^\d+$/);
  await expectAccessible(page, 'verify-mvp, code sent');

  await page.goto('/findpassword');
  await expect(page.getByRole('heading', { name: '비밀번호 찾기' })).toBeVisible();
  await expectAccessible(page, 'findpassword');

  await page.goto('/terms/service');
  await expect(page.getByRole('heading', { level: 2 }).first()).toBeVisible();
  await expectAccessible(page, 'terms');

  await page.goto('/admin');
  await expect(page.getByRole('heading', { name: '운영 콘솔' })).toBeVisible();
  await expectAccessible(page, 'console login');
});

test('the member pages meet WCAG 2.2 AA', async ({ page, context }) => {
  test.setTimeout(60_000);
  const suffix = String(Math.floor(Math.random() * 1_000_000));
  await signUpByApi(context, { username: uniqueUsername('ax'), phone: uniquePhone(), password: 'abcdefg1', nickname: `접근${suffix}` });
  for (const path of ['/main', '/mypage', '/mywords', '/likes', '/wordset', '/helppage']) {
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();
    await page.waitForLoadState('networkidle');
    await expectAccessible(page, path);
  }
});

test('the chat page meets WCAG 2.2 AA', async ({ browser, baseURL, viewport, locale, timezoneId }) => {
  test.setTimeout(90_000);
  const { a, b, close } = await twoInChat(browser, { baseURL, viewport, locale, timezoneId }, 'ax');
  await a.getByRole('textbox', { name: '메시지' }).fill('안녕하세요, 반가워요');
  await a.getByRole('textbox', { name: '메시지' }).press('Enter');
  await expect(b.getByRole('log').getByText('안녕하세요, 반가워요')).toBeVisible();
  await expectAccessible(a, 'chatpage, sender');
  await expectAccessible(b, 'chatpage, receiver');
  await close();
});
