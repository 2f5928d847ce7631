import { describe, expect, it } from 'vitest';
import { describeDue, describeDueAt } from './due';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DUE = Date.UTC(2026, 10, 24, 3, 0, 0);

function check(nowOffsetMs: number, expected: { overdue: boolean; text: string }) {
  expect(describeDue(DUE, DUE + nowOffsetMs), `${nowOffsetMs} ms from the deadline`).toEqual(expected);
}

describe('describeDue', () => {
  it('counts the time left in hours and whole minutes', () => {
    check(-(14 * HOUR + 32 * MINUTE), { overdue: false, text: '14시간 32분 남음' });
    check(-(14 * HOUR + 32 * MINUTE + 59_999), { overdue: false, text: '14시간 32분 남음' });
    check(-24 * HOUR, { overdue: false, text: '24시간 0분 남음' });
    check(-(1 * HOUR), { overdue: false, text: '1시간 0분 남음' });
    check(-(59 * MINUTE + 59_000), { overdue: false, text: '59분 남음' });
    check(-MINUTE, { overdue: false, text: '1분 남음' });
  });

  it('says when less than a minute is left rather than "0분"', () => {
    check(-59_999, { overdue: false, text: '1분 안에 마감' });
    check(-1, { overdue: false, text: '1분 안에 마감' });
  });

  it('turns overdue at the deadline itself', () => {
    check(0, { overdue: true, text: '방금 기한 지남' });
    check(59_999, { overdue: true, text: '방금 기한 지남' });
  });

  it('counts the time past in minutes, then hours, then days and hours', () => {
    check(MINUTE, { overdue: true, text: '1분 지남' });
    check(59 * MINUTE, { overdue: true, text: '59분 지남' });
    check(HOUR, { overdue: true, text: '1시간 지남' });
    check(3 * HOUR + 59 * MINUTE, { overdue: true, text: '3시간 지남' });
    check(23 * HOUR + 59 * MINUTE, { overdue: true, text: '23시간 지남' });
    check(24 * HOUR, { overdue: true, text: '1일 지남' });
    check(51 * HOUR + 10 * MINUTE, { overdue: true, text: '2일 3시간 지남' });
  });

  it('reads RFC 3339 times and refuses what it cannot read', () => {
    expect(describeDueAt('2026-11-24T12:00:00+09:00', DUE - 2 * HOUR - 5 * MINUTE)).toEqual({
      overdue: false,
      text: '2시간 5분 남음',
    });
    expect(describeDueAt('2026-11-24T03:00:00Z', DUE + 3 * HOUR)).toEqual({ overdue: true, text: '3시간 지남' });
    expect(describeDueAt('내일', DUE)).toBeNull();
  });
});
