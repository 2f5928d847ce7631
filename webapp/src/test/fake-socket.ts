import { act } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { tabSocket } from '@/lib/socket';
import type { WebSocketLike } from '@/lib/socket-client';

/**
 * A stand-in for the browser's WebSocket: install it with `vi.stubGlobal('WebSocket',
 * FakeWebSocket)` and the tab's socket client opens these; a test plays the server with
 * `open()` and `receive()`.
 */
export class FakeWebSocket implements WebSocketLike {
  static instances: FakeWebSocket[] = [];

  static latest(): FakeWebSocket {
    const socket = FakeWebSocket.instances[FakeWebSocket.instances.length - 1];
    if (!socket) throw new Error('no socket was opened');
    return socket;
  }

  readyState = 0;
  onopen: ((event: Event) => void) | null = null;
  onclose: ((event: CloseEvent) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;
  onmessage: ((event: MessageEvent) => void) | null = null;
  readonly sent: { event: string; data: unknown }[] = [];
  closed = false;

  constructor(readonly url: string) {
    FakeWebSocket.instances.push(this);
  }

  send(data: string) {
    this.sent.push(JSON.parse(data) as { event: string; data: unknown });
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

  /** The server closes the connection. */
  drop() {
    this.readyState = 3;
    this.onclose?.(new CloseEvent('close'));
  }
}

/** Starts the tab's socket and opens the connection it makes, as the server would: the test's end of it. */
export function connectTabSocket(): FakeWebSocket {
  tabSocket().start();
  const socket = FakeWebSocket.latest();
  act(() => {
    socket.open();
  });
  return socket;
}

/**
 * For each test of the calling file: the tab's socket opens `FakeWebSocket`s (none made
 * yet), and is stopped after the test.
 */
export function fakeTabSocketPerTest(): void {
  beforeEach(() => {
    vi.stubGlobal('WebSocket', FakeWebSocket);
    FakeWebSocket.instances = [];
  });
  afterEach(() => {
    tabSocket().stop();
    vi.unstubAllGlobals();
  });
}
