import fs from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { expectAccessible } from './accessibility';
import { twoInChat } from './helpers';

/**
 * 다시 텔레파시: after a chat both say 다시 만나고 싶어요 (the one who left on the mood
 * question, the one who was left on the chat's end); one sends it from /mywords, the other
 * accepts wherever they are, and both are in a new chat under their word. Said by one
 * only, nothing changes for either, and the other learns nothing.
 */
const shots = '/tmp/shots-web';

async function screenshot(page: Page, name: string) {
  fs.mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: `${shots}/${name}-${test.info().project.name}.png` });
}

/** Alice leaves through the chat's confirmation and meets the mood question on /main. */
async function leave(a: Page) {
  await a.getByRole('button', { name: '나가기' }).click();
  await a.getByRole('alertdialog', { name: '대화방을 나갈까요?' }).getByRole('button', { name: '나가기' }).click();
  await expect(a).toHaveURL(/\/main$/);
  const mood = a.getByRole('dialog', { name: '방금 대화는 어땠나요?' });
  await expect(mood).toBeVisible();
  return mood;
}

const wished = '마음을 남겼어요. 상대도 같은 마음이면 단어 기록에서 다시 만날 수 있어요.';
const paired = (word: string) => new RegExp(`^두 사람 모두 다시 만나고 싶어 했어요\\. 30일 동안 단어 기록에서 ‘${word}’(으로|로) 다시 텔레파시를 보낼 수 있어요\\.$`);

/**
 * Alice leaves and wishes to meet again on the mood question, Bob on the chat's end: the two
 * are a pair. Bob's end-of-chat dialog, still open.
 */
async function bothWish(a: Page, b: Page, word: string) {
  const mood = await leave(a);
  await mood.getByRole('button', { name: '다시 만나고 싶어요' }).click();
  await expect(mood.getByRole('status')).toHaveText(wished);
  await mood.getByRole('button', { name: '다음에 할게요' }).click();
  const ended = b.getByRole('alertdialog', { name: '대화가 종료되었어요' });
  await ended.getByRole('button', { name: '다시 만나고 싶어요' }).click();
  await expect(ended.getByRole('status')).toHaveText(paired(word));
  return ended;
}

