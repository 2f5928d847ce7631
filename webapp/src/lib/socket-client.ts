import type { ClientEvents, ServerEvent, ServerEvents } from '@/api/realtime';
import type { Schemas } from '@/api/client';

/** The first reconnect waits this long; each further try doubles it, up to the maximum. */
export const RECONNECT_BASE_MS = 1000;
export const RECONNECT_MAX_MS = 5000;
/** A connection not open after this long is given up and tried again. */
export const CONNECT_TIMEOUT_MS = 20_000;
/**
 * The server's close code for the account's oldest socket when a newer one passed the sockets an
 * account may hold: reconnecting by itself would close another tab, which would do the same.
 */
export const CLOSE_REPLACED = 4001;

/** The wait before reconnect try number `attempt` (0 for the first): 1 s, 2 s, 4 s, then 5 s. */
export function reconnectDelay(attempt: number): number {
  return Math.min(RECONNECT_MAX_MS, RECONNECT_BASE_MS * 2 ** Math.max(0, attempt));
}

/**
 * idle: not started (logged out); connecting: a connection is being opened; open: frames flow;
 * waiting: the last connection dropped and the next try is scheduled; replaced: the server closed
 * it for a newer socket of the account (another tab or device), and it waits for `wake`.
 */
export type SocketStatus = 'idle' | 'connecting' | 'open' | 'waiting' | 'replaced';

/** The part of the browser's WebSocket the client uses, so tests can stand in for it. */
export interface WebSocketLike {
  readonly readyState: number;
  onopen: ((event: Event) => void) | null;
  onclose: ((event: CloseEvent) => void) | null;
  onerror: ((event: Event) => void) | null;
  onmessage: ((event: MessageEvent) => void) | null;
  send: (data: string) => void;
  close: (code?: number, reason?: string) => void;
}

const OPEN = 1;

/** The last payload of these events is kept, for screens that mount after it arrived. */
type RememberedEvent = 'hello' | 'round' | 'onlineCount';

export interface SocketClientOptions {
  /** The address, read at each connection. */
  url: () => string;
  create?: (url: string) => WebSocketLike;
  /** The room to resume after `hello`, with the last message id already shown; null when none. */
  resumePoint?: () => Schemas['Resume'] | null;
}

type Handler = (data: unknown) => void;

/**
 * One WebSocket to the server, kept open while started: frames are `{event, data}` JSON, a lost
 * connection is retried after reconnectDelay, and after every `hello` the chat in progress (if
 * any) is resumed so messages missed while away arrive.
 */
export class SocketClient {
  private readonly options: SocketClientOptions;
  private socket: WebSocketLike | null = null;
  private started = false;
  private attempt = 0;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private connectTimer: ReturnType<typeof setTimeout> | null = null;
  private resumeTimer: ReturnType<typeof setTimeout> | null = null;
  private status: SocketStatus = 'idle';
  private readonly handlers = new Map<string, Set<Handler>>();
  private readonly statusListeners = new Set<() => void>();
  private readonly latestFrames = new Map<RememberedEvent, unknown>();
  private connections = 0;

  constructor(options: SocketClientOptions) {
    this.options = options;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.connect();
  }

  /** Closes the connection and stops reconnecting; what was remembered is forgotten. */
  stop(): void {
    this.started = false;
    this.clearTimers();
    const socket = this.socket;
    this.socket = null;
    if (socket) {
      detach(socket);
      socket.close(1000, 'stop');
    }
    this.attempt = 0;
    this.latestFrames.clear();
    this.setStatus('idle');
  }

  getStatus = (): SocketStatus => this.status;

  subscribeStatus = (listener: () => void): (() => void) => {
    this.statusListeners.add(listener);
    return () => {
      this.statusListeners.delete(listener);
    };
  };

  /** Connects again after the server closed the connection for a newer one; nothing otherwise. */
  wake(): void {
    if (!this.started || this.status !== 'replaced') return;
    this.attempt = 0;
    this.connect();
  }

  /** Counts opened connections, so a caller can tell whether something was sent on this one. */
  connectionId(): number {
    return this.connections;
  }

  /** Sends a frame if the connection is open; false when it is not (nothing is queued). */
  send<E extends keyof ClientEvents>(event: E, data: ClientEvents[E]): boolean {
    const socket = this.socket;
    if (!socket || socket.readyState !== OPEN || this.status !== 'open') return false;
    socket.send(JSON.stringify({ event, data }));
    return true;
  }

  on<E extends ServerEvent>(event: E, handler: (data: ServerEvents[E]) => void): () => void {
    const wrapped: Handler = (data) => {
      handler(data as ServerEvents[E]);
    };
    let set = this.handlers.get(event);
    if (!set) {
      set = new Set();
      this.handlers.set(event, set);
    }
    set.add(wrapped);
    return () => {
      set.delete(wrapped);
    };
  }

