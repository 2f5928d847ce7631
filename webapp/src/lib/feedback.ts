import type { Schemas } from '@/api/client';
import type { ChatInfo } from './chat-session';

/** The five moods, in the specification's order. */
export const emotions = ['기뻐요', '괜찮아요', '슬퍼요', '행복해요', '화나요'] as const;

export type Emotion = (typeof emotions)[number];

export function isEmotion(value: string): value is Emotion {
  return (emotions as readonly string[]).includes(value);
}

/** The one feedback rule: an emotion must be chosen. */
export function validateFeedback(emotion: string | null): 'EMOTION_REQUIRED' | null {
  return emotion !== null && isEmotion(emotion) ? null : 'EMOTION_REQUIRED';
}

/** The payload of POST /api/feedback/add for a finished chat. */
export function feedbackBody(info: ChatInfo, emotion: Emotion): Schemas['FeedbackBody'] {
  return {
    roomId: info.roomId,
    userId: info.myId,
    userUsername: info.myUsername,
    userNickname: info.myNickname,
    partnerId: info.partnerId,
    partnerUsername: info.partnerUsername,
    partnerNickname: info.partnerNickname,
    word: info.word,
    emotion,
  };
}
