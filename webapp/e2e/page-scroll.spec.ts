import { expect, test, type Page } from '@playwright/test';
import { expectAccessible } from './accessibility';
import { signUpByApi, uniquePhone, uniqueUsername } from './helpers';

/** How far the page is scrolled. */
const scrolled = (page: Page) => page.evaluate(() => window.scrollY);

/**
 * A new page starts at its top, whatever the page before was scrolled to; the browser's back
 * and forward bring the page back where it was left.
 */
test('every route change starts at the top, and back keeps its place', async ({ page, context, viewport }, testInfo) => {
  // A short screen, so that my page scrolls at either width.
  await page.setViewportSize({ width: viewport?.width ?? 390, height: 560 });
  await signUpByApi(context, { username: uniqueUsername('scr'), phone: uniquePhone(), password: 'abcdefg1', nickname: `스크롤${String(Math.floor(Math.random() * 1_000_000))}` });
  await page.goto('/mypage');
  await expect(page.getByRole('button', { name: '로그아웃' })).toBeVisible();
  // Scrolled down as far as the page goes (a phone's page is taller than its screen).
  await page.evaluate(() => {
    window.scrollTo(0, document.documentElement.scrollHeight);
  });
  const down = await scrolled(page);
  expect(down).toBeGreaterThan(100);

  // 자주 묻는 질문 (no FAQ of the operator's here) opens the help page at its top, title first.
  await page.getByRole('link', { name: '자주 묻는 질문' }).click();
  await expect(page).toHaveURL(/\/helppage$/);
  await expect(page.getByRole('heading', { level: 1, name: '도움말' })).toBeInViewport();
  expect(await scrolled(page)).toBe(0);
  await page.screenshot({ path: `/tmp/ux-shots/helppage-after-scroll-${testInfo.project.name}.png` });
  await expectAccessible(page, '/helppage opened from a scrolled page');

  // Back: my page down where it was left, not at its top (the router restores the place
  // at once, before the page's cards are read again: a page still shorter than it was keeps
  // as much of it as it can); forward: the help page at its top again.
  await page.goBack();
  await expect(page).toHaveURL(/\/mypage$/);
  await expect.poll(() => scrolled(page)).toBeGreaterThan(100);
  await page.goForward();
  await expect(page).toHaveURL(/\/helppage$/);
  await expect.poll(() => scrolled(page)).toBe(0);

  // So does a page opened from the bottom navigation, after a scrolled one.
  await page.goto('/mypage');
  await page.evaluate(() => {
    window.scrollTo(0, document.documentElement.scrollHeight);
  });
  await page.getByRole('link', { name: '좋아요' }).click();
  await expect(page).toHaveURL(/\/likes$/);
  expect(await scrolled(page)).toBe(0);
});
