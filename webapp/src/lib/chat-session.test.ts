import { describe, expect, it } from 'vitest';
import { chatInfoFromMatched, parseChatInfo } from './chat-session';

const matched = {
  roomId: 'r1',
  word: '봄',
  round: 7,
  senderId: 1,
  senderUsername: 'alice',
  senderNickname: '앨리스',
  receiverId: 2,
  receiverUsername: 'bob',
  receiverNickname: '밥',
  question: '봄이 오면 꼭 하고 싶은 일이 있어요?',
  questionDraw: 0,
};

describe('chat info', () => {
  it('stores sender as me and receiver as the partner', () => {
    expect(chatInfoFromMatched(matched, 99)).toEqual({
      myId: 1,
      myUsername: 'alice',
      myNickname: '앨리스',
      partnerId: 2,
      partnerUsername: 'bob',
      partnerNickname: '밥',
      word: '봄',
      round: 7,
      roomId: 'r1',
      startTime: 99,
      question: '봄이 오면 꼭 하고 싶은 일이 있어요?',
      questionDraw: 0,
      again: false,
    });
  });

  it('keeps a chat opened again as such, and one stored before that as a round one', () => {
    const again = chatInfoFromMatched({ ...matched, again: true }, 99);
    expect(again.again).toBe(true);
    expect(parseChatInfo(JSON.stringify(again))?.again).toBe(true);
    const before: Partial<ReturnType<typeof chatInfoFromMatched>> = chatInfoFromMatched(matched, 99);
    delete before.again;
    expect(parseChatInfo(JSON.stringify(before))?.again).toBe(false);
  });

  it('reads a session stored before questions as one without a question', () => {
    const before: Partial<ReturnType<typeof chatInfoFromMatched>> = chatInfoFromMatched(matched, 99);
    delete before.question;
    delete before.questionDraw;
    expect(parseChatInfo(JSON.stringify(before))).toMatchObject({ question: '', questionDraw: 0, roomId: 'r1' });
  });

  it('reads back what it stored', () => {
    const info = chatInfoFromMatched(matched, 99);
    expect(parseChatInfo(JSON.stringify(info))).toEqual(info);
  });

  it.each([
    ['nothing', null],
    ['not JSON', '{'],
    ['no room', JSON.stringify({ ...chatInfoFromMatched(matched, 1), roomId: '' })],
    ['no partner', JSON.stringify({ ...chatInfoFromMatched(matched, 1), partnerId: undefined })],
    ['an array', '[]'],
  ])('has no session with %s', (_case, raw) => {
    expect(parseChatInfo(raw)).toBeNull();
  });
});
