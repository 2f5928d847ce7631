import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { expect, type APIRequestContext, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from '@playwright/test';
import { serverBinary, serverDatabaseUrl } from './server-env';
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
  // The address changes before the page does: typing now could land in the login form's field.
  await expect(page.getByRole('heading', { name: '회원가입' })).toBeVisible();
  await page.getByLabel('아이디').fill(account.username);
  await page.getByRole('button', { name: '중복 확인' }).click();
  await expect(page.getByText('사용 가능한 아이디입니다.')).toBeVisible();
  await page.getByLabel('비밀번호', { exact: true }).fill(account.password);
  await page.getByLabel('비밀번호 확인').fill(account.password);
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
  await expect(page.getByText('닉네임이 저장되었어요.')).toBeVisible();
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

/** Decodes RFC 4648 base32 (spaces and padding ignored), as authenticator apps read TOTP secrets. */
function base32Bytes(secret: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  const bytes: number[] = [];
  for (const char of secret.replace(/[\s=]/g, '').toUpperCase()) {
    const index = alphabet.indexOf(char);
    if (index < 0) throw new Error(`not base32: ${char}`);
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((value >>> bits) & 0xff);
    }
  }
  return Buffer.from(bytes);
}

/** The 6-digit RFC 6238 code of a base32 secret at `atMs`: HMAC-SHA1 over the 30-second counter. */
export function totpCode(secret: string, atMs = Date.now()): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(atMs / 1000 / 30)));
  const mac = crypto.createHmac('sha1', base32Bytes(secret)).update(counter).digest();
  const offset = (mac[mac.length - 1] ?? 0) & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 1_000_000).padStart(6, '0');
}

