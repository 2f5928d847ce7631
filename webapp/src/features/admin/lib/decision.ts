import { koAdmin } from '@/i18n/ko-admin';

/** What an operator may do about a report; a user's sanction is one of the last three. */
export type DecisionAction = 'dismiss' | 'warn' | 'suspend' | 'ban';
export type SanctionKind = Exclude<DecisionAction, 'dismiss'>;

export const decisionActions: readonly DecisionAction[] = ['dismiss', 'warn', 'suspend', 'ban'];
export const sanctionKinds: readonly SanctionKind[] = ['warn', 'suspend', 'ban'];

/** The server's limits (domain::limits): a reason of at most 200 characters, 1–365 days. */
export const REASON_MAX_CHARS = 200;
export const SUSPEND_DAYS_MIN = 1;
export const SUSPEND_DAYS_MAX = 365;

/** The form as typed: the days are the input's text. */
export interface DecisionForm {
  action: DecisionAction;
  days: string;
  reason: string;
}

/** A decision the server will accept: days only for a suspension, the reason trimmed. */
export interface Decision {
  action: DecisionAction;
  days?: number;
  reason: string;
}

export interface DecisionErrors {
  days?: string;
  reason?: string;
}

export type DecisionCheck = { ok: true; decision: Decision } | { ok: false; errors: DecisionErrors };

/** Characters as the server counts them (Unicode scalar values), not UTF-16 units. */
export function reasonLength(reason: string): number {
  return Array.from(reason.trim()).length;
}

/** The days of a suspension typed as whole numbers of 1–365, or null. */
export function parseDays(text: string): number | null {
  const trimmed = text.trim();
  if (!/^\d{1,3}$/.test(trimmed)) return null;
  const days = Number(trimmed);
  return days >= SUSPEND_DAYS_MIN && days <= SUSPEND_DAYS_MAX ? days : null;
}

/**
 * The rules of a decision, as the server checks them (domain::safety::Decision): a reason of
 * 1–200 characters for every sanction (the user reads it), optional for a dismissal but still at
 * most 200; 1–365 days for a suspension, none sent otherwise.
 */
export function checkDecision(form: DecisionForm): DecisionCheck {
  const t = koAdmin.resolve.errors;
  const errors: DecisionErrors = {};
  const reason = form.reason.trim();
  const length = reasonLength(reason);
  if (length > REASON_MAX_CHARS) errors.reason = t.reasonTooLong;
  else if (length === 0 && form.action !== 'dismiss') errors.reason = t.reasonRequired;
  let days: number | undefined;
  if (form.action === 'suspend') {
    const parsed = parseDays(form.days);
    if (parsed === null) errors.days = t.daysInvalid;
    else days = parsed;
  }
  if (errors.days !== undefined || errors.reason !== undefined) return { ok: false, errors };
  return { ok: true, decision: days === undefined ? { action: form.action, reason } : { action: form.action, days, reason } };
}

/** Suspensions and bans end the user's sessions at once, so they are confirmed first. */
export function needsConfirmation(action: DecisionAction): boolean {
  return action === 'suspend' || action === 'ban';
}
