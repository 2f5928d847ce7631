import fs from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { expectAccessible } from './accessibility';
import { twoInChat } from './helpers';

const shots = '/tmp/shots-web';

/** The page as the browser reports it when its tab is in the background, or back in front. */
async function setVisibility(page: Page, state: 'hidden' | 'visible') {
  await page.evaluate((now) => {
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => now });
    document.dispatchEvent(new Event('visibilitychange'));
  }, state);
}

function row(page: Page, text: string) {
  return page.getByRole('log').locator('.bubble-row', { hasText: text });
}

async function send(page: Page, text: string) {
  const input = page.getByRole('textbox', { name: '메시지' });
  await input.fill(text);
  await input.press('Enter');
}

test('a message shows 1 until the partner has seen it, and a reload keeps what was read', async ({ browser, baseURL, viewport, locale, timezoneId }) => {
  test.setTimeout(120_000);
  const { a, b, close } = await twoInChat(browser, { baseURL, viewport, locale, timezoneId }, 'rm');

  // The partner's tab is in the background: the message reaches it, unread.
  await setVisibility(b, 'hidden');
  await send(a, '안녕하세요');
  await expect(row(a, '안녕하세요').locator('.bubble-row__unread')).toHaveText('1안 읽음');
  await expect(row(b, '안녕하세요')).toBeVisible();
  // A mark sent before this message would have come before it: none did.
  await send(b, '저도 반가워요');
  await expect(row(a, '저도 반가워요')).toBeVisible();
  await expect(row(a, '안녕하세요').locator('.bubble-row__unread')).toHaveCount(1);
  // The partner's own message shows 1 until this side, in front, has seen it: at once.
  await expect(row(b, '저도 반가워요').locator('.bubble-row__unread')).toHaveCount(0);

  // Back in front, the partner reads it.
  await setVisibility(b, 'visible');
  await expect(row(a, '안녕하세요').locator('.bubble-row__unread')).toHaveCount(0);
  await send(a, '바다 좋아해요?');
  await expect(row(b, '바다 좋아해요?')).toBeVisible();
  await expect(row(a, '바다 좋아해요?').locator('.bubble-row__unread')).toHaveCount(0);

  fs.mkdirSync(shots, { recursive: true });
  await setVisibility(b, 'hidden');
  await send(a, '저는 여름 바다요');
  await expect(row(a, '저는 여름 바다요').locator('.bubble-row__unread')).toHaveCount(1);
  await a.screenshot({ path: `${shots}/read-marks-${test.info().project.name}.png` });
  await expectAccessible(a, '/chatpage with an unread message');

  // A reload forgets nothing read: the page asks the partner's page for its mark.
  await a.reload();
  await expect(row(a, '바다 좋아해요?').locator('.bubble-row__unread')).toHaveCount(0);
  await expect(row(a, '안녕하세요').locator('.bubble-row__unread')).toHaveCount(0);
  await expect(row(a, '저는 여름 바다요').locator('.bubble-row__unread')).toHaveCount(1);
  // Read while this side reloads: told when the partner's page shows it again.
  await setVisibility(b, 'visible');
  await expect(row(a, '저는 여름 바다요').locator('.bubble-row__unread')).toHaveCount(0);
  await close();
});
