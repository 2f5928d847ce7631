import fs from 'node:fs';
import { expect, test, type Browser, type Page } from '@playwright/test';
import { startCluster } from './cluster';
import { pickTogether, signUpByApi, uniquePhone, uniqueUsername } from './helpers';

const port = Number(process.env.E2E_PORT ?? 18080);

async function member(browser: Browser, baseURL: string, prefix: string): Promise<{ page: Page; nickname: string }> {
  const context = await browser.newContext({ baseURL, locale: 'ko-KR', timezoneId: 'Asia/Seoul', viewport: { width: 390, height: 844 } });
  const nickname = `${prefix}${String(Math.floor(Math.random() * 10000))}`;
  await signUpByApi(context, { username: uniqueUsername(prefix), phone: uniquePhone(), password: 'abcdefg1', nickname });
  const page = await context.newPage();
  await page.goto('/main');
  await expect(page.getByRole('button', { name: /확성기 \d+개 보유/ })).toBeVisible();
  return { page, nickname };
}

/** Both sockets are open once each page counts two or more online. */
async function bothOnline(pages: Page[]) {
  for (const page of pages) await expect(page.getByText(/지금 \d+명 접속 중/)).toBeVisible();
}

/** Opens the megaphone modal, past the one-time introduction when it shows. */
async function openMegaphone(page: Page, owned: number) {
  await page.getByRole('button', { name: `확성기 ${String(owned)}개 보유` }).click();
  const intro = page.getByRole('dialog', { name: '확성기를 소개할게요' });
  if (await intro.isVisible()) await intro.getByRole('button', { name: '알겠어요' }).click();
}

test('a pack bought in the demo checkout shows on /main and My page; a megaphone reaches the others for 5 s', async ({ page, browser, baseURL }) => {
  test.setTimeout(90_000);
  const listener = await member(browser, baseURL ?? '', 'mgl');
  const nickname = `확성${String(Math.floor(Math.random() * 10000))}`;
  await signUpByApi(page.context(), { username: uniqueUsername('mgs'), phone: uniquePhone(), password: 'abcdefg1', nickname });
  await page.goto('/main');
  await bothOnline([page, listener.page]);

  await page.getByRole('button', { name: '확성기 0개 보유' }).click();
  const intro = page.getByRole('dialog', { name: '확성기를 소개할게요' });
  await expect(intro).toContainText('5초 동안');
  await intro.getByRole('button', { name: '알겠어요' }).click();

  // No megaphones: the packs of the spec, each with its price.
  const shop = page.getByRole('dialog', { name: '확성기 구매' });
  await expect(shop.getByRole('listitem')).toHaveText([/확성기 1개\s*500원/, /확성기 5개.*2,000원/, /확성기 10개.*3,500원/]);
  await shop.getByRole('listitem').filter({ hasText: '확성기 5개' }).getByRole('button', { name: '구매하기' }).click();
  const checkout = page.getByRole('alertdialog', { name: '데모 결제' });
  await expect(checkout).toContainText('확성기 5개를 2,000원에 구매해요');
  await checkout.getByRole('button', { name: '결제하기' }).click();
  await expect(page.getByText('확성기가 지급되었어요. 지금 5개 있어요.')).toBeVisible();

  // The count everywhere: the modal, the button on /main, My page.
  const modal = page.getByRole('dialog', { name: '확성기', exact: true });
  await expect(modal).toContainText('보유한 확성기 5개');
  await modal.getByRole('button', { name: '닫기' }).click();
  await expect(page.getByRole('button', { name: '확성기 5개 보유' })).toBeVisible();
  await page.getByRole('link', { name: '마이페이지' }).click();
  await expect(page.getByText('보유 확성기').locator('..')).toContainText('5개');

  // A megaphone: blank is refused in the page; a message goes to everyone online.
  await page.getByRole('link', { name: '메인' }).click();
  await openMegaphone(page, 5);
  const compose = page.getByRole('dialog', { name: '확성기', exact: true });
  await compose.getByRole('button', { name: '확성기 보내기' }).click();
  await expect(page.getByText('메시지를 입력해주세요.')).toBeVisible();
  await compose.getByLabel('모두에게 외칠 한마디').fill('  오늘 밤 다들 반가워요  ');
  await expect(compose.getByText('12/20')).toBeVisible();
  await compose.getByRole('button', { name: '확성기 보내기' }).click();
  await expect(page.getByText('확성기를 보냈어요.')).toBeVisible();
  await expect(compose).toBeHidden();

  const banner = listener.page.getByRole('status').filter({ hasText: '오늘 밤 다들 반가워요' });
  await expect(banner).toContainText(`${nickname}님의 확성기`);
  await expect(page.getByRole('button', { name: '확성기 4개 보유' })).toBeVisible();
  // Shown for 5 s, then gone.
  await expect(banner).toBeHidden({ timeout: 8_000 });

  // Too long: the counter turns red and the field says why; nothing goes out or is spent
  // (the server refuses it too).
  await openMegaphone(page, 4);
  await compose.getByLabel('모두에게 외칠 한마디').fill('가'.repeat(21));
  await expect(compose.getByText('21/20')).toHaveAttribute('data-over', 'true');
  await expect(compose.getByText('확성기 메시지는 20자 이내로 입력해주세요.')).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('megaphone-too-long.png') });
  await compose.getByRole('button', { name: '확성기 보내기' }).click();
  await expect(compose).toBeVisible();
  await expect(page.getByRole('button', { name: '확성기 4개 보유' })).toBeAttached();
  await listener.page.context().close();
});

