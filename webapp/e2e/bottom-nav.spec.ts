import { expect, test, type Page } from '@playwright/test';
import { signUpByApi, uniquePhone, uniqueUsername } from './helpers';

/** /api/app-config as the server answers it, with the community gallery the operator named, or none. */
async function withCommunity(page: Page, community: string | null) {
  await page.route('**/api/app-config', async (route) => {
    const response = await route.fetch();
    const config = (await response.json()) as { links?: Record<string, string> };
    const links = { ...config.links };
    if (community) links.community = community;
    else delete links.community;
    await route.fulfill({ response, json: { ...config, links } });
  });
}

for (const community of [null, 'https://gall.example.kr/telepathy']) {
  const count = community ? 4 : 3;
  test(`the phone's bottom bar shares its width evenly among its ${String(count)} items`, async ({ page, context }, testInfo) => {
    test.skip(testInfo.project.name !== 'mobile', 'from 1024 px the bar is a rail of one item a line');
    await signUpByApi(context, { username: uniqueUsername('nav'), phone: uniquePhone(), password: 'abcdefg1', nickname: `바닥${String(count)}${String(Math.floor(Math.random() * 1_000_000))}` });
    await withCommunity(page, community);
    await page.goto('/main');
    const nav = page.getByRole('navigation', { name: '주요 메뉴' });
    await expect(nav.getByRole('link')).toHaveCount(count);

    const bar = await nav.evaluate((element) => {
      const rect = element.getBoundingClientRect();
      const style = getComputedStyle(element);
      return { left: rect.left + parseFloat(style.paddingLeft), right: rect.right - parseFloat(style.paddingRight) };
    });
    const items = await nav.getByRole('link').evaluateAll((links) => links.map((link) => link.getBoundingClientRect()).map(({ left, right, width }) => ({ left, right, width })));
    const width = (bar.right - bar.left) / count;
    items.forEach((item, index) => {
      expect(item.width).toBeCloseTo(width, 0);
      expect(item.left).toBeCloseTo(bar.left + index * width, 0);
    });
    expect(items.at(-1)?.right).toBeCloseTo(bar.right, 0);
  });
}
