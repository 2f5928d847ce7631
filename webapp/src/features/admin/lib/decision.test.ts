import { describe, expect, it } from 'vitest';
import { koAdmin } from '@/i18n/ko-admin';
import { checkDecision, needsConfirmation, parseDays, reasonLength, type DecisionCheck, type DecisionForm } from './decision';

const errors = koAdmin.resolve.errors;

function check(form: DecisionForm, expected: DecisionCheck) {
  expect(checkDecision(form), JSON.stringify(form)).toEqual(expected);
}

describe('checkDecision', () => {
  it('lets a dismissal go without a reason, trimmed and without days', () => {
    check({ action: 'dismiss', days: '', reason: '' }, { ok: true, decision: { action: 'dismiss', reason: '' } });
    check({ action: 'dismiss', days: '7', reason: '  오해였어요 ' }, { ok: true, decision: { action: 'dismiss', reason: '오해였어요' } });
  });

  it('needs a reason for every sanction', () => {
    for (const action of ['warn', 'suspend', 'ban'] as const) {
      check({ action, days: '7', reason: '' }, { ok: false, errors: { reason: errors.reasonRequired } });
      check({ action, days: '7', reason: '   \n ' }, { ok: false, errors: { reason: errors.reasonRequired } });
    }
    check({ action: 'warn', days: '', reason: ' 욕설 ' }, { ok: true, decision: { action: 'warn', reason: '욕설' } });
    check({ action: 'ban', days: '30', reason: '협박' }, { ok: true, decision: { action: 'ban', reason: '협박' } });
  });

  it('keeps every reason within 200 characters, counted as the server counts them', () => {
    const longest = '가'.repeat(200);
    check({ action: 'warn', days: '', reason: longest }, { ok: true, decision: { action: 'warn', reason: longest } });
    check({ action: 'warn', days: '', reason: `${longest}가` }, { ok: false, errors: { reason: errors.reasonTooLong } });
    check({ action: 'dismiss', days: '', reason: `${longest}가` }, { ok: false, errors: { reason: errors.reasonTooLong } });
    // An emoji is two UTF-16 units but one character.
    const emoji = '😡'.repeat(200);
    expect(emoji.length).toBe(400);
    expect(reasonLength(emoji)).toBe(200);
    check({ action: 'warn', days: '', reason: emoji }, { ok: true, decision: { action: 'warn', reason: emoji } });
  });

  it('needs 1–365 whole days for a suspension', () => {
    for (const days of ['1', '7', ' 30 ', '365', '007']) {
      check({ action: 'suspend', days, reason: '욕설' }, { ok: true, decision: { action: 'suspend', days: Number(days), reason: '욕설' } });
    }
    for (const days of ['', '0', '366', '-1', '7.5', '1e2', '칠', '1000']) {
      check({ action: 'suspend', days, reason: '욕설' }, { ok: false, errors: { days: errors.daysInvalid } });
    }
    check({ action: 'suspend', days: '0', reason: '' }, { ok: false, errors: { days: errors.daysInvalid, reason: errors.reasonRequired } });
  });

  it('reads days only as whole numbers', () => {
    expect(parseDays('365')).toBe(365);
    expect(parseDays('366')).toBeNull();
    expect(parseDays('1.0')).toBeNull();
  });

  it('asks before a suspension or a ban only', () => {
    expect(needsConfirmation('suspend')).toBe(true);
    expect(needsConfirmation('ban')).toBe(true);
    expect(needsConfirmation('warn')).toBe(false);
    expect(needsConfirmation('dismiss')).toBe(false);
  });
});
