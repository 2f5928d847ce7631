import { describe, expect, it } from 'vitest';
import { settle } from './outcome';

function result<T>(data: T | undefined, error: unknown, status: number) {
  return Promise.resolve({ data, error, response: new Response(null, { status }) });
}

describe('settle', () => {
  it('passes a success through', async () => {
    expect(await settle(result({ success: true, message: '좋아요' }, undefined, 200))).toEqual({
      ok: true,
      data: { success: true, message: '좋아요' },
    });
  });

  it("reads the server's code and message from an error body", async () => {
    const outcome = await settle(result(undefined, { success: false, code: 'LOGIN_FAILED', message: '틀렸어요' }, 401));
    expect(outcome).toEqual({ ok: false, network: false, status: 401, code: 'LOGIN_FAILED', message: '틀렸어요' });
  });

  it('treats a 2xx body that says success: false as a failure', async () => {
    const outcome = await settle(result({ success: false, message: '안 돼요' }, undefined, 200));
    expect(outcome).toMatchObject({ ok: false, network: false, message: '안 돼요' });
  });

  it('leaves the message out when the body has none', async () => {
    const outcome = await settle(result(undefined, 'Bad Gateway', 502));
    expect(outcome).toEqual({ ok: false, network: false, status: 502, code: undefined, message: undefined });
  });

  it('reports a network failure', async () => {
    expect(await settle(Promise.reject(new TypeError('Failed to fetch')))).toEqual({ ok: false, network: true });
  });
});
