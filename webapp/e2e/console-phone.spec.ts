import { expect, test } from '@playwright/test';
import { addOperator, enrolAndLogIn, OPERATOR_PASSWORD, uniqueUsername } from './helpers';

test('the console login page tells a visitor nothing of how accounts are made on the server', async ({ page }) => {
  await page.goto('/admin');
  await expect(page.getByRole('heading', { name: '운영 콘솔' })).toBeVisible();
  await expect(page.getByText('운영자 계정은 서비스 관리자가 만들어요.')).toBeVisible();
  await expect(page.locator('body')).not.toContainText('telepathy');
  await expect(page.locator('body')).not.toContainText('operator add');
});

test('on a phone the console tabs that do not fit fade out at the edge, and the last one scrolls clear of it', async ({ page }, testInfo) => {
  test.skip(testInfo.project.name !== 'mobile', 'on a desktop every tab fits on the bar');
  const username = uniqueUsername('tabs');
  addOperator(username, OPERATOR_PASSWORD);
  await enrolAndLogIn(page, username);
  const nav = page.getByRole('navigation', { name: '운영 메뉴' });
  const tabs = nav.getByRole('link');
  await expect(tabs.first()).toBeVisible();

  const row = await nav.evaluate((element) => ({
    scrollWidth: element.scrollWidth,
    clientWidth: element.clientWidth,
    mask: getComputedStyle(element).maskImage,
  }));
  expect(row.scrollWidth, 'more tabs than fit').toBeGreaterThan(row.clientWidth);
  expect(row.mask, 'the row fades at its end').toContain('linear-gradient');
  await page.screenshot({ path: test.info().outputPath('console-tabs.png') });

  // Scrolled to its end, the last tab stands clear of the faded strip.
  await nav.evaluate((element) => {
    element.scrollLeft = element.scrollWidth;
  });
  const navBox = await nav.boundingBox();
  const lastBox = await tabs.last().boundingBox();
  if (!navBox || !lastBox) throw new Error('the console tabs are not on screen');
  expect(lastBox.x + lastBox.width).toBeLessThanOrEqual(navBox.x + navBox.width - 32);
  await tabs.last().click();
  await expect(page).toHaveURL(/\/admin\/audit$/);
});