test('both wish it: one sends 다시 텔레파시 from /mywords, the other accepts, and both meet again', async ({ browser, baseURL, viewport, locale, timezoneId }) => {
  test.setTimeout(150_000);
  const { contextA, contextB, a, b, alice, word } = await twoInChat(browser, { baseURL, viewport, locale, timezoneId }, 'ag');

  // Alice leaves; beside the mood question she says she would meet again: it is noted, and
  // says nothing of Bob, who has not answered yet.
  const mood = await leave(a);
  const wishA = mood.getByRole('button', { name: '다시 만나고 싶어요' });
  await expect(wishA).toBeVisible();
  await screenshot(a, 'again-wish-button');
  await expectAccessible(a, 'the mood question with 다시 만나고 싶어요');
  await wishA.click();
  await expect(mood.getByRole('status')).toHaveText(wished);
  await expect(mood.getByRole('status')).toBeFocused();
  await screenshot(a, 'again-wish-noted');

  // Bob, who was left, says it on the chat's end: now both did.
  const ended = b.getByRole('alertdialog', { name: '대화가 종료되었어요' });
  await expect(ended).toContainText(`${alice.nickname}님이 대화방을 나갔어요.`);
  await ended.getByRole('button', { name: '다시 만나고 싶어요' }).click();
  await expect(ended.getByRole('status')).toHaveText(paired(word));
  await screenshot(b, 'again-wish-paired');
  await expectAccessible(b, 'the end of a chat, both wished to meet again');
  // The mood question after it shows the same answer rather than asking again.
  await ended.getByRole('button', { name: '나가기' }).click();
  await expect(b).toHaveURL(/\/main$/);
  const moodB = b.getByRole('dialog', { name: '방금 대화는 어땠나요?' });
  await expect(moodB.getByRole('status')).toHaveText(paired(word));
  await expect(moodB.getByRole('button', { name: '다시 만나고 싶어요' })).toHaveCount(0);
  await moodB.getByRole('button', { name: '다음에 할게요' }).click();
  await expect(moodB).toHaveCount(0);

  // Alice's /mywords: the card of that chat offers 다시 텔레파시.
  await mood.getByRole('button', { name: '다음에 할게요' }).click();
  await a.goto('/mywords');
  const send = a.getByRole('button', { name: '다시 텔레파시' });
  await expect(send).toBeEnabled();
  const card = a.getByRole('listitem').filter({ hasText: '다시 만날 수 있어요' });
  await expect(card).toContainText(word);
  await expect(card).toContainText('30일 남음');
  await expect(card.getByRole('button', { name: '그만 만나기' })).toBeVisible();
  await screenshot(a, 'again-pair-card');
  await expectAccessible(a, '/mywords with a pair');

  await send.click();
  await expect(card.getByRole('status')).toContainText('초대를 보냈어요');
  await expect(card.getByRole('timer')).toHaveText(/·\s*\d{1,2}초$/);

  // Bob, on /main, is invited, focus in the dialog; he accepts.
  const invite = b.getByRole('alertdialog', { name: `‘${word}’에서 만났던 사람이 다시 텔레파시를 보냈어요` });
  await expect(invite).toBeVisible();
  expect(await invite.evaluate((dialog) => dialog.contains(document.activeElement))).toBe(true);
  await expect(invite.getByRole('timer')).toHaveText(/^\d{1,2}초 안에 답할 수 있어요$/);
  await screenshot(a, 'again-pair-waiting');
  await screenshot(b, 'again-invitation');
  await expectAccessible(b, 'the invitation to meet again');
  await invite.getByRole('button', { name: '수락하기' }).click();

  // Both are in a new chat under their word, which says they met again.
  await expect(a).toHaveURL(/\/chatpage$/);
  await expect(b).toHaveURL(/\/chatpage$/);
  const again = new RegExp(`^‘${word}’(으로|로) 다시 만났어요$`);
  await expect(a.getByText(again)).toBeVisible();
  await expect(b.getByText(again)).toBeVisible();
  await expect(a.getByRole('heading', { level: 1 })).toHaveText(word);
  const input = a.getByRole('textbox', { name: '메시지' });
  await expect(input).toBeEnabled();
  await input.fill('다시 만나서 반가워요');
  await input.press('Enter');
  await expect(b.locator('.chat-body').getByText('다시 만나서 반가워요')).toBeVisible();
  const reply = b.getByRole('textbox', { name: '메시지' });
  await reply.fill('저도요!');
  await reply.press('Enter');
  await expect(a.locator('.chat-body').getByText('저도요!')).toBeVisible();
  await screenshot(b, 'again-chat');
  await expectAccessible(b, 'a chat opened again');
  // Kept with the chat across a reload.
  await b.reload();
  await expect(b.getByText(again)).toBeVisible();

  // The chat they met again in ends: they are not asked as strangers would be, and a block
  // says it ends the pair too.
  const moodAgain = await leave(a);
  await expect(moodAgain.getByRole('button', { name: '다시 만나고 싶어요' })).toHaveCount(0);
  await expect(moodAgain.getByRole('button', { name: '다음에도 만나고 싶어요' })).toBeVisible();
  await screenshot(a, 'again-met-mood');
  await expectAccessible(a, 'the mood question after a chat the pair met again in');
  await moodAgain.getByRole('button', { name: /님과 다시 만나지 않기$/ }).click();
  const ask = a.getByRole('alertdialog', { name: /님과 다시 만나지 않을까요\?$/ });
  await expect(ask).toContainText('두 사람이 함께 바랐던 다시 텔레파시도 끝나요.');
  await screenshot(a, 'again-met-block-ask');
  await ask.getByRole('button', { name: '취소' }).click();
  await expect(ask).toHaveCount(0);
  await moodAgain.getByRole('button', { name: '다음에 할게요' }).click();

  // Two chats of one word with one partner in one evening: the one they met again in says so,
  // and every card has its time.
  await a.goto('/mywords');
  const cards = a.getByRole('listitem').filter({ hasText: word });
  await expect(cards).toHaveCount(2);
  await expect(cards.filter({ hasText: '다시 만난 대화' })).toHaveCount(1);
  await expect(cards.filter({ hasText: '다시 만날 수 있어요' })).not.toContainText('다시 만난 대화');
  const times = await cards.locator('time').allTextContents();
  for (const time of times) expect(time).toMatch(/^\d{2}\. \d{2}\. \d{2}\. \d{2}:\d{2}$/);
  await expectAccessible(a, '/mywords with a pair and the chat it met again in');
  await screenshot(a, 'again-two-cards');

  await Promise.all([contextA.close(), contextB.close()]);
});

