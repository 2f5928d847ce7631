import { vi } from 'vitest';
import { jsonResponse } from '@/test/render';

/** What the fake server answers the word-set calls with; tests change it as they go. */
export interface FakeState {
  loggedIn: boolean;
  realName: string | null;
  payments: {
    id: number;
    depositor: string;
    amount: number;
    status: 'pending' | 'paid' | 'expired';
    used: boolean;
    createdAt: string;
    expiresAt: string;
  }[];
  wordsets: { id: number; words: string[]; status: 'pending' | 'approved' | 'rejected'; reason?: string; createdAt: string; refundedAt?: string }[];
  /** The status `/sp_payments/status/{id}` answers. */
  status: 'pending' | 'paid' | 'expired';
  /** The answer of update-refund: ok, or this error. */
  submitError: { status: number; code: string; message: string } | null;
}

export const destination = { bank: '데모은행', account: '000-0000-0000', holder: '텔레파시 데모' };

export function freshState(): FakeState {
  return { loggedIn: true, realName: '김민준', payments: [], wordsets: [], status: 'pending', submitError: null };
}

/** Bodies the app sent, by path. */
export type Sent = Record<string, unknown[]>;

/** Stubs fetch with a server of the word-set calls over `state`; answers what was sent. */
export function serve(state: FakeState): Sent {
  const sent: Sent = {};
  vi.stubGlobal(
    'fetch',
    vi.fn(async (request: Request) => {
      const path = new URL(request.url).pathname.replace(/^\/api/, '');
      if (request.method === 'POST') {
        const body: unknown = await request.json();
        (sent[path] ??= []).push(body);
      }
      if (path === '/auth/check') return jsonResponse({ loggedIn: state.loggedIn });
      if (path === '/nickname/profile')
        return jsonResponse({ success: true, user_id: 5, id: 5, userId: 5, username: 'alice', nickname: '앨리스' });
      if (path === '/user/5') return jsonResponse({ success: true, user_id: 5, real_name: state.realName });
      if (path === '/user/update-realname') {
        const body = sent[path]?.at(-1) as { real_name: string };
        state.realName = body.real_name;
        return jsonResponse({ success: true, message: '이름이 저장되었어요.' });
      }
      if (path === '/sp_payments/create') {
        return jsonResponse({
          success: true,
          message: '아래 계좌로 1,000원을 보내주세요.',
          id: 7,
          depositor: '김민준0427',
          amount: 1000,
          status: 'pending',
          destination,
          expiresAt: '2026-11-23T12:00:00+00:00',
          checkSeconds: 60,
        });
      }
      if (path === '/sp_payments/status/7') return jsonResponse({ success: true, id: 7, status: state.status, used: false });
      if (path === '/sp_payments/mine') return jsonResponse({ success: true, payments: state.payments, destination });
      if (path === '/wordsets/mine/5') return jsonResponse({ success: true, wordsets: state.wordsets });
      if (path === '/sp_payments/update-refund') {
        if (state.submitError) return jsonResponse({ success: false, ...state.submitError }, state.submitError.status);
        return jsonResponse({
          ok: true,
          success: true,
          message: '소중한 단어를 보내주셔서 고마워요! 검토를 거쳐 24시간 이내에 반영될 거예요.',
          wordset_id: 3,
        });
      }
      return jsonResponse({ success: false, code: 'NOT_FOUND', message: 'not here' }, 404);
    }),
  );
  return sent;
}