  /** The last `hello`, `round` (a hello's round counts) or `onlineCount` of this connection's life. */
  latest<E extends RememberedEvent>(event: E): ServerEvents[E] | undefined {
    return this.latestFrames.get(event) as ServerEvents[E] | undefined;
  }

  private connect(): void {
    if (!this.started) return;
    this.clearTimers();
    this.setStatus('connecting');
    const create = this.options.create ?? ((url: string) => new WebSocket(url));
    let socket: WebSocketLike;
    try {
      socket = create(this.options.url());
    } catch {
      this.scheduleRetry();
      return;
    }
    this.socket = socket;
    this.connectTimer = setTimeout(() => {
      if (this.socket === socket && socket.readyState !== OPEN) {
        detach(socket);
        socket.close();
        this.dropped(socket);
      }
    }, CONNECT_TIMEOUT_MS);
    socket.onopen = () => {
      if (this.socket !== socket) return;
      if (this.connectTimer) clearTimeout(this.connectTimer);
      this.connectTimer = null;
      this.connections += 1;
      this.setStatus('open');
    };
    socket.onmessage = (event) => {
      if (this.socket === socket && typeof event.data === 'string') this.receive(event.data);
    };
    socket.onclose = (event) => {
      this.dropped(socket, event.code);
    };
    // An error is followed by close; the retry is scheduled there.
    socket.onerror = null;
  }

  private receive(text: string): void {
    let frame: unknown;
    try {
      frame = JSON.parse(text);
    } catch {
      return;
    }
    if (typeof frame !== 'object' || frame === null || !('event' in frame) || typeof frame.event !== 'string') return;
    const event = frame.event;
    const data = 'data' in frame ? frame.data : undefined;
    if (event === 'hello') {
      // A connection that got as far as hello is healthy: the next drop starts the backoff anew.
      this.attempt = 0;
      this.latestFrames.set('hello', data);
      if (typeof data === 'object' && data !== null && 'round' in data) this.latestFrames.set('round', data.round);
    } else if (event === 'round' || event === 'onlineCount') {
      this.latestFrames.set(event, data);
    }
    this.dispatch(event, data);
    if (event === 'hello') {
      this.resume();
    } else if (event === 'error' && isResumeOutage(data)) {
      // The server could not read the chat just now (its store is failing over): ask again.
      if (this.resumeTimer) clearTimeout(this.resumeTimer);
      this.resumeTimer = setTimeout(() => {
        this.resumeTimer = null;
        this.resume();
      }, RECONNECT_BASE_MS);
    }
  }

  /** Sends the resume point now, if there is one and the connection is open. */
  resumeNow(): void {
    if (this.status === 'open') this.resume();
  }

  private resume(): void {
    const point = this.options.resumePoint?.();
    if (point) this.send('resume', point);
  }

  private dispatch(event: string, data: unknown): void {
    const set = this.handlers.get(event);
    if (!set) return;
    for (const handler of [...set]) {
      try {
        handler(data);
      } catch (error) {
        console.error(`A handler of the socket event ${event} failed`, error);
      }
    }
  }

  private dropped(socket: WebSocketLike, code?: number): void {
    if (this.socket !== socket) return;
    this.socket = null;
    if (!this.started) return;
    if (code === CLOSE_REPLACED) {
      this.clearTimers();
      this.setStatus('replaced');
      return;
    }
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    this.clearTimers();
    this.setStatus('waiting');
    const delay = reconnectDelay(this.attempt);
    this.attempt += 1;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.connect();
    }, delay);
  }

  private clearTimers(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.connectTimer) clearTimeout(this.connectTimer);
    if (this.resumeTimer) clearTimeout(this.resumeTimer);
    this.retryTimer = null;
    this.connectTimer = null;
    this.resumeTimer = null;
  }

  private setStatus(status: SocketStatus): void {
    if (this.status === status) return;
    this.status = status;
    for (const listener of [...this.statusListeners]) listener();
  }
}

/** A `resume` refused for now: `UNAVAILABLE`, the one refusal that passes. */
function isResumeOutage(data: unknown): boolean {
  return typeof data === 'object' && data !== null && 'event' in data && data.event === 'resume' && 'code' in data && data.code === 'UNAVAILABLE';
}

function detach(socket: WebSocketLike): void {
  socket.onopen = null;
  socket.onclose = null;
  socket.onerror = null;
  socket.onmessage = null;
}

/** The socket address of this page's origin: same host, so the session cookie goes along. */
export function socketUrl(location: Pick<Location, 'protocol' | 'host'> = window.location): string {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;
}
