import fs from 'node:fs';
import { expect, test, type Page, type WebSocketRoute } from '@playwright/test';
import { twoInChat } from './helpers';

const shots = '/tmp/shots-web';

async function screenshot(page: Page, name: string) {
  fs.mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: `${shots}/${name}-${test.info().project.name}.png` });
}

// A phone in a tunnel: the chat stays on screen with a line saying it is offline, a message
// written meanwhile stays marked as sending and goes out once the connection is back, and
// the page is never reloaded (a reload there would ask whether to leave the chat).
test('offline, a chat stays on screen with a quiet line, and what was written goes out on reconnect', async ({ browser, baseURL, viewport, locale, timezoneId }) => {
  test.setTimeout(120_000);
  const { contextA, a, b, close } = await twoInChat(browser, { baseURL, viewport, locale, timezoneId }, 'off');
  await expect(a.getByRole('textbox', { name: '메시지' })).toBeVisible();

  let loads = 0;
  const dialogs: string[] = [];
  a.on('load', () => {
    loads += 1;
  });
  a.on('dialog', (dialog) => {
    dialogs.push(dialog.type());
    void dialog.dismiss();
  });

  await contextA.setOffline(true);
  const line = a.getByRole('status').filter({ hasText: '인터넷에 연결되어 있지 않아요' });
  await expect(line).toBeVisible();
  await expect(line).toContainText('연결되면 보내지 못한 메시지를 이어서 보내요');
  // Nothing covers the chat: no full-screen notice, no reload button; the header still works.
  await expect(a.getByRole('alertdialog')).toHaveCount(0);
  await expect(a.getByRole('button', { name: '다시 시도' })).toHaveCount(0);
  await expect(a.getByRole('heading', { level: 1 })).toBeVisible();
  await expect(a.getByRole('button', { name: '나가기' })).toBeEnabled();

  const input = a.getByRole('textbox', { name: '메시지' });
  await input.fill('터널 안에서 쓴 말');
  await input.press('Enter');
  const bubble = a.getByRole('log').locator('li', { hasText: '터널 안에서 쓴 말' });
  await expect(bubble).toHaveAttribute('data-status', 'pending');
  await expect(bubble).toContainText('전송 중');
  await screenshot(a, 'chat-offline');

  await contextA.setOffline(false);
  await expect(line).toBeHidden();
  await expect(bubble).toHaveAttribute('data-status', 'sent', { timeout: 20_000 });
  await expect(b.getByRole('log').getByText('터널 안에서 쓴 말')).toHaveCount(1);
  await expect(a.getByRole('log').getByText('터널 안에서 쓴 말')).toHaveCount(1);
  expect(loads).toBe(0);
  expect(dialogs).toEqual([]);
  await close();
});

// A megaphone shows for its time at the top of every screen; on a chat it must leave 신고
// and 나가기 to the taps meant for them, and stay readable.
test('a megaphone over a chat leaves 신고 and 나가기 tappable and stays readable', async ({ browser, baseURL, viewport, locale, timezoneId }) => {
  test.setTimeout(120_000);
  // A's socket passes through a relay, which can hand it a megaphone that stays on air for a
  // minute, long enough to tap around it.
  let relay: WebSocketRoute | undefined;
  const { a, close } = await twoInChat(browser, { baseURL, viewport, locale, timezoneId }, 'meg', {
    preparePages: async (page) => {
      await page.routeWebSocket('**/ws', (ws) => {
        ws.connectToServer();
        relay = ws;
      });
    },
  });
  await expect(a.getByRole('textbox', { name: '메시지' })).toBeVisible();

  const message = '오늘 밤 지하철에서 모두 반가워요';
  relay?.send(
    JSON.stringify({ event: 'megaphone', data: { id: 9_000_001, nickname: '확성기손님', message, sentAt: Date.now(), waitMs: 0, showMs: 60_000 } }),
  );
  const banner = a.locator('.megaphone-banner');
  await expect(banner).toContainText(message);
  await expect(banner).toContainText('확성기손님님의 확성기');

  // Nothing of the header lies under the megaphone, and the megaphone is wholly on screen,
  // once it has dropped in (it starts 12 px higher).
  await banner.evaluate((el) => Promise.all(el.getAnimations().map((x) => x.finished)));
  const header = await a.locator('.chat-header').boundingBox();
  const box = await banner.boundingBox();
  expect(header).not.toBeNull();
  expect(box).not.toBeNull();
  if (header && box) {
    expect(box.y).toBeGreaterThanOrEqual(header.y + header.height);
    expect(box.y + box.height).toBeLessThan((viewport?.height ?? 800) / 2);
  }
  await screenshot(a, 'chat-megaphone');

  // Both buttons take their taps while it shows.
  await a.getByRole('button', { name: '신고하기' }).click({ timeout: 3_000 });
  const report = a.getByRole('dialog', { name: /신고/ });
  await expect(report).toBeVisible();
  await report.getByRole('button', { name: '취소' }).click();
  await expect(report).toBeHidden();
  await a.getByRole('button', { name: '나가기' }).click({ timeout: 3_000 });
  const leave = a.getByRole('alertdialog', { name: '대화방을 나갈까요?' });
  await expect(leave).toBeVisible();
  await expect(banner).toBeVisible();
  await leave.getByRole('button', { name: '취소' }).click();
  await expect(leave).toBeHidden();
  await close();
});