test('a megaphone sent on one node of a cluster reaches a user on the other', async ({ browser }) => {
  test.skip(test.info().project.name !== 'desktop', 'runs once, on the desktop project');
  test.setTimeout(120_000);
  const cluster = await startCluster([port + 21, port + 22]);
  try {
    const [nodeA, nodeB] = cluster.nodes as [string, string];
    const sender = await member(browser, nodeA, 'mca');
    const listener = await member(browser, nodeB, 'mcb');
    await bothOnline([sender.page, listener.page]);
    await openMegaphone(sender.page, 0);
    const shop = sender.page.getByRole('dialog', { name: '확성기 구매' });
    await shop.getByRole('listitem').filter({ hasText: '확성기 1개' }).getByRole('button', { name: '구매하기' }).click();
    await sender.page.getByRole('alertdialog', { name: '데모 결제' }).getByRole('button', { name: '결제하기' }).click();
    const compose = sender.page.getByRole('dialog', { name: '확성기', exact: true });
    await compose.getByLabel('모두에게 외칠 한마디').fill('다른 노드까지 들리나요');
    await compose.getByRole('button', { name: '확성기 보내기' }).click();
    await expect(listener.page.getByRole('status').filter({ hasText: '다른 노드까지 들리나요' })).toContainText(
      `${sender.nickname}님의 확성기`,
    );
    await expect(sender.page.getByRole('button', { name: '확성기 0개 보유' })).toBeVisible();
  } finally {
    cluster.stop();
  }
});

