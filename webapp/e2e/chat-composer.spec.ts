import { expect, test, type Locator, type Page } from '@playwright/test';
import { expectAccessible } from './accessibility';
import { twoInChat } from './helpers';

/** A key press as an IME sends it while a syllable is being composed: flagged, or (older Safari) key code 229. */
function pressEnterComposing(input: Locator, flag: 'isComposing' | 'keyCode229') {
  return input.evaluate((element, how) => {
    const event = new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true, isComposing: how === 'isComposing' });
    if (how === 'keyCode229') Object.defineProperty(event, 'keyCode', { value: 229 });
    element.dispatchEvent(event);
  }, flag);
}

async function box(locator: Locator) {
  const found = await locator.boundingBox();
  if (!found) throw new Error(`${locator.toString()} is not on screen`);
  return found;
}

type Box = Awaited<ReturnType<typeof box>>;

function overlaps(one: Box, other: Box): boolean {
  return one.x < other.x + other.width && other.x < one.x + one.width && one.y < other.y + other.height && other.y < one.y + one.height;
}

function inside(inner: Box, outer: Box): boolean {
  return inner.x >= outer.x && inner.y >= outer.y && inner.x + inner.width <= outer.x + outer.width && inner.y + inner.height <= outer.y + outer.height;
}

function bubble(page: Page, text: string) {
  return page.getByRole('log').locator('.bubble', { hasText: text });
}

test('Shift+Enter breaks the line, Enter sends, and an IME composition keeps its Enter', async ({ browser, baseURL, viewport, locale, timezoneId }) => {
  test.setTimeout(90_000);
  const { a, b, close } = await twoInChat(browser, { baseURL, viewport, locale, timezoneId }, 'ml');
  const input = a.getByRole('textbox', { name: '메시지' });

  await input.pressSequentially('첫 줄이에요');
  await input.press('Shift+Enter');
  await input.pressSequentially('둘째 줄이에요');
  await expect(input).toHaveValue('첫 줄이에요\n둘째 줄이에요');
  // The field grew to show both lines.
  expect((await box(input)).height).toBeGreaterThan(60);

  // An Enter that only ends a Korean syllable's composition sends nothing.
  await pressEnterComposing(input, 'isComposing');
  await pressEnterComposing(input, 'keyCode229');
  await a.waitForTimeout(300);
  await expect(input).toHaveValue('첫 줄이에요\n둘째 줄이에요');
  await expect(a.getByRole('log').locator('.bubble')).toHaveCount(0);

  await input.press('Enter');
  await expect(input).toHaveValue('');
  // The partner reads it on two lines.
  const received = bubble(b, '둘째 줄이에요');
  await expect(received).toBeVisible();
  // (After the sender's name, which only screen readers hear.)
  expect(await received.evaluate((element) => (element as HTMLElement).innerText)).toMatch(/\n첫 줄이에요\n둘째 줄이에요$/);
  const oneLine = bubble(b, '첫 줄이에요');
  await expect(oneLine).toHaveCount(1);
  const lineHeight = await received.evaluate((element) => parseFloat(getComputedStyle(element).lineHeight));
  const padding = await received.evaluate((element) => parseFloat(getComputedStyle(element).paddingTop) + parseFloat(getComputedStyle(element).paddingBottom));
  expect((await box(received)).height - padding).toBeGreaterThanOrEqual(2 * lineHeight - 1);
  // The sender's field is one line again.
  expect((await box(input)).height).toBeLessThan(56);
  await close();
});

