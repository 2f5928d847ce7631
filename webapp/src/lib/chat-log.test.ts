import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '@/api/realtime';
import { chatLog, compareMessageIds, lastServerId, mergeMessages, pendingEntry, type ChatEntry } from './chat-log';

const ME = 1;
const PARTNER = 2;

function message(id: string, senderId: number, text: string, clientId?: string): ChatMessage {
  return {
    id,
    roomId: 'room',
    senderId,
    senderUsername: senderId === ME ? 'me' : 'you',
    senderNickname: senderId === ME ? '나' : '너',
    receiverId: senderId === ME ? PARTNER : ME,
    receiverUsername: senderId === ME ? 'you' : 'me',
    receiverNickname: senderId === ME ? '너' : '나',
    word: '봄',
    message: text,
    timestamp: Number(id.split('-')[0]),
    ...(clientId ? { clientId } : {}),
  };
}

const texts = (entries: ChatEntry[]) => entries.map((entry) => entry.message);

describe('compareMessageIds', () => {
  it.each([
    ['1700000000000-0', '1700000000001-0', -1],
    ['1700000000000-9', '1700000000000-10', -1],
    ['1700000000000-10', '1700000000000-9', 1],
    ['999999999999-5', '1700000000000-0', -1],
    ['1700000000000-3', '1700000000000-3', 0],
  ])('%s vs %s → %d', (a, b, sign) => {
    expect(Math.sign(compareMessageIds(a, b))).toBe(sign);
  });
});

describe('mergeMessages', () => {
  it('orders by server id numerically, not as text', () => {
    const merged = mergeMessages([], [
      message('1700000000000-10', PARTNER, 'c'),
      message('1700000000000-9', ME, 'b'),
      message('999999999999-0', PARTNER, 'a'),
    ]);
    expect(texts(merged)).toEqual(['a', 'b', 'c']);
  });

  it('keeps each server id once', () => {
    const first = mergeMessages([], [message('1700000000000-0', PARTNER, 'hi')]);
    const again = mergeMessages(first, [message('1700000000000-0', PARTNER, 'hi'), message('1700000000000-0', PARTNER, 'hi')]);
    expect(again).toHaveLength(1);
  });

  it('replaces the pending copy with its echo, keeping its key', () => {
    const pending = pendingEntry('abc', ME, '안녕', 1_700_000_000_500);
    const merged = mergeMessages([pending], [message('1700000000600-0', ME, '안녕', 'abc')]);
    expect(merged).toHaveLength(1);
    expect(merged[0]).toMatchObject({ id: '1700000000600-0', status: 'sent', key: pending.key, timestamp: 1_700_000_000_600 });
  });

  it("does not let the partner's clientId replace the user's pending copy", () => {
    const pending = pendingEntry('abc', ME, '안녕', 1);
    const merged = mergeMessages([pending], [message('1700000000600-0', PARTNER, '반가워', 'abc')]);
    expect(merged.map((entry) => entry.status)).toEqual(['sent', 'pending']);
  });

  it('puts unconfirmed messages after the confirmed ones, in the order written', () => {
    const one = pendingEntry('one', ME, 'one', 5);
    const two = pendingEntry('two', ME, 'two', 6);
    const merged = mergeMessages([one, two], [message('1700000000000-0', PARTNER, 'partner')]);
    expect(texts(merged)).toEqual(['partner', 'one', 'two']);
    const confirmedSecond = mergeMessages(merged, [message('1700000000001-0', ME, 'two', 'two')]);
    expect(texts(confirmedSecond)).toEqual(['partner', 'two', 'one']);
  });

  it('merges a resumed backlog into what is shown', () => {
    const shown = mergeMessages([], [message('1700000000000-0', PARTNER, 'a'), message('1700000000002-0', ME, 'c')]);
    const resumed = mergeMessages(shown, [message('1700000000001-0', PARTNER, 'b'), message('1700000000002-0', ME, 'c'), message('1700000000003-0', PARTNER, 'd')]);
    expect(texts(resumed)).toEqual(['a', 'b', 'c', 'd']);
  });
});

describe('lastServerId', () => {
  it('is the newest confirmed id, ignoring pending messages', () => {
    const entries = mergeMessages([pendingEntry('p', ME, 'p', 9)], [message('1700000000000-10', ME, 'x'), message('1700000000000-9', PARTNER, 'y')]);
    expect(lastServerId(entries)).toBe('1700000000000-10');
    expect(lastServerId([])).toBeUndefined();
  });
});

describe('the resume point', () => {
  const id = (n: number) => `170000000000${n}-0`;

  it('moves with live messages, and holds still while a resume is out', () => {
    chatLog.clear();
    expect(chatLog.beginResume('room')).toBeUndefined();
    chatLog.receive(message(id(1), PARTNER, 'a'));
    chatLog.resumed('room');
    chatLog.receive(message(id(2), ME, 'b'));
    expect(chatLog.beginResume('room')).toBe(id(2));

    // A live message overtakes the resumed ones, and the connection drops before they come.
    chatLog.receive(message(id(5), PARTNER, 'e'));
    expect(chatLog.beginResume('room')).toBe(id(2));

    // The next resume brings the rest.
    for (const n of [3, 4, 5]) chatLog.receive(message(id(n), PARTNER, 'x'));
    chatLog.resumed('room');
    expect(chatLog.beginResume('room')).toBe(id(5));
    chatLog.resumed('room');
    chatLog.receive(message(id(6), ME, 'f'));
    expect(chatLog.beginResume('room')).toBe(id(6));
  });

  it('starts over with another room', () => {
    chatLog.clear();
    chatLog.open('room');
    chatLog.receive(message(id(1), PARTNER, 'a'));
    expect(chatLog.beginResume('other')).toBeUndefined();
    chatLog.clear();
  });
});
