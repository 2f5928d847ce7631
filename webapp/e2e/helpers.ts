import fs from 'node:fs';
import { expect, type APIRequestContext, type Page } from '@playwright/test';
import { serverLogPath } from './server-log';

export function uniqueUsername(prefix = 'e2e'): string {
  return `${prefix}_${Date.now().toString(36)}${Math.floor(Math.random() * 1000)}`.slice(0, 20);
}

export function uniquePhone(): string {
  return `010${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
}

/** The code the demo SMS provider last "sent" to `phone`. */
export async function latestCode(request: APIRequestContext, phone: string): Promise<string> {
  const response = await request.get(`/api/dev/sms-outbox?phone=${phone}`);
  expect(response.ok()).toBe(true);
  const body = (await response.json()) as { code: string };
  return body.code;
}

/** The password-reset code last "sent" to `phone`, from the server's log: the outbox shows sign-up codes only. */
export async function latestResetCode(phone: string): Promise<string> {
  const masked = `${phone.slice(0, 3)}${'*'.repeat(phone.length - 7)}${phone.slice(-4)}`;
  await expect.poll(() => resetCodeInLog(masked)).not.toBeNull();
  return resetCodeInLog(masked) ?? '';
}

function resetCodeInLog(maskedPhone: string): string | null {
  const lines = fs.readFileSync(serverLogPath, 'utf8').split('\n').reverse();
  for (const line of lines) {
    if (!line.startsWith('{')) continue;
    const fields = (JSON.parse(line) as { fields?: Record<string, unknown> }).fields;
    if (fields?.purpose === 'reset' && fields.phone === maskedPhone && typeof fields.code === 'string') {
      return fields.code;
    }
  }
  return null;
}

export async function login(page: Page, username: string, password: string) {
  await page.goto('/login');
  await page.getByLabel('아이디').fill(username);
  await page.getByLabel('비밀번호').fill(password);
  await page.getByRole('button', { name: '로그인', exact: true }).click();
}

export interface Account {
  username: string;
  phone: string;
  password: string;
}

/** Terms, sign-up and phone verification, ending logged in on /main. */
export async function signUp(page: Page, request: APIRequestContext, account: Account) {
  await page.goto('/login');
  await page.getByRole('button', { name: '회원가입' }).click();
  await page.getByRole('button', { name: '전체 동의' }).click();
  await page.getByRole('button', { name: '다음' }).click();
  await expect(page).toHaveURL(/\/register$/);
  await page.getByLabel('아이디').fill(account.username);
  await page.getByRole('button', { name: '중복 확인' }).click();
  await expect(page.getByText('사용 가능한 아이디입니다.')).toBeVisible();
  await page.getByLabel('비밀번호').fill(account.password);
  await page.getByRole('button', { name: '회원가입', exact: true }).click();
  await expect(page).toHaveURL(/\/verify-mvp$/);
  await page.getByLabel('생년월일').fill('20000101');
  await page.getByRole('radio', { name: '여성' }).check();
  await page.getByLabel('휴대폰 번호').fill(account.phone);
  await page.getByRole('button', { name: '인증번호 받기' }).click();
  await expect(page.getByLabel('인증번호')).toBeVisible();
  await page.getByLabel('인증번호').fill(await latestCode(request, account.phone));
  await page.getByRole('button', { name: '인증하고 가입하기' }).click();
  await expect(page).toHaveURL(/\/main$/);
}

/** The two-step nickname modal a new account meets on /main. */
export async function setNickname(page: Page, nickname: string) {
  await page.getByRole('textbox', { name: '닉네임' }).fill(nickname);
  await page.getByRole('button', { name: '다음' }).click();
  await page.getByRole('button', { name: '이 닉네임으로 할게요' }).click();
  await expect(page.getByText('닉네임이 저장되었습니다.')).toBeVisible();
  await expect(page.getByRole('dialog')).toHaveCount(0);
}

/** Seconds left in the round on screen, read from the timer's label ("남은 시간 17초"). */
export async function secondsLeft(page: Page): Promise<number> {
  const label = (await page.getByRole('timer').getAttribute('aria-label')) ?? '';
  return Number(/(\d+)초/.exec(label)?.[1] ?? 0);
}

/** The round whose words are on screen, or null while none are (or they are fading). */
export async function roundOnScreen(page: Page): Promise<string | null> {
  const words = page.locator('[data-round]:not([data-fading])');
  return (await words.count()) === 1 ? words.getAttribute('data-round') : null;
}

export function wordButton(page: Page, word: string) {
  return page.locator('.word-button', { has: page.locator('.word-button__text', { hasText: new RegExp(`^${word}$`) }) });
}

/** Waits until both show the same round with time to spare, and answers its first word. */
export async function sameRound(a: Page, b: Page): Promise<string> {
  await expect
    .poll(
      async () => {
        const [roundA, roundB, left] = await Promise.all([roundOnScreen(a), roundOnScreen(b), secondsLeft(a)]);
        return roundA !== null && roundA === roundB && left > 8;
      },
      { timeout: 40_000, intervals: [250] },
    )
    .toBe(true);
  return (await a.locator('[data-round] .word-button__text').first().textContent()) ?? '';
}

/**
 * Both users pick the same word of one round with time to spare. A round that ends before the
 * match (or a refused pick) is retried in the next one. Returns the word.
 */
export async function pickTogether(a: Page, b: Page): Promise<string> {
  for (let attempt = 1; attempt <= 3; attempt += 1) {
    const word = await sameRound(a, b);
    await Promise.all([wordButton(a, word).click(), wordButton(b, word).click()]);
    try {
      await expect(a).toHaveURL(/\/chatpage$/, { timeout: 10_000 });
      await expect(b).toHaveURL(/\/chatpage$/, { timeout: 5_000 });
      return word;
    } catch (error) {
      if (attempt === 3) throw error;
    }
  }
  throw new Error('no match');
}
