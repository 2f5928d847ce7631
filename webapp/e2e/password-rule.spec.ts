import fs from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { expectAccessible } from './accessibility';
import { signUpByApi, uniquePhone, uniqueUsername } from './helpers';

const shots = '/tmp/shots-web';
const RULE = '비밀번호는 8자 이상이며, 영문/숫자/특수문자 중 2가지 이상을 포함해야 합니다.';
/** The rule under the field before anything is typed, in the app's 해요체. */
const HINT = '8자 이상, 영문/숫자/특수문자 중 2가지 이상을 섞어주세요.';

async function screenshot(page: Page, name: string) {
  fs.mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: `${shots}/${name}-${test.info().project.name}.png`, fullPage: true });
}

// A typo in a new password locks its owner out: sign-up asks for it twice and can show it.
test('sign-up asks for the password twice, states its rule, and can show it as typed', async ({ page }) => {
  await page.goto('/register');
  await page.getByRole('dialog', { name: '약관 동의' }).getByRole('button', { name: '전체 동의' }).click();
  await page.getByRole('button', { name: '다음' }).click();
  await page.getByLabel('아이디').fill(uniqueUsername('twice'));
  await page.getByRole('button', { name: '중복 확인' }).click();
  await expect(page.getByText('사용 가능한 아이디입니다.')).toBeVisible();

  const password = page.getByLabel('비밀번호', { exact: true });
  const confirmation = page.getByLabel('비밀번호 확인');
  await expect(password).toHaveAccessibleDescription(HINT);
  await password.fill('abcdefg1');
  // The confirmation says it differs as it is typed, under itself.
  await confirmation.pressSequentially('abcdefg2');
  await expect(confirmation).toHaveAccessibleDescription('두 비밀번호가 서로 달라요.');
  await expectAccessible(page, '/register, the confirmation differs');
  await page.getByRole('button', { name: '회원가입', exact: true }).click();
  await expect(page.getByRole('alertdialog')).toHaveCount(0);
  await expect(confirmation).toBeFocused();
  await expect(confirmation).toHaveAccessibleDescription('비밀번호를 다시 확인해주세요.');
  await expect(page).toHaveURL(/\/register$/);

  const toggle = page.getByRole('button', { name: '비밀번호 보기' });
  await expect(toggle).toHaveAttribute('aria-pressed', 'false');
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-pressed', 'true');
  await expect(password).toHaveAttribute('type', 'text');
  await expect(confirmation).toHaveAttribute('type', 'text');
  await expect(confirmation).toHaveValue('abcdefg2');
  await screenshot(page, 'register-password');

  await confirmation.fill('abcdefg1');
  await page.getByRole('button', { name: '회원가입', exact: true }).click();
  await expect(page).toHaveURL(/\/verify-mvp$/);
});

// A change (or a reset) may not leave the account with a password weaker than sign-up asks:
// the page says the rule, and the server holds to it.
test('a changed password meets the sign-up rule, said on the page and held by the server', async ({ page, context }) => {
  const member = { username: uniqueUsername('rule'), phone: uniquePhone(), password: 'abcdefg1', nickname: `규칙${String(Math.floor(Math.random() * 10_000))}` };
  await signUpByApi(context, member);

  const weak = await context.request.post('/api/password/change', { data: { currentPassword: member.password, newPassword: 'abc123' } });
  expect(weak.status()).toBe(400);
  expect(await weak.json()).toMatchObject({ code: 'PASSWORD_WEAK', message: RULE });

  await page.goto('/changepassword');
  const newPassword = page.getByLabel('새 비밀번호', { exact: true });
  await expect(newPassword).toHaveAccessibleDescription(HINT);
  await page.getByLabel('현재 비밀번호').fill(member.password);
  await newPassword.fill('abc123');
  await page.getByLabel('새 비밀번호 확인').fill('abc123');
  await page.getByRole('button', { name: '변경하기' }).click();
  await expect(page.getByLabel('새 비밀번호 확인')).toHaveAccessibleDescription(RULE);
  await screenshot(page, 'change-password-rule');

  await newPassword.fill('changed12');
  await page.getByLabel('새 비밀번호 확인').fill('changed12');
  await page.getByRole('button', { name: '변경하기' }).click();
  await expect(page.getByRole('alertdialog')).toContainText('비밀번호가 변경되었습니다.');
});
