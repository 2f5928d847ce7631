import { expect, test } from '@playwright/test';
import { twoInChat } from './helpers';

// A send the server could not complete for now (its shared store stalled) is tried again with
// the same client id, then shown failed with a way to send it again; sent again, it arrives once.
// Words the partner reads masked are explained to the sender; a chat that ended leaves no ghost.
test('a message refused for now is retried, then offered again, and arrives once', async ({ browser, baseURL, viewport, locale, timezoneId }) => {
  test.setTimeout(90_000);
  // Alice's socket goes through a relay that answers her chat messages as a node whose Redis
  // stalls would, while `stalled` holds; every other frame passes.
  let stalled = false;
  const refused: string[] = [];
  const { a, b, close } = await twoInChat(browser, { baseURL, viewport, locale, timezoneId }, 'r', {
    preparePages: async (page) => {
      await page.routeWebSocket('**/ws', (ws) => {
        const server = ws.connectToServer();
        ws.onMessage((message) => {
          const frame = JSON.parse(String(message)) as { event: string; data: { clientId?: string } };
          if (stalled && frame.event === 'chatMessage') {
            refused.push(frame.data.clientId ?? '');
            ws.send(JSON.stringify({ event: 'error', data: { event: 'chatMessage', code: 'UNAVAILABLE', message: '잠시 후 다시 시도해주세요.' } }));
            return;
          }
          server.send(message);
        });
      });
    },
  });
  await expect(a.getByRole('textbox', { name: '메시지' })).toBeVisible();

  stalled = true;
  const input = a.getByRole('textbox', { name: '메시지' });
  await input.fill('지금 보내는 말');
  await input.press('Enter');
  const bubble = a.getByRole('log').locator('li', { hasText: '지금 보내는 말' });
  await expect(bubble).toHaveAttribute('data-status', 'pending');
  // Three tries more, 2, 4 and 6 s apart, all under the first client id; then it shows failed.
  await expect(bubble).toHaveAttribute('data-status', 'failed', { timeout: 20_000 });
  expect(refused).toHaveLength(4);
  expect(new Set(refused).size).toBe(1);
  const again = bubble.getByRole('button', { name: '다시 보내기' });
  await expect(again).toBeVisible();
  await a.screenshot({ path: test.info().outputPath('failed-message.png') });

  stalled = false;
  await again.click();
  await expect(bubble).toHaveAttribute('data-status', 'sent');
  await expect(b.getByRole('log').getByText('지금 보내는 말')).toHaveCount(1);
  await expect(a.getByRole('log').getByText('지금 보내는 말')).toHaveCount(1);

  // Words the partner reads masked: the sender is told why, once.
  await input.fill('제 번호는 010-1234-5678 이에요');
  await input.press('Enter');
  await expect(b.getByRole('log')).toContainText('제 번호는 ');
  await expect(b.getByRole('log')).not.toContainText('5678');
  await expect(a.getByText('메시지의 일부가 *로 가려졌어요.', { exact: false })).toBeVisible();
  await a.screenshot({ path: test.info().outputPath('masked-notice.png') });

  // Alice leaves; Bob closes his tab on the ended chat and opens My page later: no ghost of
  // the chat is offered there, whatever local storage still held.
  await a.getByRole('button', { name: '나가기' }).first().click();
  await a.getByRole('alertdialog', { name: '대화방을 나갈까요?' }).getByRole('button', { name: '나가기' }).click();
  await expect(b.getByRole('alertdialog', { name: '대화가 종료되었어요' })).toBeVisible();
  await b.goto('/mypage');
  await expect(b.getByText('마이페이지').first()).toBeVisible();
  await expect.poll(() => b.evaluate(() => localStorage.getItem('chatInfo'))).toBeNull();
  await expect(b.getByRole('link', { name: '대화로 돌아가기' })).toHaveCount(0);
  await close();
});
