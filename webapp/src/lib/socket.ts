import { useEffect, useEffectEvent, useSyncExternalStore } from 'react';
import type { Schemas } from '@/api/client';
import type { ClientEvents, ServerEvent, ServerEvents } from '@/api/realtime';
import { chatLog } from './chat-log';
import { noteServerTime } from './server-clock';
import { clearChatInfo, readChatInfo, type ChatInfo } from './chat-session';
import { SocketClient, socketUrl, type SocketStatus } from './socket-client';

let instance: SocketClient | null = null;

/**
 * The one socket of this tab. After every hello it resumes the stored chat after the newest
 * message shown, and every chat message goes into the chat log. The server's word decides
 * whether the stored chat goes on: one that hello does not name, or that the server says
 * ended, is forgotten (a chat page still open learns it from the resume's answer).
 */
export function tabSocket(): SocketClient {
  if (!instance) {
    const client: SocketClient = new SocketClient({
      url: () => socketUrl(),
      resumePoint: (): Schemas['Resume'] | null => {
        const info = readChatInfo();
        if (!info) return null;
        if (client.latest('hello')?.roomId !== info.roomId) clearChatInfo();
        // The resumed messages belong to this room: the log takes them.
        const lastId = chatLog.beginResume(info.roomId);
        return lastId === undefined ? { roomId: info.roomId } : { roomId: info.roomId, lastId };
      },
    });
    client.on('chatMessage', (message) => {
      chatLog.receive(message);
    });
    client.on('hello', (hello) => {
      noteServerTime(hello.round.serverTime);
    });
    client.on('round', (round) => {
      noteServerTime(round.serverTime);
    });
    client.on('resumed', (resumed) => {
      chatLog.resumed(resumed.roomId);
    });
    const over = (ended: { roomId: string }) => {
      if (readChatInfo()?.roomId === ended.roomId) clearChatInfo();
    };
    client.on('chatEnded', over);
    client.on('chatEndedByReport', over);
    instance = client;
  }
  return instance;
}

/**
 * The chat this user sits in, as the server says: the stored chat when the last hello named
 * its room and it has not ended since; null otherwise (before hello too). What a page shows
 * of a chat comes from here, never from local storage alone.
 */
export function useActiveChat(): ChatInfo | null {
  const socket = tabSocket();
  const roomId = useSyncExternalStore(
    (notify) => {
      const offs = [socket.on('hello', notify), socket.on('chatEnded', notify), socket.on('chatEndedByReport', notify)];
      return () => {
        for (const off of offs) off();
      };
    },
    () => {
      const info = readChatInfo();
      return info !== null && socket.latest('hello')?.roomId === info.roomId ? info.roomId : null;
    },
  );
  return roomId === null ? null : readChatInfo();
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
