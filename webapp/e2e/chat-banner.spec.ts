import fs from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { expectAccessible } from './accessibility';
import { signUpByApi, uniquePhone, uniqueUsername } from './helpers';

const shots = '/tmp/shots-web';
/** The longest nickname there is: 20 letters. */
const LONGEST = '가나다라마바사아자차카타파하가나다라마바';

/** The line (its top, in px) each character of `text` in the banner's sentence sits on. */
function linesOf(page: Page, text: string) {
  return page.locator('.chat-banner__text').evaluate((element, wanted) => {
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    let full = '';
    const nodes: { node: Text; start: number }[] = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      nodes.push({ node: node as Text, start: full.length });
      full += node.textContent ?? '';
    }
    const at = full.indexOf(wanted);
    if (at < 0) return null;
    return Array.from({ length: wanted.length }, (_, i) => {
      const index = at + i;
      const owner = [...nodes].reverse().find((entry) => entry.start <= index);
      if (!owner) return null;
      const range = document.createRange();
      range.setStart(owner.node, index - owner.start);
      range.setEnd(owner.node, index - owner.start + 1);
      return Math.round(range.getBoundingClientRect().top);
    });
  }, text);
}

test('a 20-letter nickname keeps 님과 together in the chat’s banner', async ({ page, context }) => {
  await signUpByApi(context, { username: uniqueUsername('ban'), phone: uniquePhone(), password: 'abcdefg1', nickname: `배너${String(Math.floor(Math.random() * 100_000))}` });
  // A chat as the tab keeps it; the banner is drawn from it while the server is asked about it.
  await page.addInitScript((nickname) => {
    localStorage.setItem(
      'chatInfo',
      JSON.stringify({ myId: 1, myUsername: 'me', myNickname: '나', partnerId: 2, partnerUsername: 'you', partnerNickname: nickname, word: '바다', round: 1, roomId: 'f'.repeat(32), startTime: Date.now(), question: '', questionDraw: 0, again: false }),
    );
  }, LONGEST);
  await page.goto('/chatpage');
  await expect(page.locator('.chat-banner__text')).toHaveText(`${LONGEST}님과 같은 단어 ‘바다’를 떠올렸어요`);
  const lines = await linesOf(page, '바님과');
  expect(lines).not.toBeNull();
  // The nickname's last letter, 님 and 과 on one line.
  expect(new Set(lines).size).toBe(1);
  await expectAccessible(page, '/chatpage with the longest nickname');
  fs.mkdirSync(shots, { recursive: true });
  // The server knows no such room and says the chat is over: its notice is taken off for the picture.
  await page.evaluate(() => {
    document.querySelectorAll('.modal-backdrop').forEach((backdrop) => {
      backdrop.remove();
    });
  });
  await page.locator('.chat-banner').screenshot({ path: `${shots}/chat-banner-longest-${test.info().project.name}.png` });
});