test('a megaphone reaches every page: a chat, My page, and a page opened during its turn', async ({ browser, baseURL }) => {
  test.setTimeout(120_000);
  const origin = baseURL ?? '';
  const [sender, a, b, reader] = await Promise.all([
    member(browser, origin, 'kite'),
    member(browser, origin, 'moon'),
    member(browser, origin, 'star'),
    member(browser, origin, 'rain'),
  ]);
  await reader.page.goto('/mypage');
  await pickTogether(a.page, b.page);

  // One megaphone, bought through the demo checkout's calls.
  const request = sender.page.context().request;
  const order = (await (await request.post('/api/payments/prepare', { data: { item: 'megaphone_1' } })).json()) as { merchantUid: string };
  const paid = (await (await request.post('/api/payments/demo-pay', { data: { merchantUid: order.merchantUid } })).json()) as { impUid: string };
  const verified = await request.post('/api/payments/verify', {
    data: { imp_uid: paid.impUid, merchant_uid: order.merchantUid, item: 'megaphone_1' },
  });
  expect(verified.ok()).toBe(true);
  await expect(sender.page.getByRole('button', { name: '확성기 1개 보유' })).toBeVisible();

  await openMegaphone(sender.page, 1);
  const compose = sender.page.getByRole('dialog', { name: '확성기', exact: true });
  await compose.getByLabel('모두에게 외칠 한마디').fill('모두 좋은 밤 보내요');
  await compose.getByRole('button', { name: '확성기 보내기' }).click();
  // A page opened during its 5 s sees it for the rest of its turn.
  const late = await reader.page.context().newPage();
  await late.goto('/mypage');

  const banner = (page: Page) => page.getByRole('status').filter({ hasText: '모두 좋은 밤 보내요' });
  await expect(banner(a.page)).toContainText(`${sender.nickname}님의 확성기`);
  // At the top of the screen, over the chat, under its header (clear of 신고 and 나가기),
  // measured at once, while its 5 s last.
  const box = await a.page.locator('.megaphone-banner').boundingBox();
  const header = await a.page.locator('.chat-header').boundingBox();
  expect(box?.y ?? 1000).toBeGreaterThanOrEqual((header?.y ?? 0) + (header?.height ?? 0));
  expect(box?.y ?? 1000).toBeLessThan(160);
  for (const page of [b.page, reader.page, late]) {
    await expect(banner(page)).toContainText(`${sender.nickname}님의 확성기`);
  }
  await a.page.screenshot({ path: test.info().outputPath('megaphone-on-chat-390.png') });
  await a.page.setViewportSize({ width: 1280, height: 800 });
  await a.page.screenshot({ path: test.info().outputPath('megaphone-on-chat-1280.png') });
  for (const each of [sender, a, b, reader]) await each.page.context().close();
});

test('a phone number in a megaphone is refused as a contact, under the field, and nothing is spent', async ({ page }) => {
  await signUpByApi(page.context(), { username: uniqueUsername('mgc'), phone: uniquePhone(), password: 'abcdefg1', nickname: `연락${String(Math.floor(Math.random() * 10000))}` });
  const request = page.context().request;
  const order = (await (await request.post('/api/payments/prepare', { data: { item: 'megaphone_1' } })).json()) as { merchantUid: string };
  const paid = (await (await request.post('/api/payments/demo-pay', { data: { merchantUid: order.merchantUid } })).json()) as { impUid: string };
  const verified = await request.post('/api/payments/verify', { data: { imp_uid: paid.impUid, merchant_uid: order.merchantUid, item: 'megaphone_1' } });
  expect(verified.ok()).toBe(true);
  await page.goto('/main');
  await openMegaphone(page, 1);

  const compose = page.getByRole('dialog', { name: '확성기', exact: true });
  const field = compose.getByLabel('모두에게 외칠 한마디');
  await field.fill('010-1234-5678 연락줘');
  await compose.getByRole('button', { name: '확성기 보내기' }).click();
  const refusal = '확성기에는 전화번호 같은 연락처나 링크를 담을 수 없어요.';
  await expect(field).toHaveAccessibleDescription(refusal);
  await expect(compose.getByText(refusal)).toBeVisible();
  await expect(page.getByText('부적절한 표현이 포함되어 있어요', { exact: false })).toHaveCount(0);
  fs.mkdirSync('/tmp/shots-web', { recursive: true });
  await page.screenshot({ path: `/tmp/shots-web/megaphone-contact-${test.info().project.name}.png` });
  await expect(page.getByRole('button', { name: '확성기 1개 보유' })).toBeAttached();

  // Changed, it goes out.
  await field.fill('다들 좋은 밤 보내요');
  await expect(compose.getByText(refusal)).toHaveCount(0);
  await compose.getByRole('button', { name: '확성기 보내기' }).click();
  await expect(page.getByText('확성기를 보냈어요.')).toBeVisible();
});
