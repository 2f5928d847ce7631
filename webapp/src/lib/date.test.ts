import { describe, expect, it } from 'vitest';
import { formatKoreanDayAndTime, formatShortKoreanDate, formatShortKoreanDateTime } from './date';

describe('formatShortKoreanDate', () => {
  it('uses the Seoul calendar date', () => {
    expect(formatShortKoreanDate('2024-11-21T15:30:00Z')).toBe('24. 11. 22.');
    expect(formatShortKoreanDate('2024-11-21T14:59:59Z')).toBe('24. 11. 21.');
  });

  it('keeps an unreadable value as it is', () => {
    expect(formatShortKoreanDate('someday')).toBe('someday');
  });
});

describe('formatKoreanDayAndTime', () => {
  it('uses the Seoul calendar and clock', () => {
    expect(formatKoreanDayAndTime('2026-11-23T12:05:00Z')).toBe('11월 23일 21:05');
    expect(formatKoreanDayAndTime('later')).toBe('later');
  });
});

describe('formatShortKoreanDateTime', () => {
  it('adds the Seoul clock to the short date', () => {
    expect(formatShortKoreanDateTime('2024-11-21T15:30:00Z')).toBe('24. 11. 22. 00:30');
    expect(formatShortKoreanDateTime('2024-11-22T12:05:00Z')).toBe('24. 11. 22. 21:05');
    expect(formatShortKoreanDateTime('someday')).toBe('someday');
  });
});
