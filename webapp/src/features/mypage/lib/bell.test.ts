import { afterEach, describe, expect, it, vi } from 'vitest';
import { applicationServerKey, base64UrlToBytes, BellError, forgetThisDevice, subscribeDevice, subscriptionBody, WORKER_WAIT_MS } from './bell';

function check(input: string, expected: number[]) {
  expect(Array.from(base64UrlToBytes(input))).toEqual(expected);
}

describe('base64UrlToBytes', () => {
  it('reads base64url, with or without padding', () => {
    check('', []);
    check('AA', [0]);
    check('AA==', [0]);
    check('AQI', [1, 2]);
    check('AQID', [1, 2, 3]);
    check('-_8', [251, 255]);
    check('--__', [251, 239, 255]);
    check('SGVsbG8', [72, 101, 108, 108, 111]);
  });

  it('agrees with Node on a real-sized key', () => {
    const bytes = Uint8Array.from({ length: 65 }, (_, index) => (index * 37 + 4) % 256);
    const text = Buffer.from(bytes).toString('base64url');
    expect(base64UrlToBytes(text)).toEqual(bytes);
  });

  it.each(['A', 'AB+C', 'AB/C', 'AB C', 'AB=C', 'ABCDE', 'AA==='])('refuses %j', (input) => {
    expect(() => base64UrlToBytes(input)).toThrow(TypeError);
  });
});

describe('applicationServerKey', () => {
  it('takes an uncompressed P-256 point', () => {
    const point = Uint8Array.from({ length: 65 }, (_, index) => (index === 0 ? 4 : index));
    expect(applicationServerKey(Buffer.from(point).toString('base64url'))).toEqual(point);
  });

  it.each([
    ['empty', ''],
    ['not base64url', 'not a key!'],
    ['too short', Buffer.from([4, 1, 2]).toString('base64url')],
    ['compressed', Buffer.from(Uint8Array.from({ length: 65 }, () => 2)).toString('base64url')],
  ])('refuses a key that is %s', (_case, key) => {
    expect(() => applicationServerKey(key)).toThrow(BellError);
  });
});

describe('subscriptionBody', () => {
  const subscription = (json: PushSubscriptionJSON) => ({ toJSON: () => json }) as unknown as PushSubscription;

  it('sends only the endpoint and the two keys', () => {
    const body = subscriptionBody(
      subscription({ endpoint: 'https://push.example/1', expirationTime: null, keys: { p256dh: 'p', auth: 'a', extra: 'x' } }),
    );
    expect(body).toEqual({ endpoint: 'https://push.example/1', keys: { p256dh: 'p', auth: 'a' } });
  });

  it('has nothing to send without the keys', () => {
    expect(subscriptionBody(subscription({ endpoint: 'https://push.example/1' }))).toBeNull();
    expect(subscriptionBody(subscription({ keys: { p256dh: 'p', auth: 'a' } }))).toBeNull();
  });
});

describe('subscribeDevice', () => {
  const key = Uint8Array.from({ length: 65 }, (_, index) => (index === 0 ? 4 : 9));
  const publicKey = Buffer.from(key).toString('base64url');

  afterEach(() => {
    vi.useRealTimers();
    Reflect.deleteProperty(navigator, 'serviceWorker');
  });

  function workerWith(existing: { key: Uint8Array } | null) {
    const old = existing
      ? { options: { applicationServerKey: existing.key.slice().buffer }, unsubscribe: vi.fn(() => Promise.resolve(true)) }
      : null;
    const created = { endpoint: 'https://push.example/new' };
    const pushManager = { getSubscription: vi.fn(() => Promise.resolve(old)), subscribe: vi.fn(() => Promise.resolve(created)) };
    Object.defineProperty(navigator, 'serviceWorker', {
      configurable: true,
      value: { getRegistration: () => Promise.resolve({ active: {}, pushManager }) },
    });
    return { old, created, pushManager };
  }

  it('keeps a subscription made with the same key', async () => {
    const { old, pushManager } = workerWith({ key });
    await expect(subscribeDevice(publicKey)).resolves.toBe(old);
    expect(pushManager.subscribe).not.toHaveBeenCalled();
  });

  it('replaces one made with another key (the browser refuses two)', async () => {
    const { old, created, pushManager } = workerWith({ key: Uint8Array.from({ length: 65 }, () => 4) });
    await expect(subscribeDevice(publicKey)).resolves.toBe(created);
    expect(old?.unsubscribe).toHaveBeenCalledOnce();
    expect(pushManager.subscribe).toHaveBeenCalledWith({ userVisibleOnly: true, applicationServerKey: key });
  });

  it('waits for a worker still installing', async () => {
    const pushManager = { getSubscription: () => Promise.resolve(null), subscribe: vi.fn(() => Promise.resolve({ endpoint: 'e' })) };
    Object.defineProperty(navigator, 'serviceWorker', {
      configurable: true,
      value: { getRegistration: () => Promise.resolve(undefined), ready: Promise.resolve({ active: {}, pushManager }) },
    });
    await expect(subscribeDevice(publicKey)).resolves.toEqual({ endpoint: 'e' });
  });

  it('gives up where no worker comes (the development server has none)', async () => {
    vi.useFakeTimers();
    Object.defineProperty(navigator, 'serviceWorker', {
      configurable: true,
      value: { getRegistration: () => Promise.resolve(undefined), ready: new Promise(() => undefined) },
    });
    const subscribing = expect(subscribeDevice(publicKey)).rejects.toThrow(BellError);
    await vi.advanceTimersByTimeAsync(WORKER_WAIT_MS);
    await subscribing;
  });
});

describe('forgetThisDevice', () => {
  afterEach(() => {
    Reflect.deleteProperty(navigator, 'serviceWorker');
  });

  function withSubscription(subscription: { endpoint: string; unsubscribe: () => Promise<boolean> } | null) {
    const registration = { pushManager: { getSubscription: () => Promise.resolve(subscription) } };
    Object.defineProperty(navigator, 'serviceWorker', {
      configurable: true,
      value: { getRegistration: () => Promise.resolve(registration) },
    });
  }

  it('tells the server, then drops the browser’s subscription', async () => {
    const steps: string[] = [];
    withSubscription({
      endpoint: 'https://push.example/device-1',
      unsubscribe: () => {
        steps.push('drop');
        return Promise.resolve(true);
      },
    });
    await forgetThisDevice((endpoint) => {
      steps.push(`server ${endpoint}`);
      return Promise.resolve();
    });
    expect(steps).toEqual(['server https://push.example/device-1', 'drop']);
  });

  it('does nothing without a subscription or a worker', async () => {
    const unsubscribe = vi.fn(() => Promise.resolve());
    withSubscription(null);
    await forgetThisDevice(unsubscribe);
    Reflect.deleteProperty(navigator, 'serviceWorker');
    await forgetThisDevice(unsubscribe);
    expect(unsubscribe).not.toHaveBeenCalled();
  });
});