test('a declined invitation tells the sender only that it did not reach them now; either may take the pair back', async ({
  browser,
  baseURL,
  viewport,
  locale,
  timezoneId,
}) => {
  test.setTimeout(120_000);
  const { contextA, contextB, a, b, word } = await twoInChat(browser, { baseURL, viewport, locale, timezoneId }, 'ad');
  const ended = await bothWish(a, b, word);
  await ended.getByRole('button', { name: '나가기' }).click();
  await b.getByRole('dialog', { name: '방금 대화는 어땠나요?' }).getByRole('button', { name: '다음에 할게요' }).click();

  // Alice's page keeps a clock the test can move on, to see her minute run out without
  // waiting for it.
  await a.clock.install();
  await a.goto('/mywords');
  const card = a.getByRole('listitem').filter({ hasText: '다시 만날 수 있어요' });
  await card.getByRole('button', { name: '다시 텔레파시' }).click();
  await expect(card.getByRole('status')).toContainText('초대를 보냈어요');

  // Bob puts it off with Escape: nothing tells Alice, whose minute runs out.
  const invite = b.getByRole('alertdialog', { name: `‘${word}’에서 만났던 사람이 다시 텔레파시를 보냈어요` });
  await expect(invite).toBeVisible();
  await b.keyboard.press('Escape');
  await expect(invite).toHaveCount(0);
  await expect(card).not.toContainText('지금은 닿지 않았어요.');
  await a.clock.fastForward('01:00');
  await expect(card).toContainText('지금은 닿지 않았어요. 다음에 다시 보내 보세요.');
  await expect(card).not.toContainText(/거절|거부/);
  await expect(card.getByRole('button', { name: '다시 텔레파시' })).toBeEnabled();
  await expect(a).toHaveURL(/\/mywords$/);
  await screenshot(a, 'again-pair-lapsed');

  // Bob takes the pair back from his /mywords: neither has it any more.
  await b.goto('/mywords');
  const cardB = b.getByRole('listitem').filter({ hasText: '다시 만날 수 있어요' });
  await cardB.getByRole('button', { name: '그만 만나기' }).click();
  const confirm = b.getByRole('alertdialog', { name: '그만 만날까요?' });
  await expect(confirm).toContainText('이 사람과 다시 텔레파시를 주고받지 않을게요. 되돌릴 수 없어요.');
  await screenshot(b, 'again-pair-stop');
  await expectAccessible(b, 'taking a pair back');
  await confirm.getByRole('button', { name: '그만 만나기' }).click();
  await expect(b.getByRole('button', { name: '다시 텔레파시' })).toHaveCount(0);
  await expect(b.getByRole('listitem').filter({ hasText: word })).toBeVisible();
  await a.reload();
  await expect(a.getByRole('listitem').filter({ hasText: word })).toBeVisible();
  await expect(a.getByRole('button', { name: '다시 텔레파시' })).toHaveCount(0);

  await Promise.all([contextA.close(), contextB.close()]);
});

