import { expect, test } from '@playwright/test';
import { anotherAddress, latestCode, latestResetCode, login, uniquePhone, uniqueUsername } from './helpers';

test('sign up, pick a nickname, log out and in, reset and change the password, withdraw', async ({ page, request }) => {
  // One account life per run: the SMS limits per phone and per address make it a one-project test.
  test.skip(test.info().project.name !== 'mobile', 'runs once, on the mobile project');
  test.setTimeout(90_000);
  const username = uniqueUsername();
  const phone = uniquePhone();
  const password = 'abcdefg1';

  // Terms, then the username check and the password rule.
  await page.goto('/login');
  await page.getByRole('button', { name: '회원가입' }).click();
  await page.getByRole('button', { name: '전체 동의' }).click();
  await page.getByRole('button', { name: '다음' }).click();
  await expect(page).toHaveURL(/\/register$/);
  await page.getByLabel('아이디').fill(username);
  await page.getByRole('button', { name: '중복 확인' }).click();
  await expect(page.getByText('사용 가능한 아이디입니다.')).toBeVisible();
  await page.getByLabel('비밀번호', { exact: true }).fill(password);
  await page.getByLabel('비밀번호 확인').fill(password);
  await page.getByRole('button', { name: '회원가입', exact: true }).click();

  // Phone verification registers the account.
  await expect(page).toHaveURL(/\/verify-mvp$/);
  await page.getByLabel('생년월일').fill('20000101');
  await page.getByRole('radio', { name: '여성' }).check();
  await page.getByLabel('휴대폰 번호').fill(phone);
  await page.getByRole('button', { name: '인증번호 받기' }).click();
  await expect(page.getByLabel('인증번호')).toBeVisible();
  await page.getByLabel('인증번호').fill(await latestCode(request, phone));
  await page.getByRole('button', { name: '인증하고 가입하기' }).click();
  await expect(page).toHaveURL(/\/main$/);
  expect(await page.evaluate(() => localStorage.getItem('username'))).toBe(username);

  // No nickname yet: the two-step modal.
  const nickname = `달빛${Math.floor(Math.random() * 1_000_000)}`;
  await page.getByRole('textbox', { name: '닉네임' }).fill(nickname);
  await page.getByRole('button', { name: '다음' }).click();
  await page.getByRole('button', { name: '이 닉네임으로 할게요' }).click();
  await expect(page.getByText('닉네임이 저장되었어요.')).toBeVisible();
  await expect(page.getByRole('dialog')).toHaveCount(0);
  expect(await page.evaluate(() => localStorage.getItem('needNicknameSetup'))).toBeNull();

  // My page, then log out.
  await page.getByRole('link', { name: '마이페이지' }).click();
  await expect(page.getByText(nickname, { exact: true })).toBeVisible();
  await expect(page.getByText(username, { exact: true })).toBeVisible();
  await page.getByRole('button', { name: '로그아웃' }).click();
  await expect(page).toHaveURL(/\/login$/);

  // A wrong password fails in a modal; the right one logs in.
  await login(page, username, 'wrongpass1');
  await expect(page.getByRole('alertdialog')).toContainText('아이디 또는 비밀번호가 올바르지 않아요.');
  await page.getByRole('button', { name: '확인' }).click();
  await login(page, username, password);
  await expect(page).toHaveURL(/\/main$/);
  await page.goto('/login');
  await expect(page).toHaveURL(/\/main$/);

  // Change the password.
  await page.goto('/changepassword');
  await page.getByLabel('현재 비밀번호').fill(password);
  await page.getByLabel('새 비밀번호', { exact: true }).fill('changed12');
  await page.getByLabel('새 비밀번호 확인').fill('changed12');
  await page.getByRole('button', { name: '변경하기' }).click();
  await expect(page.getByRole('alertdialog')).toContainText('비밀번호가 변경되었습니다.');
  await page.getByRole('button', { name: '확인' }).click();

  // Identity verification: in demo mode it goes straight to the result.
  await page.goto('/verify');
  await page.getByRole('button', { name: '본인인증 시작하기' }).click();
  await expect(page).toHaveURL(/\/verify\/callback\?identityVerificationId=.+/);
  await expect(page.getByText(/인증된 이름: .+/)).toBeVisible();
  await page.goto('/verify/callback');
  await expect(page.getByText('인증 ID가 유효하지 않습니다.')).toBeVisible();

  // Reset it as a guest with the code sent to the registered phone, from another network
  // (the phone's own, say): a phone gets one code a minute from each network, and the
  // sign-up's code was sent a moment ago.
  await page.context().clearCookies();
  await page.context().setExtraHTTPHeaders({ 'X-Forwarded-For': anotherAddress() });
  await page.goto('/findpassword');
  await page.getByLabel('아이디').fill('nobody_here');
  await page.getByRole('button', { name: '다음' }).click();
  await expect(page.getByText('가입 기록이 없어요')).toBeVisible();
  await page.getByRole('button', { name: '다시 확인' }).click();
  await page.getByLabel('아이디').fill(username);
  await page.getByRole('button', { name: '다음' }).click();
  await expect(page.getByText(/가입한 휴대폰\(.+\)으로 인증번호를 보냈어요\./)).toBeVisible();
  await page.getByLabel('인증번호').fill(await latestResetCode(phone));
  await page.getByLabel('새 비밀번호', { exact: true }).fill('reset123');
  await page.getByLabel('새 비밀번호 확인').fill('reset123');
  await page.getByRole('button', { name: '비밀번호 재설정' }).click();
  await expect(page.getByText('비밀번호를 재설정했어요')).toBeVisible();
  await page.getByRole('link', { name: '로그인하러 가기' }).click();

  // Withdraw.
  await login(page, username, 'reset123');
  await expect(page).toHaveURL(/\/main$/);
  await page.goto('/mypage');
  await page.getByRole('button', { name: '회원 탈퇴' }).click();
  await page.getByRole('button', { name: '탈퇴하기' }).click();
  await expect(page).toHaveURL(/\/register$/);
  await expect(page.getByText('회원 탈퇴가 완료되었어요.')).toBeVisible();
  await login(page, username, 'reset123');
  await expect(page.getByRole('alertdialog')).toBeVisible();
});
