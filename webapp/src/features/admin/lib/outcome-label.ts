import { koAdmin } from '@/i18n/ko-admin';
import type { Decision } from './decision';

/** A decision in a few words: 기각, 경고, 7일 정지, 영구 정지. */
export function outcomeLabel(decision: Decision): string {
  const t = koAdmin.resolve.outcome;
  switch (decision.action) {
    case 'dismiss':
      return t.dismiss;
    case 'warn':
      return t.warn;
    case 'suspend':
      return t.suspend(decision.days ?? 0);
    case 'ban':
      return t.ban;
  }
}