test('a toast leaves the chat header usable and keeps its close button inside', async ({ browser, baseURL, viewport, locale, timezoneId }) => {
  test.setTimeout(90_000);
  const { a, close } = await twoInChat(browser, { baseURL, viewport, locale, timezoneId }, 'tt');
  const input = a.getByRole('textbox', { name: '메시지' });
  // Contact details in a chat's first minutes are masked, and the sender is told so in a toast.
  await input.fill('제 번호는 010-1234-5678 이에요');
  await input.press('Enter');
  const toast = a.locator('[data-sonner-toast]').filter({ hasText: '가려졌어요' });
  await expect(toast).toBeVisible();
  // Past its entrance animation.
  await a.waitForTimeout(450);
  const toastBox = await box(toast);
  for (const button of [a.getByRole('button', { name: '신고하기' }), a.getByRole('button', { name: '나가기' })]) {
    expect(overlaps(toastBox, await box(button)), 'the toast covers a header button').toBe(false);
  }
  const closeButton = toast.getByRole('button', { name: '닫기' });
  const closeBox = await box(closeButton);
  expect(inside(closeBox, toastBox), 'the close button sits inside the toast').toBe(true);
  expect(closeBox.width).toBeGreaterThanOrEqual(24);
  await a.screenshot({ path: test.info().outputPath('toast.png') });
  await closeButton.click();
  await expect(toast).toHaveCount(0);
  await close();
});

test('a long chat scrolls in its message list, under a header and above a composer that stay', async ({ browser, baseURL, viewport, locale, timezoneId }, testInfo) => {
  test.setTimeout(90_000);
  const { a, close } = await twoInChat(browser, { baseURL, viewport, locale, timezoneId }, 'sc');
  const input = a.getByRole('textbox', { name: '메시지' });
  for (let index = 1; index <= 6; index += 1) {
    await input.fill([`${index}번째 이야기의 첫 줄`, '둘째 줄', '셋째 줄', '넷째 줄', `${index}번째 이야기 끝`].join('\n'));
    await input.press('Enter');
    await expect(bubble(a, `${index}번째 이야기 끝`)).toBeVisible();
  }
  const last = bubble(a, '6번째 이야기 끝');
  const height = await a.evaluate(() => window.innerHeight);
  await expect
    .poll(async () => {
      const lastBox = await box(last);
      return lastBox.y + lastBox.height <= height;
    })
    .toBe(true);

  const header = await box(a.locator('.chat-header'));
  const composer = await box(a.locator('.chat-composer'));
  expect(header.y, 'the header is in view').toBeGreaterThanOrEqual(0);
  expect(composer.y + composer.height, 'the composer is in view').toBeLessThanOrEqual(height + 1);
  const lastBox = await box(last);
  expect(lastBox.y, 'the newest message is below the header').toBeGreaterThanOrEqual(header.y + header.height);
  expect(lastBox.y + lastBox.height, 'the newest message is above the composer').toBeLessThanOrEqual(composer.y);

  if (testInfo.project.name === 'desktop') {
    // Only the message list scrolls: the page itself does not.
    const page = await a.evaluate(() => ({ scroll: document.documentElement.scrollHeight, view: window.innerHeight }));
    expect(page.scroll).toBeLessThanOrEqual(page.view);
    const list = await a.locator('.chat-body').evaluate((element) => ({ scroll: element.scrollHeight, view: element.clientHeight }));
    expect(list.scroll).toBeGreaterThan(list.view);
  }
  await a.screenshot({ path: test.info().outputPath('long-chat.png') });
  await close();
});

test('a right click on a message copies it, instead of the browser’s menu', async ({ browser, baseURL, viewport, locale, timezoneId }) => {
  test.setTimeout(60_000);
  const { a, b, close } = await twoInChat(browser, { baseURL, viewport, locale, timezoneId }, 'cp');
  await b.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL });
  const input = a.getByRole('textbox', { name: '메시지' });
  await input.fill('내일 7시에 보는 거 맞죠?');
  await input.press('Enter');
  const received = b.getByRole('log').locator('.bubble').filter({ hasText: '내일 7시에 보는 거 맞죠?' });
  await expect(received).toBeVisible();
  await received.click({ button: 'right' });
  await expect(b.getByText('메시지를 복사했어요.')).toBeVisible();
  expect(await b.evaluate(() => navigator.clipboard.readText())).toBe('내일 7시에 보는 거 맞죠?');
  await b.screenshot({ path: `/tmp/shots-web/chat-copied-${test.info().project.name}.png` });
  await expectAccessible(b, 'a chat, a message copied');
  await close();
});
