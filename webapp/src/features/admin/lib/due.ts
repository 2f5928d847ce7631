import { koAdmin } from '@/i18n/ko-admin';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** How a report stands against its 24-hour deadline, in words. */
export interface DueState {
  overdue: boolean;
  /** "14시간 32분 남음", "3시간 지남", … */
  text: string;
}

/**
 * The time left before `dueAtMs` at `nowMs`, or the time past it. Time left counts down to the
 * minute (whole minutes shown, so "0분" never appears: under a minute says so); time past counts
 * in minutes for the first hour, then in hours, then in days and hours.
 */
export function describeDue(dueAtMs: number, nowMs: number): DueState {
  const t = koAdmin.reports;
  const left = dueAtMs - nowMs;
  if (left > 0) {
    const hours = Math.floor(left / HOUR_MS);
    const minutes = Math.floor((left % HOUR_MS) / MINUTE_MS);
    if (hours > 0) return { overdue: false, text: t.left(t.hoursMinutes(hours, minutes)) };
    if (minutes > 0) return { overdue: false, text: t.left(t.minutes(minutes)) };
    return { overdue: false, text: t.underMinuteLeft };
  }
  const past = -left;
  if (past < MINUTE_MS) return { overdue: true, text: t.justOverdue };
  if (past < HOUR_MS) return { overdue: true, text: t.overdue(t.minutes(Math.floor(past / MINUTE_MS))) };
  if (past < DAY_MS) return { overdue: true, text: t.overdue(t.hours(Math.floor(past / HOUR_MS))) };
  return {
    overdue: true,
    text: t.overdue(t.daysHours(Math.floor(past / DAY_MS), Math.floor((past % DAY_MS) / HOUR_MS))),
  };
}

/** `describeDue` for an RFC 3339 time; null when the time cannot be read. */
export function describeDueAt(dueAt: string, nowMs: number): DueState | null {
  const due = Date.parse(dueAt);
  return Number.isNaN(due) ? null : describeDue(due, nowMs);
}
