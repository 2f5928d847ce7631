import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { toast } from 'sonner';
import { afterEach, beforeEach, describe, expect, it, vi, type Mock } from 'vitest';
import { limits } from '@/config/limits';
import { ko } from '@/i18n/ko';
import { readLocal, removeLocal, storageKeys, writeLocal } from '@/lib/storage';
import { connectTabSocket, fakeTabSocketPerTest } from '@/test/fake-socket';
import { jsonResponse, renderRoute } from '@/test/render';
import { MegaphoneBanner } from './megaphone-banner';
import { MegaphoneButton } from './megaphone-button';

vi.mock('sonner', () => ({ toast: Object.assign(vi.fn(), { success: vi.fn(), error: vi.fn() }) }));

const profile = { success: true, user_id: 7, id: 7, userId: 7, username: 'alice_01', nickname: '달빛' };
const packs = [
  { item: 'megaphone_1', count: 1, price: 500 },
  { item: 'megaphone_5', count: 5, price: 2000 },
  { item: 'megaphone_10', count: 10, price: 3500 },
];

let fetchMock: Mock<(request: Request) => Promise<Response>>;
let owned: number;
let calls: { path: string; body: unknown }[];

fakeTabSocketPerTest();

beforeEach(() => {
  owned = 0;
  calls = [];
  fetchMock = vi.fn<(request: Request) => Promise<Response>>(async (request) => {
    const path = new URL(request.url).pathname;
    const body: unknown = request.method === 'POST' ? await request.json() : undefined;
    calls.push({ path, body });
    switch (path) {
      case '/api/auth/check':
        return jsonResponse({ loggedIn: true });
      case '/api/app-config':
        return jsonResponse({ demo: true, business: {}, megaphonePacks: packs });
      case '/api/user/megaphone-count':
        return jsonResponse({ success: true, count: owned, message: '' });
      case '/api/payments/prepare':
        return jsonResponse({
          success: true,
          merchantUid: 'mega_1',
          item: 'megaphone_5',
          amount: 2000,
          name: '텔레파시 확성기 5개',
          megaphones: 5,
          impCode: '',
          pg: '',
          demo: true,
        });
      case '/api/payments/demo-pay':
        return jsonResponse({ success: true, impUid: 'imp_demo_2000_mega_1', merchantUid: 'mega_1' });
      case '/api/payments/verify':
        owned = 5;
        return jsonResponse({ success: true, message: '확성기가 지급되었어요.', count: 5 });
      default:
        return jsonResponse({ success: false, code: 'NOT_FOUND', message: '없음' }, 404);
    }
  });
  vi.stubGlobal('fetch', fetchMock);
  vi.mocked(toast.success).mockClear();
  vi.mocked(toast.error).mockClear();
  removeLocal(storageKeys.seenMegaphoneIntro);
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

const connect = connectTabSocket;

describe('MegaphoneButton', () => {
  it('introduces megaphones once, then offers the packs to a user who has none', async () => {
    const user = userEvent.setup();
    renderRoute(<MegaphoneButton profile={profile} />);
    await user.click(screen.getByRole('button', { name: ko.megaphone.buttonWithCount(0) }));
    expect(screen.getByRole('dialog', { name: ko.megaphone.introTitle })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: ko.megaphone.introConfirm }));
    expect(readLocal(storageKeys.seenMegaphoneIntro)).toBe('true');
    expect(screen.getByRole('dialog', { name: ko.megaphone.buyTitle })).toBeInTheDocument();
    expect(await screen.findByText(ko.megaphone.price(3500))).toBeInTheDocument();
    expect(screen.getByText(ko.megaphone.pack(5))).toBeInTheDocument();
    expect(screen.getByText(ko.megaphone.perUnit(400))).toBeInTheDocument();
  });

  it('buys a pack through the demo checkout and shows the new count', async () => {
    writeLocal(storageKeys.seenMegaphoneIntro, 'true');
    const user = userEvent.setup();
    renderRoute(<MegaphoneButton profile={profile} />);
    await user.click(screen.getByRole('button', { name: ko.megaphone.buttonWithCount(0) }));
    await screen.findByText(ko.megaphone.pack(5));
    const [, five] = screen.getAllByRole('button', { name: ko.megaphone.buy });
    if (!five) throw new Error('no pack of five');
    await user.click(five);
    const checkout = await screen.findByRole('alertdialog', { name: ko.megaphone.demoTitle });
    expect(checkout).toHaveTextContent('확성기 5개를 2,000원에');
    await user.click(screen.getByRole('button', { name: ko.megaphone.demoPay }));
    await waitFor(() => {
      expect(toast.success).toHaveBeenCalledWith(ko.megaphone.granted(5));
    });
    expect(calls.find((c) => c.path === '/api/payments/verify')?.body).toEqual({
      imp_uid: 'imp_demo_2000_mega_1',
      merchant_uid: 'mega_1',
      item: 'megaphone_5',
    });
    // With megaphones now, the modal turns to writing one.
    expect(await screen.findByLabelText(ko.megaphone.composeLabel)).toBeInTheDocument();
    expect(screen.getByRole('dialog', { name: ko.megaphone.title })).toHaveTextContent(ko.megaphone.owned(5));
  });

  it('tells a cancelled demo checkout and grants nothing', async () => {
    writeLocal(storageKeys.seenMegaphoneIntro, 'true');
    const user = userEvent.setup();
    renderRoute(<MegaphoneButton profile={profile} />);
    await user.click(screen.getByRole('button', { name: ko.megaphone.buttonWithCount(0) }));
    await screen.findByText(ko.megaphone.pack(1));
    const [one] = screen.getAllByRole('button', { name: ko.megaphone.buy });
    if (!one) throw new Error('no pack of one');
    await user.click(one);
    await user.click(await screen.findByRole('button', { name: ko.megaphone.cancel }));
    expect(toast.error).toHaveBeenCalledWith(ko.megaphone.payCancelled);
    expect(calls.some((c) => c.path === '/api/payments/verify')).toBe(false);
  });

  it('sends a trimmed megaphone, refuses a blank one, and closes when it went out', async () => {
    owned = 2;
    writeLocal(storageKeys.seenMegaphoneIntro, 'true');
    const socket = connect();
    const user = userEvent.setup();
    renderRoute(<MegaphoneButton profile={profile} />);
    await user.click(await screen.findByRole('button', { name: ko.megaphone.buttonWithCount(2) }));
    const input = screen.getByLabelText(ko.megaphone.composeLabel);
    await user.type(input, '   ');
    await user.click(screen.getByRole('button', { name: ko.megaphone.send }));
    expect(toast.error).toHaveBeenCalledWith(ko.megaphone.empty);
    expect(socket.sent.filter((f) => f.event === 'megaphone:send')).toHaveLength(0);

    // Over the limit: the counter turns red, the field says why, nothing is sent.
    await user.type(input, '가'.repeat(21));
    const over = screen.getByText(ko.megaphone.counter(21, limits.megaphoneMaxLength));
    expect(over).toHaveAttribute('data-over', 'true');
    expect(screen.getByText(ko.megaphone.tooLong)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: ko.megaphone.send }));
    expect(socket.sent.filter((f) => f.event === 'megaphone:send')).toHaveLength(0);
    await user.clear(input);

    await user.type(input, ' 다들 안녕 ');
    const counter = screen.getByText(ko.megaphone.counter(5, limits.megaphoneMaxLength));
    expect(counter).not.toHaveAttribute('data-over');
    await user.click(screen.getByRole('button', { name: ko.megaphone.send }));
    expect(socket.sent.filter((f) => f.event === 'megaphone:send')).toEqual([
      { event: 'megaphone:send', data: { message: '다들 안녕', userId: 7 } },
    ]);
    act(() => {
      socket.receive('megaphoneSent', { id: 1, remaining: 1, message: '확성기를 보냈어요.' });
    });
    expect(toast.success).toHaveBeenCalledWith('확성기를 보냈어요.');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });
});

