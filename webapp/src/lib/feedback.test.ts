import { describe, expect, expectTypeOf, it } from 'vitest';
import type { Schemas } from '@/api/client';
import type { ChatInfo } from './chat-session';
import { emotions, feedbackBody, validateFeedback, type Emotion } from './feedback';

describe('emotions', () => {
  it('are the ones the server lists in its contract', () => {
    expectTypeOf<Emotion>().toEqualTypeOf<Schemas['FeedbackBody']['emotion']>();
    expect(new Set(emotions).size).toBe(5);
  });
});

describe('validateFeedback', () => {
  it('requires one of the five emotions', () => {
    expect(validateFeedback(null)).toBe('EMOTION_REQUIRED');
    expect(validateFeedback('')).toBe('EMOTION_REQUIRED');
    expect(validateFeedback('심심해요')).toBe('EMOTION_REQUIRED');
  });

  it.each(emotions)('accepts %s', (emotion) => {
    expect(validateFeedback(emotion)).toBeNull();
  });

  it('offers the emotions in the order of the specification', () => {
    expect(emotions).toEqual(['기뻐요', '괜찮아요', '슬퍼요', '행복해요', '화나요']);
  });
});

describe('feedbackBody', () => {
  it('carries the room, both users and the word', () => {
    const info: ChatInfo = {
      myId: 1,
      myUsername: 'alice',
      myNickname: '앨리스',
      partnerId: 2,
      partnerUsername: 'bob',
      partnerNickname: '밥',
      word: '봄',
      round: 42,
      roomId: 'room-1',
      startTime: 0,
      question: '',
      questionDraw: 0,
      again: false,
    };
    expect(feedbackBody(info, '행복해요')).toEqual({
      roomId: 'room-1',
      userId: 1,
      userUsername: 'alice',
      userNickname: '앨리스',
      partnerId: 2,
      partnerUsername: 'bob',
      partnerNickname: '밥',
      word: '봄',
      emotion: '행복해요',
    });
  });
});
