/**
 * The app's voice, held (ARCHITECTURE.md, "Voice"): every string of the catalogues is in 해요체
 * and quotes a word in ‘…’. The allow list is `verbatim` in testdata/voice.json: the texts the
 * product specification quotes word for word, which keep their 합니다체; the server's test of
 * its errors and notices reads the same list. The terms pages (features/terms/content) are
 * static legal documents and keep their formal register: they are not in these catalogues.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ko } from './ko';
import { koAdmin } from './ko-admin';

interface Voice {
  verbatim: string[];
}

const voicePath = path.resolve(import.meta.dirname, '../../../testdata/voice.json');
const voice = JSON.parse(fs.readFileSync(voicePath, 'utf8')) as Voice;

/** A sentence that ends in ~니다 (합니다, 습니다, 입니다), ~십시오 or asks in ~니까. */
const FORMAL = /(니다|십시오)(?![가-힣])|니까\?/;
/** Any quotation mark but ‘…’. */
const OTHER_QUOTES = /[“”"']/;
const HANGUL = /[가-힣]/;

/** What breaks the voice in a text, if anything. */
function fault(text: string): string | null {
  if (!HANGUL.test(text)) return null;
  if (FORMAL.test(text)) return '합니다체: say it in 해요체 (~해요, ~했어요, ~예요)';
  if (OTHER_QUOTES.test(text)) return 'another quotation mark: quote in ‘…’';
  if (text.split('‘').length !== text.split('’').length) return 'an unclosed ‘…’';
  return null;
}

/** What a text function is called with: a word, and numbers (0 too, for the branches on it). */
const SAMPLES: readonly unknown[] = ['봄', 7, 0];

/** Every string under `value`, each with where it is; functions are called with the samples. */
function texts(value: unknown, at: string): [string, string][] {
  if (typeof value === 'string') return [[at, value]];
  if (typeof value === 'function') {
    const text = value as (...args: unknown[]) => unknown;
    const out: [string, string][] = [];
    let called = false;
    for (const sample of SAMPLES) {
      let result: unknown;
      try {
        result = text(...Array.from({ length: Math.max(text.length, 1) }, () => sample));
      } catch {
        continue;
      }
      called = true;
      out.push(...texts(result, `${at}(${String(sample)})`));
    }
    if (!called) throw new Error(`${at}: no sample argument fits`);
    return out;
  }
  if (Array.isArray(value)) return value.flatMap((item, i) => texts(item, `${at}[${i}]`));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => texts(item, `${at}.${key}`));
  }
  return [];
}

function faults(catalogue: unknown, name: string): string[] {
  return texts(catalogue, name)
    .filter(([, text]) => !voice.verbatim.includes(text))
    .flatMap(([at, text]) => {
      const why = fault(text);
      return why === null ? [] : [`${at}: ${JSON.stringify(text)}: ${why}`];
    });
}

describe('the voice', () => {
  it('catches the formal register and other quotation marks', () => {
    for (const wrong of [
      '닉네임이 저장되었습니다.',
      '이미 처리된 신고입니다',
      '결제에 실패했습니다: 카드 한도 초과',
      '잠시 후 다시 시도하십시오.',
      '탈퇴하시겠습니까?',
      '“봄”을 고른 사람을 기다리고 있어요',
      '"봄"을 고른 사람을 기다리고 있어요',
      "'봄'으로 할까요?",
      '‘봄으로 할까요?',
    ]) {
      expect(fault(wrong), wrong).not.toBeNull();
    }
    for (const right of ['닉네임이 저장되었어요.', '이미 처리된 신고예요.', '‘봄’을 고른 사람을 기다리고 있어요', 'DEMO']) {
      expect(fault(right), right).toBeNull();
    }
  });

  it('walks every string, and every text a function makes', () => {
    const walked = texts({ ko, koAdmin }, 'catalogue').map(([at]) => at);
    expect(walked).toContain('catalogue.ko.login.failed');
    expect(walked).toContain('catalogue.ko.round.waiting(봄)');
    expect(walked).toContain('catalogue.ko.help.howSteps(7)[0].text');
    expect(walked).toContain('catalogue.koAdmin.reports.daysHours(0)');
  });

  it('holds every text of the app', () => {
    expect(faults(ko, 'ko')).toEqual([]);
  });

  it('holds every text of the operations console', () => {
    expect(faults(koAdmin, 'koAdmin')).toEqual([]);
  });
});
