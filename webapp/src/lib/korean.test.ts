import { describe, expect, it } from 'vitest';
import { directionParticle, objectParticle, subjectParticle, topicParticle } from './korean';

describe('particles', () => {
  it.each([
    ['봄', '을', '은', '이', '으로'],
    ['피자', '를', '는', '가', '로'],
    ['가을', '을', '은', '이', '로'],
    ['텔레파시 운영팀', '을', '은', '이', '으로'],
    ['Telepathy Inc', '를', '는', '가', '로'],
  ])('%s', (word, object, topic, subject, direction) => {
    expect([objectParticle(word), topicParticle(word), subjectParticle(word), directionParticle(word)]).toEqual([
      object,
      topic,
      subject,
      direction,
    ]);
  });
});
