import type { Matched } from '@/api/realtime';
import type { ChatInfo } from '@/lib/chat-session';

/** A chat in progress, as the tests of the chat store it: user 7 with partner 12 in room-1. */
export const chatInfo: ChatInfo = {
  myId: 7,
  myUsername: 'alice_01',
  myNickname: '달빛',
  partnerId: 12,
  partnerUsername: 'star_12',
  partnerNickname: '별빛',
  word: '고양이',
  round: 1000,
  roomId: 'room-1',
  startTime: 0,
  question: '고양이의 어떤 모습이 제일 귀여워요?',
  questionDraw: 0,
  again: false,
};

/**
 * The `matched` the server tells user 7 of `chatInfo`'s pair (it names the receiving user
 * `sender*`, the partner `receiver*`), for a room of its own: the one fixture of a match.
 */
export function matchedFor(room: Partial<Matched> = {}): Matched {
  return {
    roomId: chatInfo.roomId,
    word: chatInfo.word,
    round: chatInfo.round,
    senderId: chatInfo.myId,
    senderUsername: chatInfo.myUsername,
    senderNickname: chatInfo.myNickname,
    receiverId: chatInfo.partnerId,
    receiverUsername: chatInfo.partnerUsername,
    receiverNickname: chatInfo.partnerNickname,
    question: chatInfo.question,
    questionDraw: chatInfo.questionDraw,
    ...room,
  };
}
