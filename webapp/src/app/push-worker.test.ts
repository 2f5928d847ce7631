import { readFileSync } from 'node:fs';
import path from 'node:path';
import { runInNewContext } from 'node:vm';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ko } from '@/i18n/ko';

/** The opening bell's worker script, run here in a stand-in for the service worker's scope. */
const source = readFileSync(path.join(import.meta.dirname, '../../public/push-sw.js'), 'utf8');
const origin = 'https://telepathy.example';

interface FakeWindow {
  url: string;
  focused: boolean;
  focus: ReturnType<typeof vi.fn>;
  navigate: ReturnType<typeof vi.fn>;
}

function fakeWindow(path: string, { focused = false, controlled = true } = {}): FakeWindow {
  const window: FakeWindow = {
    url: `${origin}${path}`,
    focused,
    focus: vi.fn(() => Promise.resolve(window)),
    navigate: vi.fn((url: string) => {
      if (!controlled) return Promise.reject(new TypeError('not controlled'));
      window.url = url;
      return Promise.resolve(window);
    }),
  };
  return window;
}

type Listener = (event: Record<string, unknown>) => void;

function startWorker(windows: FakeWindow[] = []) {
  const listeners = new Map<string, Listener>();
  const scope = {
    location: new URL(`${origin}/sw.js`),
    URL,
    JSON,
    Object,
    addEventListener: (type: string, listener: Listener) => listeners.set(type, listener),
    registration: {
      showNotification: vi.fn(() => Promise.resolve()),
      pushManager: { subscribe: vi.fn() },
    },
    clients: {
      matchAll: vi.fn(() => Promise.resolve(windows)),
      openWindow: vi.fn(() => Promise.resolve(null)),
    },
    fetch: vi.fn(() => Promise.resolve(new Response('{}'))),
  };
  runInNewContext(source, Object.assign(scope, { self: scope }));

  /** Fires an event the way the browser does and waits for what it asked to wait for. */
  async function fire(type: string, fields: Record<string, unknown>) {
    const pending: Promise<unknown>[] = [];
    const listener = listeners.get(type);
    if (!listener) throw new Error(`no ${type} listener`);
    listener({ ...fields, waitUntil: (promise: Promise<unknown>) => pending.push(promise) });
    await Promise.all(pending);
  }

  const push = (text?: string) => fire('push', { data: text === undefined ? null : { text: () => text } });
  const shown = () => scope.registration.showNotification.mock.calls.map((call: unknown[]) => JSON.parse(JSON.stringify(call)) as unknown);
  const click = (data: unknown) => {
    const notification = { data, close: vi.fn() };
    return { notification, done: fire('notificationclick', { notification }) };
  };
  return { scope, fire, push, shown, click };
}

const expectedOptions = (body: string, url = '/main', tag = 'opening') => ({
  body,
  icon: '/icons/icon-192.png',
  badge: '/icons/badge-96.png',
  tag,
  renotify: false,
  lang: 'ko',
  data: { url },
});

describe('the worker’s push', () => {
  it('shows the server’s title and text, opening its path', async () => {
    const worker = startWorker();
    await worker.push(JSON.stringify({ title: '문이 열렸어요', body: '지금 단어를 골라보세요.', url: '/main', tag: 'opening' }));
    expect(worker.shown()).toEqual([['문이 열렸어요', expectedOptions('지금 단어를 골라보세요.')]]);
  });

  it('shows the catalogue’s words when the push carries nothing', async () => {
    const worker = startWorker();
    await worker.push();
    await worker.push('');
    await worker.push('{}');
    const fallback = [ko.bell.pushTitle, expectedOptions(ko.bell.pushBody)];
    expect(worker.shown()).toEqual([fallback, fallback, fallback]);
    expect(ko.bell.pushTitle).toBe(ko.app.name);
  });

  it('shows a text that is no JSON as it is', async () => {
    const worker = startWorker();
    await worker.push('오늘도 8시에 만나요');
    expect(worker.shown()).toEqual([[ko.bell.pushTitle, expectedOptions('오늘도 8시에 만나요')]]);
  });

  it.each(['https://evil.example/main', '//evil.example/main', 'javascript:alert(1)', '/\\evil.example', 'main', 42])(
    'opens /main rather than %j',
    async (url) => {
      const worker = startWorker();
      await worker.push(JSON.stringify({ title: 't', body: 'b', url }));
      expect(worker.shown()).toEqual([['t', expectedOptions('b')]]);
    },
  );

  it('keeps a path of the app with its query', async () => {
    const worker = startWorker();
    await worker.push(JSON.stringify({ title: 't', body: 'b', url: '/main?from=bell', tag: 'other' }));
    expect(worker.shown()).toEqual([['t', expectedOptions('b', '/main?from=bell', 'other')]]);
  });
});

