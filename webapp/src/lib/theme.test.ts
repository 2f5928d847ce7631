import { describe, expect, it } from 'vitest';
import { themeFor } from './theme';

/** An instant given as a Seoul wall-clock time (UTC+9, no daylight saving). */
function seoul(iso: string): Date {
  return new Date(`${iso}+09:00`);
}

describe('themeFor', () => {
  it.each([
    ['2024-10-22T23:59:59', 'default'],
    ['2024-10-23T00:00:00', 'halloween'],
    ['2024-10-31T23:59:59', 'halloween'],
    ['2024-11-01T00:00:00', 'default'],
    ['2024-11-30T23:59:59', 'default'],
    ['2024-12-01T00:00:00', 'christmas'],
    ['2024-12-25T12:00:00', 'christmas'],
    ['2024-12-31T23:59:59', 'christmas'],
    ['2025-01-01T00:00:00', 'default'],
    ['2025-06-15T12:00:00', 'default'],
  ] as const)('%s in Seoul → %s', (iso, theme) => {
    expect(themeFor(seoul(iso))).toBe(theme);
  });

  it('uses the Seoul date, not UTC: 22 Oct 15:00 UTC is already 23 Oct in Seoul', () => {
    expect(themeFor(new Date('2024-10-22T15:00:00Z'))).toBe('halloween');
    expect(themeFor(new Date('2024-10-22T14:59:59Z'))).toBe('default');
  });

  it('30 Nov 15:00 UTC is 1 Dec in Seoul', () => {
    expect(themeFor(new Date('2024-11-30T15:00:00Z'))).toBe('christmas');
  });
});