describe('MegaphoneButton refusals', () => {
  it('shows a refused phone number under the field, in the server’s words, until the text changes', async () => {
    owned = 2;
    writeLocal(storageKeys.seenMegaphoneIntro, 'true');
    const socket = connect();
    const user = userEvent.setup();
    renderRoute(<MegaphoneButton profile={profile} />);
    await user.click(await screen.findByRole('button', { name: ko.megaphone.buttonWithCount(2) }));
    const input = screen.getByLabelText(ko.megaphone.composeLabel);
    await user.type(input, '010-1234-5678 연락줘');
    await user.click(screen.getByRole('button', { name: ko.megaphone.send }));
    const refusal = '확성기에는 전화번호 같은 연락처나 링크를 담을 수 없어요.';
    act(() => {
      socket.receive('error', { event: 'megaphone:send', code: 'MEGAPHONE_CONTACT', message: refusal });
    });
    expect(input).toHaveAccessibleDescription(refusal);
    expect(input).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByRole('button', { name: ko.megaphone.send })).toBeEnabled();
    await user.type(input, '!');
    expect(input).not.toHaveAttribute('aria-invalid');
  });
});

describe('MegaphoneBanner', () => {
  const SHOWN = 5000;
  const megaphone = (id: number, nickname: string, message: string, waitMs = 0) => ({ id, nickname, message, sentAt: id, waitMs, showMs: SHOWN });

  it('shows each megaphone alone for its five seconds, at its turn', () => {
    vi.useFakeTimers();
    const socket = connect();
    renderRoute(<MegaphoneBanner />);
    act(() => {
      socket.receive('megaphone', megaphone(1, '별빛', '첫 번째'));
      socket.receive('megaphone', megaphone(2, '달빛', '두 번째', 5000));
      socket.receive('megaphone', megaphone(1, '별빛', '첫 번째'));
    });
    act(() => {
      vi.advanceTimersByTime(0);
    });
    expect(screen.getByText('첫 번째')).toBeInTheDocument();
    expect(screen.getByText(ko.megaphone.from('별빛'))).toBeInTheDocument();
    expect(screen.queryByText('두 번째')).not.toBeInTheDocument();
    act(() => {
      vi.advanceTimersByTime(SHOWN);
    });
    act(() => {
      vi.advanceTimersByTime(0);
    });
    expect(screen.queryByText('첫 번째')).not.toBeInTheDocument();
    expect(screen.getByText('두 번째')).toBeInTheDocument();
    act(() => {
      vi.advanceTimersByTime(SHOWN);
    });
    expect(screen.queryByText('두 번째')).not.toBeInTheDocument();
    expect(screen.queryByText('첫 번째')).not.toBeInTheDocument();
  });

  it('waits for a turn the server gave later, even with nothing on screen', () => {
    vi.useFakeTimers();
    const socket = connect();
    renderRoute(<MegaphoneBanner />);
    act(() => {
      socket.receive('megaphone', megaphone(7, '해님', '곧 나와요', 3000));
    });
    act(() => {
      vi.advanceTimersByTime(2900);
    });
    expect(screen.queryByText('곧 나와요')).not.toBeInTheDocument();
    act(() => {
      vi.advanceTimersByTime(100);
    });
    expect(screen.getByText('곧 나와요')).toBeInTheDocument();
    act(() => {
      vi.advanceTimersByTime(SHOWN);
    });
    expect(screen.queryByText('곧 나와요')).not.toBeInTheDocument();
  });

  it('drops a megaphone an operator hid, shown or waiting', () => {
    vi.useFakeTimers();
    const socket = connect();
    renderRoute(<MegaphoneBanner />);
    act(() => {
      socket.receive('megaphone', megaphone(1, '별빛', '광고 보러 오세요'));
      socket.receive('megaphone', megaphone(2, '달빛', '안녕', 5000));
      socket.receive('megaphone', megaphone(3, '해님', '또 광고', 10000));
    });
    act(() => {
      vi.advanceTimersByTime(1000);
    });
    expect(screen.getByText('광고 보러 오세요')).toBeInTheDocument();
    act(() => {
      socket.receive('megaphoneHidden', { id: 1 });
      socket.receive('megaphoneHidden', { id: 3 });
    });
    expect(screen.queryByText('광고 보러 오세요')).not.toBeInTheDocument();
    // The next keeps its own turn.
    act(() => {
      vi.advanceTimersByTime(3999);
    });
    expect(screen.queryByText('안녕')).not.toBeInTheDocument();
    act(() => {
      vi.advanceTimersByTime(1);
    });
    expect(screen.getByText('안녕')).toBeInTheDocument();
    act(() => {
      vi.advanceTimersByTime(10000);
    });
    expect(screen.queryByText('또 광고')).not.toBeInTheDocument();
  });
});
