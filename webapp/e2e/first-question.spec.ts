import fs from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { expectAccessible } from './accessibility';
import { twoInChat } from './helpers';

/** The room's first question: both members see the same one, and either may draw the next for both. */
const shots = '/tmp/shots-web';

async function screenshot(page: Page, name: string) {
  fs.mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: `${shots}/${name}-${test.info().project.name}.png` });
}

test('both members open on the same question, and 다른 질문 changes it for both', async ({ browser, baseURL, viewport, locale, timezoneId }) => {
  test.setTimeout(90_000);
  const { a, b, close } = await twoInChat(browser, { baseURL, viewport, locale, timezoneId }, 'q');

  const cardA = a.getByRole('region', { name: '첫 질문' });
  const cardB = b.getByRole('region', { name: '첫 질문' });
  await expect(cardA).toContainText('같은 단어에서 시작해 보세요');
  const textA = cardA.locator('.question-card__text');
  const textB = cardB.locator('.question-card__text');
  const first = (await textA.innerText()).trim();
  expect(first).toMatch(/\?$/);
  await expect(textB).toHaveText(first);
  // Above the conversation, and the composer stays clear of it.
  const card = await cardA.boundingBox();
  const composer = await a.locator('.chat-composer').boundingBox();
  expect(card && composer && card.y + card.height <= composer.y).toBe(true);
  await screenshot(a, 'first-question');
  await expectAccessible(a, 'the chat with its first question');

  // Bob draws another, by keyboard: both see the same new one.
  await cardB.getByRole('button', { name: '다른 질문' }).focus();
  await b.keyboard.press('Enter');
  await expect(textB).not.toHaveText(first);
  const second = (await textB.innerText()).trim();
  await expect(textA).toHaveText(second);

  // Alice draws the next one; a reload keeps what was last shown.
  await cardA.getByRole('button', { name: '다른 질문' }).click();
  await expect(textA).not.toHaveText(second);
  const third = (await textA.innerText()).trim();
  await expect(textB).toHaveText(third);
  await b.reload();
  await expect(b.getByRole('region', { name: '첫 질문' }).locator('.question-card__text')).toHaveText(third);

  // Once messages flow, the card keeps to one quiet row, the question whole.
  const input = a.getByRole('textbox', { name: '메시지' });
  for (const text of ['안녕하세요', '저는 좋아해요', '그쪽은요?', 'ㅎㅎ']) {
    await input.fill(text);
    await input.press('Enter');
  }
  await expect(cardA).toHaveClass(/question-card--compact/);
  await expect(textA).toHaveText(third);
  await screenshot(a, 'first-question-compact');
  await expectAccessible(a, 'the chat with its compact first question');

  await close();
});
