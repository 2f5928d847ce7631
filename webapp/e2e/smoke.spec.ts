import { expect, test } from '@playwright/test';

test('a guest lands on the login page with the demo badge', async ({ page }) => {
  await page.goto('/');
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByRole('heading', { name: '텔레파시' })).toBeVisible();
  await expect(page.getByText('DEMO', { exact: true })).toBeVisible();
});

test('member pages send a guest to /login', async ({ page }) => {
  for (const path of ['/main', '/mypage', '/mywords', '/likes', '/chatpage', '/changepassword', '/no-such-page']) {
    await page.goto(path);
    await expect(page).toHaveURL(/\/login$/);
  }
});

test('short terms types redirect to their documents', async ({ page }) => {
  await page.goto('/terms/privacy');
  await expect(page).toHaveURL(/\/terms\/privacy-policy$/);
  await expect(page.getByRole('heading', { level: 2, name: '개인정보 처리방침' })).toBeVisible();
  await page.goto('/terms/whatever');
  await expect(page.getByText('존재하지 않는 약관 유형이에요.')).toBeVisible();
  await expect(page.getByRole('heading', { level: 1, name: '약관', exact: true })).toBeVisible();
  await page.getByRole('link', { name: '청소년 보호정책' }).click();
  await expect(page).toHaveURL(/\/terms\/youth-protection$/);
});

test('the terms modal requires the three required terms', async ({ page }) => {
  await page.goto('/login');
  await page.getByRole('button', { name: '회원가입' }).click();
  const dialog = page.getByRole('dialog', { name: '약관 동의' });
  await dialog.getByRole('button', { name: '다음' }).click();
  await expect(dialog.getByRole('alert')).toHaveText('필수 약관에 모두 동의해야 서비스를 이용할 수 있어요.');
  await dialog.getByRole('button', { name: '전체 동의' }).click();
  await dialog.getByRole('button', { name: '다음' }).click();
  await expect(page).toHaveURL(/\/register$/);
});
