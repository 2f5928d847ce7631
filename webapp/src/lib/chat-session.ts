import type { Matched } from '@/api/realtime';
import { readLocal, removeLocal, storageKeys, writeLocal } from './storage';

/**
 * The chat session of the specification, kept in local storage as `chatInfo` while a chat is
 * active and as `feedbackInfo` after leaving it, until the mood feedback is given.
 */
export interface ChatInfo {
  myId: number;
  myUsername: string;
  myNickname: string;
  partnerId: number;
  partnerUsername: string;
  partnerNickname: string;
  word: string;
  round: number;
  roomId: string;
  /** When the match happened, in Unix milliseconds. */
  startTime: number;
  /** The room's first question as last told (empty in a session stored before questions). */
  question: string;
  /** Which draw `question` is: `nextQuestion` asks for the one after it. */
  questionDraw: number;
  /** The two asked to meet again (다시 텔레파시) rather than a round matching them. */
  again: boolean;
}

/** `matched` names the receiving user `sender*` and the partner `receiver*`. */
export function chatInfoFromMatched(matched: Matched, startTime: number): ChatInfo {
  return {
    myId: matched.senderId,
    myUsername: matched.senderUsername,
    myNickname: matched.senderNickname,
    partnerId: matched.receiverId,
    partnerUsername: matched.receiverUsername,
    partnerNickname: matched.receiverNickname,
    word: matched.word,
    round: matched.round,
    roomId: matched.roomId,
    startTime,
    question: matched.question,
    questionDraw: matched.questionDraw,
    again: matched.again === true,
  };
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function integer(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) ? value : null;
}

/** A stored session, or null when absent, unreadable or missing the room or the partner. */
export function parseChatInfo(raw: string | null): ChatInfo | null {
  if (raw === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  const roomId = text(v.roomId);
  const partnerId = integer(v.partnerId);
  const myId = integer(v.myId);
  const word = text(v.word);
  if (roomId === null || partnerId === null || myId === null || word === null) return null;
  return {
    myId,
    myUsername: text(v.myUsername) ?? '',
    myNickname: text(v.myNickname) ?? '',
    partnerId,
    partnerUsername: text(v.partnerUsername) ?? '',
    partnerNickname: text(v.partnerNickname) ?? '',
    word,
    round: integer(v.round) ?? 0,
    roomId,
    startTime: integer(v.startTime) ?? 0,
    question: text(v.question) ?? '',
    questionDraw: integer(v.questionDraw) ?? 0,
    again: v.again === true,
  };
}

export function readChatInfo(): ChatInfo | null {
  return parseChatInfo(readLocal(storageKeys.chatInfo));
}

export function writeChatInfo(info: ChatInfo): void {
  writeLocal(storageKeys.chatInfo, JSON.stringify(info));
}

export function clearChatInfo(): void {
  removeLocal(storageKeys.chatInfo);
}

export function readFeedbackInfo(): ChatInfo | null {
  return parseChatInfo(readLocal(storageKeys.feedbackInfo));
}

export function clearFeedbackInfo(): void {
  removeLocal(storageKeys.feedbackInfo);
}

/** Leaving through the chat's own leave confirmation: the session becomes the pending feedback. */
export function moveChatInfoToFeedback(info: ChatInfo): void {
  writeLocal(storageKeys.feedbackInfo, JSON.stringify(info));
  clearChatInfo();
}

/**
 * The chat this device held when the server said it was over without this device seeing the
 * end (the user came back after it ended): /main says so until the user moves on.
 */
export function readMissedEnd(): ChatInfo | null {
  return parseChatInfo(readLocal(storageKeys.missedChatEnd));
}

export function noteMissedEnd(info: ChatInfo): void {
  writeLocal(storageKeys.missedChatEnd, JSON.stringify(info));
}

export function clearMissedEnd(): void {
  removeLocal(storageKeys.missedChatEnd);
}
