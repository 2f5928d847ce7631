import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';

/**
 * Every page of the app, checked by axe against WCAG 2.2 AA (the A and AA rules of 2.0, 2.1 and
 * 2.2) and the best-practice rule that all content sits in a landmark, at both widths.
 */
export async function expectAccessible(page: Page, name: string) {
  // Fonts in and entrance animations over, so colours are read as they end up.
  await page.evaluate(() => document.fonts.ready);
  await page.waitForTimeout(400);
  // Not across a round's change on /main: its words fade out and in (half a second), and axe
  // would read the colours of words half faded. With 5 s left the analysis ends first.
  await page.waitForFunction(
    () => {
      if (document.querySelector('[data-fading]')) return false;
      // Closed: the words wait under the overlay, whatever their round's timer says.
      if (document.querySelector('.closed-overlay')) return true;
      const value = document.querySelector('.round-timer__value');
      const left = value ? Number.parseInt(value.textContent, 10) : Number.NaN;
      return Number.isNaN(left) || (left >= 5 && left <= 27);
    },
    undefined,
    { timeout: 15_000 },
  );
  // `options` first: it replaces what `withTags` sets.
  const results = await new AxeBuilder({ page })
    .options({ rules: { region: { enabled: true } } })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'])
    .analyze();
  const found = results.violations.map(({ id, nodes }) => `${id}: ${nodes.map((node) => node.target.join(' ')).join(' | ')}`);
  // Soft: one run lists what every page of the test breaks.
  expect.soft(found, `${name} (${page.url()})`).toEqual([]);
}