describe('the worker’s notification click', () => {
  let windows: FakeWindow[];

  beforeEach(() => {
    windows = [];
  });

  it('opens the app when no window of it is open', async () => {
    const worker = startWorker(windows);
    const { notification, done } = worker.click({ url: '/main' });
    await done;
    expect(notification.close).toHaveBeenCalledOnce();
    expect(worker.scope.clients.openWindow).toHaveBeenCalledWith(`${origin}/main`);
  });

  it('brings an open window forward and takes it to the path', async () => {
    const other = fakeWindow('/chatpage');
    const focused = fakeWindow('/mypage', { focused: true });
    windows.push(other, focused);
    const worker = startWorker(windows);
    await worker.click({ url: '/main' }).done;
    expect(focused.focus).toHaveBeenCalledOnce();
    expect(focused.navigate).toHaveBeenCalledWith(`${origin}/main`);
    expect(other.focus).not.toHaveBeenCalled();
    expect(worker.scope.clients.openWindow).not.toHaveBeenCalled();
  });

  it('only brings forward a window already there', async () => {
    const window = fakeWindow('/main');
    windows.push(window);
    const worker = startWorker(windows);
    await worker.click({ url: '/main' }).done;
    expect(window.focus).toHaveBeenCalledOnce();
    expect(window.navigate).not.toHaveBeenCalled();
  });

  it('brings forward a window it may not navigate', async () => {
    const window = fakeWindow('/login', { controlled: false });
    windows.push(window);
    const worker = startWorker(windows);
    await worker.click({ url: '/main' }).done;
    expect(window.focus).toHaveBeenCalledOnce();
    expect(worker.scope.clients.openWindow).not.toHaveBeenCalled();
  });

  it.each([undefined, null, {}, { url: 'https://evil.example/' }, { url: '//evil.example/' }])('opens /main for data %j', async (data) => {
    const worker = startWorker(windows);
    await worker.click(data).done;
    expect(worker.scope.clients.openWindow).toHaveBeenCalledWith(`${origin}/main`);
  });
});

describe('the worker when the browser renews the subscription', () => {
  const subscription = (endpoint: string) => ({
    endpoint,
    options: { userVisibleOnly: true, applicationServerKey: new ArrayBuffer(65) },
    toJSON: () => ({ endpoint, keys: { p256dh: 'p', auth: 'a' } }),
  });

  function sent(worker: ReturnType<typeof startWorker>) {
    return worker.scope.fetch.mock.calls.map((call: unknown[]) => {
      const [path, init] = call as [string, { body: string }];
      return [path, JSON.parse(init.body)] as const;
    });
  }

  it('tells the server the new endpoint and forgets the old one', async () => {
    const worker = startWorker();
    await worker.fire('pushsubscriptionchange', { oldSubscription: subscription('https://push.example/old'), newSubscription: subscription('https://push.example/new') });
    expect(sent(worker)).toEqual([
      ['/api/push/subscribe', { endpoint: 'https://push.example/new', keys: { p256dh: 'p', auth: 'a' } }],
      ['/api/push/unsubscribe', { endpoint: 'https://push.example/old' }],
    ]);
  });

  it('subscribes again with the old options when the browser gave no new subscription', async () => {
    const worker = startWorker();
    const old = subscription('https://push.example/old');
    worker.scope.registration.pushManager.subscribe.mockResolvedValue(subscription('https://push.example/again'));
    await worker.fire('pushsubscriptionchange', { oldSubscription: old, newSubscription: null });
    expect(worker.scope.registration.pushManager.subscribe).toHaveBeenCalledWith(old.options);
    expect(sent(worker).map(([path]) => path)).toEqual(['/api/push/subscribe', '/api/push/unsubscribe']);
  });
});
