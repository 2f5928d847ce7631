import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  CLOSE_REPLACED,
  CONNECT_TIMEOUT_MS,
  reconnectDelay,
  SocketClient,
  socketUrl,
  type WebSocketLike,
} from './socket-client';

class FakeSocket implements WebSocketLike {
  readyState = 0;
  onopen: ((event: Event) => void) | null = null;
  onclose: ((event: CloseEvent) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;
  onmessage: ((event: MessageEvent) => void) | null = null;
  readonly sent: unknown[] = [];
  closed = false;

  constructor(readonly url: string) {}

  send(data: string) {
    this.sent.push(JSON.parse(data));
  }

  close() {
    this.closed = true;
    this.readyState = 3;
  }

  open() {
    this.readyState = 1;
    this.onopen?.(new Event('open'));
  }

  receive(event: string, data: unknown) {
    this.onmessage?.(new MessageEvent('message', { data: JSON.stringify({ event, data }) }));
  }

  drop(code?: number) {
    this.readyState = 3;
    this.onclose?.(new CloseEvent('close', { code }));
  }
}

const round = { isOpen: true, round: 5, remaining: 20, words: [], serverTime: 0 };

function setup(resume: { roomId: string; lastId?: string } | null = null) {
  const sockets: FakeSocket[] = [];
  const client = new SocketClient({
    url: () => 'ws://test/ws',
    create: (url) => {
      const socket = new FakeSocket(url);
      sockets.push(socket);
      return socket;
    },
    resumePoint: () => resume,
  });
  const latest = () => {
    const socket = sockets[sockets.length - 1];
    if (!socket) throw new Error('no socket yet');
    return socket;
  };
  return { client, sockets, latest };
}

describe('reconnectDelay', () => {
  it('waits 1 s, then doubles up to 5 s', () => {
    expect([0, 1, 2, 3, 4, 10].map(reconnectDelay)).toEqual([1000, 2000, 4000, 5000, 5000, 5000]);
  });
});

describe('socketUrl', () => {
  it('uses wss on https and ws otherwise, on the same host', () => {
    expect(socketUrl({ protocol: 'https:', host: 'telepathy.kr' })).toBe('wss://telepathy.kr/ws');
    expect(socketUrl({ protocol: 'http:', host: '127.0.0.1:8080' })).toBe('ws://127.0.0.1:8080/ws');
  });
});

describe('SocketClient', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('reconnects on the backoff schedule until a connection says hello', () => {
    const { client, sockets, latest } = setup();
    client.start();
    expect(client.getStatus()).toBe('connecting');
    latest().drop();
    expect(client.getStatus()).toBe('waiting');

    const waits: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      const before = sockets.length;
      let waited = 0;
      while (sockets.length === before) {
        vi.advanceTimersByTime(100);
        waited += 100;
      }
      waits.push(waited);
      latest().drop();
    }
    expect(waits).toEqual([1000, 2000, 4000, 5000, 5000]);

    // A healthy connection starts the schedule again.
    vi.advanceTimersByTime(5000);
    latest().open();
    latest().receive('hello', { userId: 1, round });
    latest().drop();
    const before = sockets.length;
    vi.advanceTimersByTime(999);
    expect(sockets.length).toBe(before);
    vi.advanceTimersByTime(1);
    expect(sockets.length).toBe(before + 1);
    client.stop();
  });

  it('gives up a connection that does not open within 20 s', () => {
    const { client, sockets } = setup();
    client.start();
    vi.advanceTimersByTime(CONNECT_TIMEOUT_MS - 1);
    expect(sockets).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(sockets[0]?.closed).toBe(true);
    expect(client.getStatus()).toBe('waiting');
    vi.advanceTimersByTime(1000);
    expect(sockets).toHaveLength(2);
    client.stop();
  });

