import { describe, expect, it } from 'vitest';
import { formatClock, formatDateTime, formatDay, groupSecret } from './format';

describe('console times', () => {
  it('are on the Seoul clock', () => {
    expect(formatDateTime('2026-11-23T12:05:09Z')).toBe('2026. 11. 23. 21:05');
    expect(formatClock('2026-11-23T15:05:09Z')).toBe('00:05:09');
    expect(formatDay('2026-11-23T15:05:09Z')).toBe('2026년 11월 24일 (화)');
    expect(formatDateTime('unreadable')).toBe('unreadable');
  });
});

describe('groupSecret', () => {
  it('groups a base32 secret by four', () => {
    expect(groupSecret('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP')).toBe('JBSW Y3DP EHPK 3PXP JBSW Y3DP EHPK 3PXP');
    expect(groupSecret('ABCDEF')).toBe('ABCD EF');
    expect(groupSecret('')).toBe('');
  });
});
