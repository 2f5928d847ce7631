import { useEffect, useEffectEvent, useSyncExternalStore } from 'react';
import type { Schemas } from '@/api/client';
import type { ClientEvents, ServerEvent, ServerEvents } from '@/api/realtime';
import { chatLog } from './chat-log';
import { noteServerTime } from './server-clock';
import { useCurrentChat } from '@/api/current-chat';
import {
  chatInfoFromMatched,
  clearChatInfo,
  clearMissedEnd,
  noteMissedEnd,
  parseChatInfo,
  readChatInfo,
  type ChatInfo,
} from './chat-session';
import { readLocal, storageKeys } from './storage';
import { SocketClient, socketUrl, type SocketStatus } from './socket-client';

let instance: SocketClient | null = null;
/** The room the server last said this user sits in: hello's, a later match's, none once it ended. */
let serverRoomId: string | null = null;
/** The stored chat the last hello did not name, forgotten but resumed once so a chat page learns how it ended. */
let forgotten: ChatInfo | null = null;

/**
 * The one socket of this tab. After every hello it resumes the stored chat after the newest
 * message shown, and every chat message goes into the chat log. The server's word decides
 * whether the stored chat goes on: one that hello does not name is forgotten and noted as
 * ended while away (a chat page still open learns how from the resume's answer), and one the
 * server says ended is forgotten.
 */
export function tabSocket(): SocketClient {
  if (!instance) {
    const client: SocketClient = new SocketClient({
      url: () => socketUrl(),
      resumePoint: (): Schemas['Resume'] | null => {
        const info = readChatInfo() ?? forgotten;
        forgotten = null;
        if (!info) return null;
        // The resumed messages belong to this room: the log takes them.
        const lastId = chatLog.beginResume(info.roomId);
        return lastId === undefined ? { roomId: info.roomId } : { roomId: info.roomId, lastId };
      },
    });
    client.on('chatMessage', (message) => {
      chatLog.receive(message);
    });
    // First of the hello handlers: pages read what it leaves.
    client.on('hello', (hello) => {
      noteServerTime(hello.round.serverTime);
      serverRoomId = hello.roomId ?? null;
      const info = readChatInfo();
      if (info && info.roomId !== serverRoomId) {
        clearChatInfo();
        noteMissedEnd(info);
        forgotten = info;
      }
    });
    client.on('matched', (matched) => {
      serverRoomId = matched.roomId;
      clearMissedEnd();
    });
    client.on('round', (round) => {
      noteServerTime(round.serverTime);
    });
    client.on('resumed', (resumed) => {
      chatLog.resumed(resumed.roomId);
    });
    const over = (ended: { roomId: string }) => {
      if (serverRoomId === ended.roomId) serverRoomId = null;
      if (readChatInfo()?.roomId === ended.roomId) clearChatInfo();
    };
    client.on('chatEnded', over);
    client.on('chatEndedByReport', over);
    instance = client;
  }
  return instance;
}

/** Re-renders on the server's greeting. */
function subscribeHello(notify: () => void): () => void {
  return tabSocket().on('hello', () => {
    notify();
  });
}

/** Whether the server has said hello to `socket` (to the tab's socket by default). */
function greeted(socket: SocketClient = tabSocket()): boolean {
  return socket.latest('hello') !== undefined;
}

/**
 * Whether frames can be sent and the server has greeted this tab (so what it knows of the
 * user, such as a chat open elsewhere, is known here too).
 */
export function useSocketReady(): boolean {
  const open = useSocketStatus() === 'open';
  return useSyncExternalStore(subscribeHello, () => greeted()) && open;
}

/** The room the server says this user sits in now; null before this connection's hello. */
function serverRoom(socket: SocketClient): string | null {
  return greeted(socket) ? serverRoomId : null;
}

/** Re-renders on what changes the server's word on the user's room. */
function subscribeRoom(socket: SocketClient, notify: () => void): () => void {
  const offs = [
    socket.on('hello', notify),
    socket.on('matched', notify),
    socket.on('chatEnded', notify),
    socket.on('chatEndedByReport', notify),
  ];
  return () => {
    for (const off of offs) off();
  };
}

/**
 * The chat this user sits in, as the server says: the room the last hello (or a match since)
 * named, until it ends; null otherwise (before hello too). Its details are the stored chat's
 * when it is that room, else the server's (a chat opened on another device, or in a tab that
 * stored nothing). What a page shows of a chat comes from here, never from local storage alone.
 */
export function useActiveChat(): ChatInfo | null {
  const socket = tabSocket();
  const roomId = useSyncExternalStore(
    (notify) => subscribeRoom(socket, notify),
    () => serverRoom(socket),
  );
  const stored = roomId === null ? null : readChatInfo();
  const known = stored?.roomId === roomId ? stored : null;
  const { data } = useCurrentChat(roomId !== null && known === null ? roomId : null);
  if (roomId === null) return null;
  if (known) return known;
  const room = data?.room;
  // When it started, this device never saw: none is told.
  return room?.roomId === roomId ? chatInfoFromMatched(room, 0) : null;
}

/**
 * The chat this device held that ended while it was away, once the server confirms it ended
 * (its latest chat, no room open); null otherwise.
 */
export function useMissedEnd(): ChatInfo | null {
  const socket = tabSocket();
  const raw = useSyncExternalStore(
    (notify) => subscribeRoom(socket, notify),
    () => readLocal(storageKeys.missedChatEnd),
  );
  const missed = parseChatInfo(raw);
  const { data } = useCurrentChat(missed ? `ended:${missed.roomId}` : null);
  if (!missed || !data || data.room) return null;
  return data.ended?.roomId === missed.roomId ? missed : null;
}

/**
 * Asks the server now for the messages of the stored chat, as after a reconnect: for a chat
 * this tab learned of from the server rather than from a match. Nothing while disconnected:
 * the next hello resumes it.
 */
export function resumeStoredChat(): void {
  tabSocket().resumeNow();
}

export function useSocketStatus(): SocketStatus {
  const socket = tabSocket();
  return useSyncExternalStore(socket.subscribeStatus, socket.getStatus);
}

/** Calls `handler` for every frame of `event` while the component is mounted. */
export function useSocketEvent<E extends ServerEvent>(event: E, handler: (data: ServerEvents[E]) => void): void {
  const onFrame = useEffectEvent(handler);
  useEffect(
    () =>
      tabSocket().on(event, (data) => {
        onFrame(data);
      }),
    [event],
  );
}

/** Sends a frame now; false when the socket is not open. */
export function sendFrame<E extends keyof ClientEvents>(event: E, data: ClientEvents[E]): boolean {
  return tabSocket().send(event, data);
}
