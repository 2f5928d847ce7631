import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { toast } from 'sonner';
import { afterEach, beforeEach, describe, expect, it, vi, type Mock } from 'vitest';
import { ko } from '@/i18n/ko';
import { jsonResponse, renderRoute } from '@/test/render';
import { BellCard } from './bell-card';

vi.mock('sonner', () => ({ toast: Object.assign(vi.fn(), { success: vi.fn(), error: vi.fn() }) }));

const install = { canPrompt: false, standalone: false, ios: false };
vi.mock('@/lib/install', () => ({ useInstall: () => install }));

/** The server's VAPID key: an uncompressed P-256 point (65 bytes starting with 4). */
const keyBytes = Uint8Array.from({ length: 65 }, (_, index) => (index === 0 ? 4 : index));
const publicKey = Buffer.from(keyBytes).toString('base64url');
const endpoint = 'https://push.example/send/device-1';
const keys = { p256dh: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM', auth: 'tBHItJI5svbpez7KI4CCXg' };

/** Everything the card asked for, in order: the browser's side and the server's. */
let steps: string[];
let fetchMock: Mock<(request: Request) => Promise<Response>>;
let server: { consent: boolean; devices: number; subscribe: () => Response };
/** The next opening's bell as the server says it will read. */
const preview = { title: '텔레파시가 문을 열었어요', body: '첫 라운드 단어: 봄, 여름, 가을, 겨울\n지금 들어오면 같은 단어를 고른 사람과 이야기할 수 있어요.' };

class FakeSubscription {
  readonly endpoint = endpoint;
  readonly options: PushSubscriptionOptions;
  readonly unsubscribe = vi.fn(() => {
    steps.push('unsubscribe');
    pushManager.current = null;
    return Promise.resolve(true);
  });

  constructor(key: Uint8Array) {
    this.options = { userVisibleOnly: true, applicationServerKey: key.slice().buffer };
  }

  toJSON() {
    return { endpoint, expirationTime: null, keys };
  }
}

const pushManager = {
  current: null as FakeSubscription | null,
  getSubscription: vi.fn(() => Promise.resolve(pushManager.current)),
  subscribe: vi.fn((options: PushSubscriptionOptionsInit) => {
    steps.push('subscribe');
    pushManager.current = new FakeSubscription(options.applicationServerKey as Uint8Array);
    return Promise.resolve(pushManager.current);
  }),
};

const notification = {
  permission: 'default' as NotificationPermission,
  requestPermission: vi.fn((): Promise<NotificationPermission> => {
    steps.push('requestPermission');
    notification.permission = 'granted';
    return Promise.resolve('granted');
  }),
};

function givePushSupport() {
  const registration = { active: {}, pushManager };
  Object.defineProperty(navigator, 'serviceWorker', {
    configurable: true,
    value: { getRegistration: () => Promise.resolve(registration), ready: Promise.resolve(registration) },
  });
  vi.stubGlobal('PushManager', function PushManager() {
    // Only its presence counts.
  });
  vi.stubGlobal('Notification', notification);
}

beforeEach(() => {
  steps = [];
  server = {
    consent: false,
    devices: 0,
    subscribe: () => jsonResponse({ success: true, message: '저녁 8시에 알려드릴게요.' }),
  };
  Object.assign(install, { canPrompt: false, standalone: false, ios: false });
  pushManager.current = null;
  notification.permission = 'default';
  fetchMock = vi.fn<(request: Request) => Promise<Response>>(async (request) => {
    const path = new URL(request.url).pathname;
    if (request.method === 'POST') steps.push(`POST ${path} ${JSON.stringify(await request.json())}`);
    switch (path) {
      case '/api/auth/check':
        return jsonResponse({ loggedIn: true });
      case '/api/app-config':
        return jsonResponse({ demo: false, business: {}, megaphonePacks: [], pushPublicKey: publicKey });
      case '/api/push':
        return jsonResponse({ success: true, consent: server.consent, devices: server.devices, preview });
      case '/api/push/consent': {
        const agree = steps[steps.length - 1]?.endsWith('{"agree":true}') === true;
        server.consent = agree;
        server.devices = 0;
        return jsonResponse({
          success: true,
          message: agree ? '알림 수신에 동의했어요.' : '알림 수신 동의를 철회했어요. 모든 기기에서 알림이 꺼졌어요.',
          consent: agree,
          devices: 0,
        });
      }
      case '/api/push/subscribe':
        return server.subscribe();
      case '/api/push/unsubscribe':
        return jsonResponse({ success: true, message: '이 기기에서 알림을 껐어요.' });
      default:
        return jsonResponse({ success: false, code: 'NOT_FOUND', message: '없음' }, 404);
    }
  });
  vi.stubGlobal('fetch', fetchMock);
  vi.mocked(toast.success).mockClear();
  vi.mocked(toast.error).mockClear();
  pushManager.subscribe.mockClear();
  notification.requestPermission.mockClear();
});

afterEach(() => {
  vi.unstubAllGlobals();
  Reflect.deleteProperty(navigator, 'serviceWorker');
});

function renderCard() {
  const user = userEvent.setup();
  renderRoute(<BellCard />, { path: '/mypage' });
  const bellSwitch = screen.getByRole('switch', { name: ko.bell.title });
  return { user, bellSwitch };
}

/** The switch once the card has learned where the device and the server stand. */
async function readySwitch() {
  const view = renderCard();
  await waitFor(() => {
    expect(view.bellSwitch).not.toHaveAttribute('aria-busy');
  });
  return view;
}

describe('BellCard where the bell cannot ring', () => {
  it('says so in a browser without push', async () => {
    const { bellSwitch } = renderCard();
    expect(bellSwitch).toBeDisabled();
    expect(bellSwitch).toHaveAttribute('aria-checked', 'false');
    expect(bellSwitch).toHaveAccessibleDescription(`${ko.bell.text} ${ko.bell.unsupported}`);
    await screen.findByText(ko.bell.unsupported);
    expect(steps).toEqual([]);
  });

  it('sends an iPhone’s Safari tab to the app on the home screen', () => {
    givePushSupport();
    Object.assign(install, { ios: true, standalone: false });
    const { bellSwitch } = renderCard();
    expect(bellSwitch).toBeDisabled();
    expect(screen.getByText(ko.bell.iosBrowser)).toBeInTheDocument();
  });

  it('rings in the iPhone app added to the home screen', async () => {
    givePushSupport();
    Object.assign(install, { ios: true, standalone: true });
    const { bellSwitch } = await readySwitch();
    expect(bellSwitch).toBeEnabled();
    expect(screen.queryByText(ko.bell.iosBrowser)).not.toBeInTheDocument();
  });

  it('tells how to allow notifications again once they are blocked', async () => {
    givePushSupport();
    notification.permission = 'denied';
    const { bellSwitch } = renderCard();
    expect(await screen.findByText(ko.bell.denied)).toBeInTheDocument();
    expect(bellSwitch).toBeDisabled();
  });
});

describe('BellCard turning the bell on', () => {
  beforeEach(givePushSupport);

  it('asks for the consent first, then the permission, the server and the push service in turn', async () => {
    const { user, bellSwitch } = await readySwitch();
    expect(bellSwitch).toHaveAttribute('aria-checked', 'false');
    await user.click(bellSwitch);

    const dialog = screen.getByRole('alertdialog', { name: ko.bell.consentTitle });
    expect(dialog).toHaveAccessibleDescription(expect.stringContaining(ko.bell.consentText));
    expect(within(dialog).getByRole('link', { name: new RegExp(ko.bell.consentTerms) })).toHaveAttribute('href', '/terms/notification-consent');
    expect(steps).toEqual([]);
    await user.click(within(dialog).getByRole('button', { name: ko.bell.consentConfirm }));

    await waitFor(() => {
      expect(bellSwitch).toHaveAttribute('aria-checked', 'true');
    });
    expect(steps).toEqual([
      'requestPermission',
      'POST /api/push/consent {"agree":true}',
      'subscribe',
      `POST /api/push/subscribe ${JSON.stringify({ endpoint, keys })}`,
    ]);
    const options = pushManager.subscribe.mock.calls[0]?.[0];
    expect(options?.userVisibleOnly).toBe(true);
    expect(options?.applicationServerKey).toEqual(keyBytes);
    expect(toast.success).toHaveBeenCalledWith('저녁 8시에 알려드릴게요.');
    expect(screen.getByRole('button', { name: ko.bell.withdraw })).toBeInTheDocument();
  });

  it('does nothing when the consent is declined', async () => {
    const { user, bellSwitch } = await readySwitch();
    await user.click(bellSwitch);
    await user.click(screen.getByRole('button', { name: ko.app.cancel }));
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    expect(steps).toEqual([]);
    expect(bellSwitch).toHaveAttribute('aria-checked', 'false');
  });

  it('skips the question when the consent was given (at sign-up, or before)', async () => {
    server.consent = true;
    server.devices = 1;
    const { user, bellSwitch } = await readySwitch();
    await user.click(bellSwitch);
    await waitFor(() => {
      expect(bellSwitch).toHaveAttribute('aria-checked', 'true');
    });
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    expect(steps).toEqual(['requestPermission', 'subscribe', `POST /api/push/subscribe ${JSON.stringify({ endpoint, keys })}`]);
  });

  it('stays off and says why when the browser’s permission is refused', async () => {
    server.consent = true;
    notification.requestPermission.mockImplementationOnce(() => {
      steps.push('requestPermission');
      notification.permission = 'denied';
      return Promise.resolve('denied');
    });
    const { user, bellSwitch } = await readySwitch();
    await user.click(bellSwitch);
    await waitFor(() => {
      expect(toast.error).toHaveBeenCalledWith(ko.bell.permissionBlocked);
    });
    expect(steps).toEqual(['requestPermission']);
    expect(bellSwitch).toHaveAttribute('aria-checked', 'false');
    expect(await screen.findByText(ko.bell.denied)).toBeInTheDocument();
  });

  it('stays off when the permission prompt is only closed', async () => {
    server.consent = true;
    notification.requestPermission.mockImplementationOnce(() => Promise.resolve('default'));
    const { user, bellSwitch } = await readySwitch();
    await user.click(bellSwitch);
    await waitFor(() => {
      expect(toast.error).toHaveBeenCalledWith(ko.bell.permissionDismissed);
    });
    expect(pushManager.subscribe).not.toHaveBeenCalled();
    expect(bellSwitch).toBeEnabled();
  });

  it('stays off when the push service refuses the subscription', async () => {
    server.consent = true;
    pushManager.subscribe.mockImplementationOnce(() => Promise.reject(new DOMException('Registration failed', 'AbortError')));
    const { user, bellSwitch } = await readySwitch();
    await user.click(bellSwitch);
    await waitFor(() => {
      expect(toast.error).toHaveBeenCalledWith(ko.bell.subscribeFailed);
    });
    expect(bellSwitch).toHaveAttribute('aria-checked', 'false');
    expect(steps.some((step) => step.startsWith('POST /api/push/subscribe'))).toBe(false);
  });

  it('shows the server’s refusal and drops the subscription the server did not take', async () => {
    server.consent = true;
    server.subscribe = () => jsonResponse({ success: false, code: 'PUSH_CONSENT_REQUIRED', message: '알림 수신 동의가 필요해요.' }, 403);
    const { user, bellSwitch } = await readySwitch();
    await user.click(bellSwitch);
    await waitFor(() => {
      expect(toast.error).toHaveBeenCalledWith('알림 수신 동의가 필요해요.');
    });
    expect(steps.slice(-2)).toEqual([`POST /api/push/subscribe ${JSON.stringify({ endpoint, keys })}`, 'unsubscribe']);
    expect(pushManager.current).toBeNull();
    expect(bellSwitch).toHaveAttribute('aria-checked', 'false');
  });

  it('keeps the switch busy while a step runs', async () => {
    server.consent = true;
    let answer: (value: NotificationPermission) => void = () => undefined;
    notification.requestPermission.mockImplementationOnce(
      () =>
        new Promise((resolve) => {
          answer = resolve;
        }),
    );
    const { user, bellSwitch } = await readySwitch();
    await user.click(bellSwitch);
    expect(bellSwitch).toHaveAttribute('aria-busy', 'true');
    expect(bellSwitch).toHaveAttribute('aria-disabled', 'true');
    await user.click(bellSwitch);
    expect(notification.requestPermission).toHaveBeenCalledOnce();
    notification.permission = 'granted';
    answer('granted');
    await waitFor(() => {
      expect(bellSwitch).toHaveAttribute('aria-checked', 'true');
    });
    expect(bellSwitch).not.toHaveAttribute('aria-busy');
  });
});

describe('BellCard with the bell on', () => {
  beforeEach(() => {
    givePushSupport();
    notification.permission = 'granted';
    pushManager.current = new FakeSubscription(keyBytes);
    server.consent = true;
    server.devices = 1;
  });

  it('shows it on, and tells the server this device again', async () => {
    const { bellSwitch } = await readySwitch();
    expect(bellSwitch).toHaveAttribute('aria-checked', 'true');
    await waitFor(() => {
      expect(steps).toEqual([`POST /api/push/subscribe ${JSON.stringify({ endpoint, keys })}`]);
    });
    expect(toast.success).not.toHaveBeenCalled();
  });

  it('turns it off on this device and tells the server', async () => {
    const { user, bellSwitch } = await readySwitch();
    await waitFor(() => {
      expect(steps).toHaveLength(1);
    });
    await user.click(bellSwitch);
    await waitFor(() => {
      expect(bellSwitch).toHaveAttribute('aria-checked', 'false');
    });
    expect(steps.slice(1)).toEqual(['unsubscribe', `POST /api/push/unsubscribe ${JSON.stringify({ endpoint })}`]);
    expect(toast.success).toHaveBeenCalledWith('이 기기에서 알림을 껐어요.');
    // The consent stays: the switch turns it back on without asking.
    expect(screen.getByRole('button', { name: ko.bell.withdraw })).toBeInTheDocument();
  });

  it('withdraws the consent after a confirmation, and silences this device too', async () => {
    const { user, bellSwitch } = await readySwitch();
    await waitFor(() => {
      expect(steps).toHaveLength(1);
    });
    await user.click(screen.getByRole('button', { name: ko.bell.withdraw }));
    const dialog = screen.getByRole('alertdialog', { name: ko.bell.withdrawTitle });
    expect(dialog).toHaveAccessibleDescription(ko.bell.withdrawText);
    await user.click(within(dialog).getByRole('button', { name: ko.bell.withdrawConfirm }));
    await waitFor(() => {
      expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    });
    expect(steps.slice(1)).toEqual(['POST /api/push/consent {"agree":false}', 'unsubscribe']);
    expect(toast.success).toHaveBeenCalledWith('알림 수신 동의를 철회했어요. 모든 기기에서 알림이 꺼졌어요.');
    expect(bellSwitch).toHaveAttribute('aria-checked', 'false');
    expect(screen.queryByRole('button', { name: ko.bell.withdraw })).not.toBeInTheDocument();
  });

  it('shows what the push will say, in the server’s words, before it is turned on', async () => {
    await readySwitch();
    const shown = await screen.findByRole('figure', { name: ko.bell.previewLabel });
    expect(shown).toHaveTextContent(preview.title);
    expect(shown).toHaveTextContent('첫 라운드 단어: 봄, 여름, 가을, 겨울');
    expect(shown).toHaveTextContent('지금 들어오면 같은 단어를 고른 사람과 이야기할 수 있어요.');
  });

  it('counts the devices when it rings on more than this one', async () => {
    server.devices = 3;
    await readySwitch();
    expect(await screen.findByText(ko.bell.devices(3))).toBeInTheDocument();
  });

  it('does not count a single device', async () => {
    await readySwitch();
    await waitFor(() => {
      expect(steps).toHaveLength(1);
    });
    expect(screen.queryByText(ko.bell.devices(1))).not.toBeInTheDocument();
  });

  it('drops a subscription left behind after the consent was withdrawn elsewhere', async () => {
    server.consent = false;
    server.devices = 0;
    const { bellSwitch } = await readySwitch();
    await waitFor(() => {
      expect(steps).toEqual(['unsubscribe']);
    });
    expect(bellSwitch).toHaveAttribute('aria-checked', 'false');
  });
});