  it('sends frames only while open, and resumes the stored chat after hello', () => {
    const { client, latest } = setup({ roomId: 'room-1', lastId: '1700000000000-3' });
    client.start();
    expect(client.send('getOnlineCount', {})).toBe(false);
    latest().open();
    expect(client.getStatus()).toBe('open');
    expect(client.send('typing', { roomId: 'room-1' })).toBe(true);
    latest().receive('hello', { userId: 1, roomId: 'room-1', round });
    expect(latest().sent).toEqual([
      { event: 'typing', data: { roomId: 'room-1' } },
      { event: 'resume', data: { roomId: 'room-1', lastId: '1700000000000-3' } },
    ]);
    client.stop();
  });

  it('asks for the resume again while the server cannot read the chat, and only then', () => {
    const { client, latest } = setup({ roomId: 'room-1', lastId: '1700000000000-3' });
    const resume = { event: 'resume', data: { roomId: 'room-1', lastId: '1700000000000-3' } };
    client.start();
    latest().open();
    latest().receive('hello', { userId: 1, roomId: 'room-1', round });
    latest().receive('error', { event: 'resume', code: 'UNAVAILABLE', message: '지금은 서비스 연결이 원활하지 않아요. 잠시 후 다시 시도해주세요.' });
    vi.advanceTimersByTime(999);
    expect(latest().sent).toEqual([resume]);
    vi.advanceTimersByTime(1);
    expect(latest().sent).toEqual([resume, resume]);

    latest().receive('error', { event: 'resume', code: 'INVALID_REQUEST', message: '요청 형식이 올바르지 않아요.' });
    latest().receive('error', { event: 'chatMessage', code: 'UNAVAILABLE', message: '지금은 서비스 연결이 원활하지 않아요. 잠시 후 다시 시도해주세요.' });
    vi.advanceTimersByTime(10_000);
    expect(latest().sent).toEqual([resume, resume]);

    // A connection that drops takes its pending try with it: the next hello resumes.
    latest().receive('error', { event: 'resume', code: 'UNAVAILABLE', message: '지금은 서비스 연결이 원활하지 않아요. 잠시 후 다시 시도해주세요.' });
    latest().drop();
    vi.advanceTimersByTime(1000);
    latest().open();
    expect(latest().sent).toEqual([]);
    latest().receive('hello', { userId: 1, roomId: 'room-1', round });
    expect(latest().sent).toEqual([resume]);
    client.stop();
  });

  it('delivers frames to their handlers and remembers the round and the online count', () => {
    const { client, latest } = setup();
    const counts: number[] = [];
    const off = client.on('onlineCount', (data) => counts.push(data.count));
    client.start();
    latest().open();
    latest().receive('hello', { userId: 1, round });
    expect(client.latest('round')).toEqual(round);
    latest().receive('onlineCount', { count: 3 });
    off();
    latest().receive('onlineCount', { count: 4 });
    expect(counts).toEqual([3]);
    expect(client.latest('onlineCount')).toEqual({ count: 4 });
    client.stop();
    expect(client.latest('onlineCount')).toBeUndefined();
  });

  it('waits to be woken after the server closed it for a newer socket of the account', () => {
    const { client, sockets, latest } = setup();
    client.start();
    latest().open();
    latest().receive('hello', { userId: 1, round });
    latest().drop(CLOSE_REPLACED);
    expect(client.getStatus()).toBe('replaced');
    vi.advanceTimersByTime(60_000);
    expect(sockets).toHaveLength(1);
    client.wake();
    expect(sockets).toHaveLength(2);
    expect(client.getStatus()).toBe('connecting');
    client.wake();
    expect(sockets).toHaveLength(2);
    client.stop();
    client.wake();
    expect(sockets).toHaveLength(2);
  });

  it('stops reconnecting once stopped', () => {
    const { client, sockets, latest } = setup();
    client.start();
    latest().open();
    client.stop();
    expect(client.getStatus()).toBe('idle');
    expect(sockets[0]?.closed).toBe(true);
    vi.advanceTimersByTime(60_000);
    expect(sockets).toHaveLength(1);
  });
});