/** Makes an operator with the real binary, in the database of the server under test. */
export function addOperator(username: string, password: string): void {
  execFileSync(serverBinary, ['operator', 'add', username], {
    env: { ...process.env, DATABASE_URL: serverDatabaseUrl, TELEPATHY_OPERATOR_PASSWORD: password },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * An address of a network of its own, to send as `X-Forwarded-For` (the suite's server
 * trusts one proxy), so that a request does not count towards this machine's per-address limits.
 */
export function anotherAddress(): string {
  return `10.${String(crypto.randomInt(256))}.${String(crypto.randomInt(256))}.${String(1 + crypto.randomInt(254))}`;
}

/**
 * A member made through the API in `context` (which keeps their session cookie): sign-up with
 * the required terms, phone code, and the nickname when one is given. Each comes from an address of its own, as members do (the suite's server
 * trusts one proxy's `X-Forwarded-For`), so that the many sign-ups of the suite from this one
 * machine do not add up to the per-address limits.
 */
export async function signUpByApi(context: BrowserContext, account: Account & { nickname?: string }): Promise<void> {
  const { request } = context;
  const address = anotherAddress();
  const post = async (url: string, data: unknown) => {
    const response = await request.post(url, { data, headers: { 'X-Forwarded-For': address } });
    expect(response.ok(), `${url}: ${await response.text()}`).toBe(true);
  };
  await post('/api/verify-mvp/send', { phone: account.phone });
  await post('/api/verify-mvp/check', { phone: account.phone, code: await latestCode(request, account.phone) });
  await post('/api/register', {
    username: account.username,
    password: account.password,
    phone: account.phone,
    gender: '여성',
    birthdate: '2000-01-01',
    service: true,
    privacy: true,
    youth: true,
  });
  if (account.nickname) await post('/api/nickname/set-nickname', { nickname: account.nickname });
}

interface Frame {
  event: string;
  data: Record<string, unknown>;
}

declare global {
  interface Window {
    testSocket?: WebSocket;
    testFrames?: Frame[];
  }
}

/**
 * A raw socket of the member logged in on `page`'s context, opened from a page of the API (so
 * the web app's own socket stays shut) and keeping every frame it receives.
 */
export class TestSocket {
  private constructor(private readonly page: Page) {}

  static async open(page: Page): Promise<TestSocket> {
    await page.goto('/api/app-config');
    await page.evaluate(
      () =>
        new Promise<void>((resolve, reject) => {
          const socket = new WebSocket(`${location.origin.replace(/^http/, 'ws')}/ws`);
          window.testFrames = [];
          socket.onmessage = (message) => {
            window.testFrames?.push(JSON.parse(String(message.data)) as Frame);
          };
          socket.onopen = () => {
            resolve();
          };
          socket.onerror = () => {
            reject(new Error('the socket did not open'));
          };
          window.testSocket = socket;
        }),
    );
    return new TestSocket(page);
  }

  async send(event: string, data: Record<string, unknown>): Promise<void> {
    await this.page.evaluate(([name, payload]) => window.testSocket?.send(JSON.stringify({ event: name, data: payload })), [event, data] as const);
  }

  async frames(): Promise<Frame[]> {
    return this.page.evaluate(() => window.testFrames ?? []);
  }

  /** The last frame of `event` received after the first `skip` frames, waiting up to `timeout` ms. */
  async next(event: string, { skip = 0, timeout = 10_000 } = {}): Promise<Frame> {
    let found: Frame | undefined;
    await expect
      .poll(
        async () => {
          found = (await this.frames()).slice(skip).filter((frame) => frame.event === event).pop();
          return found !== undefined;
        },
        { timeout, message: `waiting for ${event}` },
      )
      .toBe(true);
    if (!found) throw new Error(`no ${event}`);
    return found;
  }
}

interface RoundFrame {
  round: number;
  remaining: number;
  words: { word: string }[];
}

/** The round the socket heard of last (from hello or a round push). */
async function currentRound(socket: TestSocket): Promise<RoundFrame | null> {
  const frames = await socket.frames();
  for (const frame of [...frames].reverse()) {
    if (frame.event === 'round') return frame.data as unknown as RoundFrame;
    if (frame.event === 'hello') return frame.data.round as RoundFrame;
  }
  return null;
}

/**
 * Two members' sockets pick the same word of one round with a few seconds to spare, until
 * they are matched (a round that ends first is retried in the next). Returns the room id.
 */
export async function matchSockets(a: TestSocket, b: TestSocket): Promise<string> {
  for (let attempt = 1; attempt <= 4; attempt += 1) {
    let round: RoundFrame | null = null;
    await expect
      .poll(
        async () => {
          const [ra, rb] = await Promise.all([currentRound(a), currentRound(b)]);
          round = ra && rb && ra.round === rb.round && ra.remaining >= 5 ? ra : null;
          return round !== null;
        },
        { timeout: 40_000, intervals: [250] },
      )
      .toBe(true);
    const chosen = round as RoundFrame | null;
    const word = chosen?.words[0]?.word;
    if (!chosen || !word) throw new Error('a round without words');
    const [skipA, skipB] = [(await a.frames()).length, (await b.frames()).length];
    await a.send('join_match', { word, round: chosen.round });
    await b.send('join_match', { word, round: chosen.round });
    try {
      const [matchedA] = await Promise.all([a.next('matched', { skip: skipA, timeout: 8_000 }), b.next('matched', { skip: skipB, timeout: 8_000 })]);
      return String(matchedA.data.roomId);
    } catch (error) {
      if (attempt === 4) throw error;
    }
  }
  throw new Error('no match');
}

/** Sends a chat line and waits until the partner has it (masked, if the abuse filter saw something). */
export async function say(from: TestSocket, to: TestSocket, roomId: string, message: string): Promise<void> {
  const skip = (await to.frames()).length;
  const sent = (await from.frames()).length;
  await from.send('chatMessage', { roomId, message });
  try {
    await to.next('chatMessage', { skip });
  } catch (error) {
    // Say what the sender heard instead (an error frame names the refusal).
    throw new Error(`"${message}" did not arrive; the sender heard ${JSON.stringify((await from.frames()).slice(sent))}`, { cause: error });
  }
}

/** The password the browser tests give the operators they make. */
export const OPERATOR_PASSWORD = 'Console-Pass-2026';

/** Logs in at /admin and enrols the authenticator app with the secret the page shows, ending on the dashboard. */
export async function enrolAndLogIn(page: Page, username: string) {
  await page.goto('/admin');
  await page.getByLabel('운영자 아이디').fill(username);
  await page.getByLabel('비밀번호').fill(OPERATOR_PASSWORD);
  await page.getByRole('button', { name: '로그인', exact: true }).click();
  await expect(page).toHaveURL(/\/admin\/totp$/);
  await expect(page.getByRole('heading', { name: '인증 앱 등록' })).toBeVisible();
  await expect(page.getByRole('img', { name: '인증 앱 등록용 QR 코드' })).toBeVisible();
  const shown = (await page.getByTestId('totp-secret').textContent()) ?? '';
  expect(shown).toMatch(/^([A-Z2-7]{4} )+[A-Z2-7]{1,4}$/);
  const code = page.getByLabel('인증 코드');
  await expect(code).toHaveAttribute('autocomplete', 'one-time-code');
  await code.fill(totpCode(shown));
  await page.getByRole('button', { name: '확인', exact: true }).click();
  await expect(page).toHaveURL(/\/admin\/dashboard$/);
}

/** A notification the app's worker shows, as the page reads it back. */
export interface ShownNotification {
  title: string;
  body: string;
  tag: string;
  icon: string;
  lang: string;
  data: unknown;
}

/**
 * The app's service worker reached as a browser's push service would reach it: headless
 * Chromium has none, so its DevTools protocol hands the worker the (decrypted) push.
 * `pushUntilShown` pushes, waits a moment and answers what is shown: the protocol now and
 * then loses a push to a worker it is just starting, and pushing again is harmless, since
 * every push of the same tag replaces the last. Call it inside `expect.poll`.
 */
export async function workerPushes(context: BrowserContext, page: Page) {
  const origin = new URL(page.url()).origin;
  const cdp = await context.newCDPSession(page);
  let registrationId: string | undefined;
  cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
    registrationId = registrations.find((r) => !r.isDeleted && r.scopeURL === `${origin}/`)?.registrationId ?? registrationId;
  });
  await cdp.send('ServiceWorker.enable');
  // Pushes reach an activated worker only; `ready` may resolve while it is still activating.
  await page.evaluate(async () => {
    const worker = (await navigator.serviceWorker.ready).active;
    if (!worker || worker.state === 'activated') return;
    await new Promise<void>((resolve) => {
      worker.addEventListener('statechange', () => {
        if (worker.state === 'activated') resolve();
      });
    });
  });
  await expect.poll(() => registrationId).toBeDefined();
  const notifications = (): Promise<ShownNotification[]> =>
    page.evaluate(async () => {
      const registration = await navigator.serviceWorker.ready;
      return (await registration.getNotifications()).map(({ title, body, tag, icon, lang, data }) => ({ title, body, tag, icon, lang, data: data as unknown }));
    });
  const pushUntilShown = async (data: string) => {
    await cdp.send('ServiceWorker.deliverPushMessage', { origin, registrationId: registrationId ?? '', data });
    await page.waitForTimeout(200);
    return notifications();
  };
  return { pushUntilShown };
}

/** What readies the two members' browsers before /main opens (a socket's relay, a stub). */
export interface ChatSetUp {
  /** The first member's browser, before any page of it opens. */
  prepareA?: (context: BrowserContext) => Promise<void>;
  /** Both pages, before they open /main. */
  preparePages?: (a: Page, b: Page) => Promise<void>;
}

/**
 * Two members, each in a browser of their own, signed up (with nicknames) through the API,
 * matched on one word and both on /chatpage with the composer ready. The one set-up of a
 * two-browser chat; `close` ends both browsers.
 */
export async function twoInChat(browser: Browser, options: BrowserContextOptions, prefix: string, setUp: ChatSetUp = {}) {
  const [contextA, contextB] = await Promise.all([browser.newContext(options), browser.newContext(options)]);
  await setUp.prepareA?.(contextA);
  const suffix = Math.floor(Math.random() * 1_000_000);
  const alice = { username: uniqueUsername(`${prefix}a`), phone: uniquePhone(), password: 'abcdefg1', nickname: `하늘${suffix}` };
  const bob = { username: uniqueUsername(`${prefix}b`), phone: uniquePhone(), password: 'abcdefg1', nickname: `바다${suffix}` };
  await Promise.all([signUpByApi(contextA, alice), signUpByApi(contextB, bob)]);
  const [a, b] = await Promise.all([contextA.newPage(), contextB.newPage()]);
  await setUp.preparePages?.(a, b);
  await Promise.all([a.goto('/main'), b.goto('/main')]);
  const word = await pickTogether(a, b);
  await expect(a.getByRole('textbox', { name: '메시지' })).toBeEnabled();
  await expect(b.getByRole('textbox', { name: '메시지' })).toBeEnabled();
  return { contextA, contextB, a, b, alice, bob, word, close: () => Promise.all([contextA.close(), contextB.close()]) };
}
