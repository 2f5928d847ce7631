import { expect, test, type APIRequestContext } from '@playwright/test';

import fs from 'node:fs';
import { latestCode, uniquePhone, uniqueUsername } from './helpers';

const nicknameCases = (
  JSON.parse(fs.readFileSync(new URL('../../testdata/moderation-cases.json', import.meta.url), 'utf8')) as {
    nicknames: { input: string; nickname_error: string | null }[];
  }
).nicknames;

/** An account made through the API, as another person would have made it. */
async function existingAccount(request: APIRequestContext): Promise<string> {
  const username = uniqueUsername('taken');
  const phone = uniquePhone();
  expect((await request.post('/api/verify-mvp/send', { data: { phone } })).ok()).toBe(true);
  const code = await latestCode(request, phone);
  expect((await request.post('/api/verify-mvp/check', { data: { phone, code } })).ok()).toBe(true);
  const registered = await request.post('/api/register', {
    data: { username, password: 'abcdefg1', phone, gender: '남성', birthdate: '1999-01-01', service: true, privacy: true, youth: true },
  });
  expect(registered.ok()).toBe(true);
  return username;
}

test('a taken username, a wrong code and the nickname rules, then the logged-in redirects', async ({ page, request }) => {
  test.skip(test.info().project.name !== 'mobile', 'runs once, on the mobile project');
  // A long walk (sign-up, every nickname case): more than the default 30 s on a busy machine.
  test.setTimeout(90_000);
  const taken = await existingAccount(request);
  const username = uniqueUsername('rules');
  const phone = uniquePhone();

  await page.goto('/login');
  await page.getByRole('button', { name: '회원가입' }).click();
  await page.getByRole('button', { name: '전체 동의' }).click();
  await page.getByRole('button', { name: '다음' }).click();
  await expect(page).toHaveURL(/\/register$/);

  await page.getByLabel('아이디').fill(taken);
  await page.getByRole('button', { name: '중복 확인' }).click();
  await expect(page.getByText('이미 사용 중인 아이디입니다.')).toBeVisible();
  await page.getByLabel('비밀번호', { exact: true }).fill('abcdefg1');
  await page.getByLabel('비밀번호 확인').fill('abcdefg1');
  await page.getByRole('button', { name: '회원가입', exact: true }).click();
  await expect(page).toHaveURL(/\/register$/);
  const alert = page.getByRole('alertdialog');
  await expect(alert).toContainText('아이디 중복 검사를 완료해주세요.');
  await alert.getByRole('button', { name: '확인' }).click();

  await page.getByLabel('아이디').fill(username);
  await page.getByRole('button', { name: '중복 확인' }).click();
  await expect(page.getByText('사용 가능한 아이디입니다.')).toBeVisible();
  await page.getByRole('button', { name: '회원가입', exact: true }).click();

  await expect(page).toHaveURL(/\/verify-mvp$/);
  await page.getByLabel('생년월일').fill('20000101');
  await page.getByRole('radio', { name: '남성' }).check();
  await page.getByLabel('휴대폰 번호').fill(phone);
  await page.getByRole('button', { name: '인증번호 받기' }).click();
  await expect(page.getByLabel('인증번호')).toBeVisible();
  const code = await latestCode(request, phone);
  const wrong = code === '000000' ? '111111' : '000000';
  await page.getByLabel('인증번호').fill(wrong);
  await page.getByRole('button', { name: '인증하고 가입하기' }).click();
  await expect(page.getByText('인증번호가 올바르지 않습니다.')).toBeVisible();
  await expect(page).toHaveURL(/\/verify-mvp$/);
  await page.getByLabel('인증번호').fill(code);
  await page.getByRole('button', { name: '인증하고 가입하기' }).click();
  await expect(page).toHaveURL(/\/main$/);

  const nicknameInput = page.getByRole('textbox', { name: '닉네임' });
  await page.getByRole('button', { name: '다음' }).click();
  await expect(page.getByText('닉네임을 입력해주세요.')).toBeVisible();
  await nicknameInput.fill('달 빛!');
  await page.getByRole('button', { name: '다음' }).click();
  await expect(page.getByText('닉네임은 한글, 영문, 숫자로 20자 이내여야 해요.')).toBeVisible();
  // The abuse filter's nickname cases, as a user types them (the server checks; one table).
  for (const { input, nickname_error: error } of nicknameCases) {
    await nicknameInput.fill(input);
    await page.getByRole('button', { name: '다음' }).click();
    if (error === 'CONTENT_NOT_ALLOWED') {
      await expect(page.getByText('부적절한 표현이 포함되어 있어요. 다른 표현을 사용해주세요.')).toBeVisible();
    } else {
      await expect(page.getByRole('button', { name: '이 닉네임으로 할게요' })).toBeVisible();
      await page.getByRole('button', { name: '다시 입력' }).click();
    }
  }
  await nicknameInput.fill('달빛Moon7');
  await page.getByRole('button', { name: '다음' }).click();
  await page.getByRole('button', { name: '이 닉네임으로 할게요' }).click();
  await expect(page.getByText('닉네임이 저장되었어요.')).toBeVisible();

  // Logged in: the login and sign-up pages lead home.
  for (const path of ['/login', '/register']) {
    await page.goto(path);
    await expect(page).toHaveURL(/\/main$/);
  }
});