test('one wishes it alone: neither can send 다시 텔레파시, and the other learns nothing', async ({ browser, baseURL, viewport, locale, timezoneId }) => {
  test.setTimeout(120_000);
  const { contextA, contextB, a, b, word } = await twoInChat(browser, { baseURL, viewport, locale, timezoneId }, 'ao');

  const mood = await leave(a);
  await mood.getByRole('button', { name: '다시 만나고 싶어요' }).click();
  await expect(mood.getByRole('status')).toHaveText(wished);
  await mood.getByRole('button', { name: '다음에 할게요' }).click();

  // Bob leaves his chat's end without saying it.
  const ended = b.getByRole('alertdialog', { name: '대화가 종료되었어요' });
  await expect(ended).toBeVisible();
  await expect(ended).not.toContainText('마음');
  await ended.getByRole('button', { name: '나가기' }).click();
  const moodB = b.getByRole('dialog', { name: '방금 대화는 어땠나요?' });
  await expect(moodB.getByRole('button', { name: '다시 만나고 싶어요' })).toBeVisible();
  await expect(moodB.getByRole('status')).toHaveCount(0);
  await moodB.getByRole('button', { name: '다음에 할게요' }).click();

  for (const page of [a, b]) {
    await page.goto('/mywords');
    const card = page.getByRole('listitem').filter({ hasText: word });
    await expect(card).toBeVisible();
    await expect(page.getByRole('button', { name: '다시 텔레파시' })).toHaveCount(0);
    await expect(page.getByText('다시 만날 수 있어요')).toHaveCount(0);
  }
  // Nothing on Bob's screens speaks of Alice's wish.
  await b.goto('/main');
  await expect(b.getByRole('heading', { level: 1 })).toBeVisible();
  await expect(b.getByRole('alertdialog')).toHaveCount(0);
  await expect(b.getByText(/다시 만나고 싶어|다시 텔레파시/)).toHaveCount(0);

  await Promise.all([contextA.close(), contextB.close()]);
});

test('an invitation sent while the other was away opens from its push, while its minute lasts', async ({ browser, baseURL, viewport, locale, timezoneId }) => {
  test.setTimeout(120_000);
  const { contextA, contextB, a, b, word } = await twoInChat(browser, { baseURL, viewport, locale, timezoneId }, 'ap');
  await bothWish(a, b, word);
  // Bob leaves the site: the invitation reaches him only through its push.
  await b.close();

  await a.goto('/mywords');
  const card = a.getByRole('listitem').filter({ hasText: '다시 만날 수 있어요' });
  const sent = a.waitForResponse((response) => response.url().endsWith('/api/again/invite'));
  await card.getByRole('button', { name: '다시 텔레파시' }).click();
  const { inviteId } = (await (await sent).json()) as { inviteId: string };

  // A click on the push opens the address it carries (public/push-sw.js).
  const opened = await contextB.newPage();
  await opened.goto(`/main?invite=${inviteId}`);
  const invite = opened.getByRole('alertdialog', { name: `‘${word}’에서 만났던 사람이 다시 텔레파시를 보냈어요` });
  await expect(invite).toBeVisible();
  await expect(opened).toHaveURL(/\/main$/);
  await screenshot(opened, 'again-invite-from-push');
  await expectAccessible(opened, 'an invitation opened from its push');
  await invite.getByRole('button', { name: '수락하기' }).click();
  await expect(opened.getByRole('textbox', { name: '메시지' })).toBeEnabled();
  await expect(a.getByRole('textbox', { name: '메시지' })).toBeEnabled();

  // Once answered, the same address shows nothing but that it is over.
  const again = await contextB.newPage();
  await again.goto(`/main?invite=${inviteId}`);
  await expect(again.getByText('이미 끝난 초대예요.')).toBeVisible();
  await expect(again.getByRole('alertdialog', { name: /다시 텔레파시를 보냈어요$/ })).toHaveCount(0);

  await Promise.all([contextA.close(), contextB.close()]);
});
