import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ko, type ValidationCode } from '@/i18n/ko';
import {
  capLength,
  editPhone,
  formatPhone,
  sanitizeWordInput,
  validateBirthdate,
  validateNewPassword,
  validateNickname,
  validatePhone,
  validateRealName,
  validateRefundAccount,
  validateRefundBank,
  validateWordset,
  validateWordsetWord,
  validateRegisterPassword,
  validateReport,
  validateUsername,
} from './validation';

interface Case {
  input: string;
  error: string | null;
}

interface ReportCase {
  reasons: string[];
  extra: string;
  error: string | null;
}

interface Table {
  messages: Record<string, string>;
  username: Case[];
  registerPassword: Case[];
  newPassword: Case[];
  phone: Case[];
  birthdate: Case[];
  nickname: Case[];
  report: ReportCase[];
  realName: Case[];
  wordsetWord: Case[];
  refundBank: Case[];
  refundAccount: Case[];
}

const tablePath = path.resolve(import.meta.dirname, '../../../testdata/validation-cases.json');
const table = JSON.parse(fs.readFileSync(tablePath, 'utf8')) as Table;

function check(name: string, cases: Case[], rule: (input: string) => ValidationCode | null) {
  describe(name, () => {
    it.each(cases)('$input → $error', ({ input, error }) => {
      expect(rule(input)).toBe(error);
    });
  });
}

check('username', table.username, validateUsername);
check('register password', table.registerPassword, validateRegisterPassword);
check('phone', table.phone, validatePhone);
check('birthdate', table.birthdate, validateBirthdate);
check('nickname', table.nickname, validateNickname);
check('real name', table.realName, validateRealName);
check('word-set word', table.wordsetWord, validateWordsetWord);
check('refund bank', table.refundBank, validateRefundBank);
check('refund account', table.refundAccount, validateRefundAccount);

describe('word set', () => {
  it('needs four different valid words', () => {
    expect(validateWordset(['바다', '노을', '한강', '별'])).toBeNull();
    expect(validateWordset(['바다', '노을', '한강'])).toBe('WORDSET_WORDS_REQUIRED');
    expect(validateWordset(['바다', '노을', '한강', ''])).toBe('WORDSET_WORDS_REQUIRED');
    expect(validateWordset(['바다', '노을', '한강', '바다'])).toBe('WORDSET_WORDS_DUPLICATE');
    expect(validateWordset(['바다', '노을', '한강', 'ㅋㅋ'])).toBe('WORDSET_WORD_INVALID');
  });

  it('keeps only Hangul while typing, at most six', () => {
    expect(sanitizeWordInput('ice크림1')).toBe('크림');
    expect(sanitizeWordInput('아이스크림케이크')).toBe('아이스크림케');
    expect(sanitizeWordInput('바ㄷ')).toBe('바ㄷ');
    expect(sanitizeWordInput(' 바 다 ')).toBe('바다');
  });
});

describe('new password', () => {
  const expectedFor = (error: string | null, mismatch: ValidationCode) => (error === 'MISMATCH' ? mismatch : error);
  it.each(table.newPassword)('reset: $input → $error', ({ input, error }) => {
    expect(validateNewPassword(input, input, 'reset')).toBe(expectedFor(error, 'RESET_PASSWORD_MISMATCH'));
  });
  it.each(table.newPassword)('change: $input → $error', ({ input, error }) => {
    expect(validateNewPassword(input, input, 'change')).toBe(expectedFor(error, 'NEW_PASSWORD_MISMATCH'));
  });
  it('rejects a confirmation that differs', () => {
    expect(validateNewPassword('abcdefg1', 'abcdefg2', 'reset')).toBe('RESET_PASSWORD_MISMATCH');
    expect(validateNewPassword('abcdefg1', 'abcdefg2', 'change')).toBe('NEW_PASSWORD_MISMATCH');
    expect(validateNewPassword('abcdefg1', 'abcdefg2', 'register')).toBe('RESET_PASSWORD_MISMATCH');
  });
  it('holds sign-up to the same rule, its confirmation too', () => {
    for (const { input, error } of table.registerPassword) {
      expect(validateNewPassword(input, input, 'register')).toBe(error);
    }
  });
});

describe('report', () => {
  it.each(table.report.map((c) => [c.reasons.join(', '), c.extra.length, c] as const))('[%s] with %i code units of text', (_, __, { reasons, extra, error }) => {
    expect(validateReport(reasons, extra)).toBe(error);
  });
});

describe('capLength', () => {
  it('keeps at most max characters and never cuts a surrogate pair', () => {
    expect(capLength('가나다', 5)).toBe('가나다');
    expect(capLength('가나다', 2)).toBe('가나');
    expect(capLength('😀😀😀', 2)).toBe('😀😀');
  });
});

describe('messages', () => {
  it('the catalogue holds exactly the shared messages', () => {
    expect(ko.validation).toEqual(table.messages);
  });
});

describe('formatPhone', () => {
  const check = (input: string, expected: string) => {
    expect(formatPhone(input)).toBe(expected);
  };
  it('groups a phone number as people read it', () => {
    check('01012345678', '010-1234-5678');
    check('010-1234-5678', '010-1234-5678');
    check('010 1234 5678', '010-1234-5678');
    check('0111234567', '011-123-4567');
    check('010123456789', '010-1234-5678');
    check('0101234', '010-1234');
    check('0101234567', '010-1234-567');
    check('010', '010');
    check('', '');
  });
});

describe('editPhone', () => {
  it('formats what was typed', () => {
    expect(editPhone('010-1234', '010-12345', 9)).toBe('010-1234-5');
    expect(editPhone('', '01012345678', 11)).toBe('010-1234-5678');
  });
  it('deletes the digit before a deleted hyphen, so the field can be emptied', () => {
    // Backspace just after the second hyphen: the hyphen goes, and so does the 4 before it.
    expect(editPhone('010-1234-5', '010-12345', 8)).toBe('010-1235');
    expect(editPhone('010-1', '0101', 3)).toBe('011');
  });
  it('deletes a digit as any field would', () => {
    expect(editPhone('010-1234-5678', '010-1234-567', 12)).toBe('010-1234-567');
  });
});
