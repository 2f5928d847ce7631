import { useEffect, useEffectEvent, useSyncExternalStore } from 'react';
import type { ClientEvents, ServerEvent, ServerEvents } from '@/api/realtime';
import { chatLog } from './chat-log';
import { readChatInfo } from './chat-session';
import { SocketClient, socketUrl, type SocketStatus } from './socket-client';

let instance: SocketClient | null = null;

/**
 * The one socket of this tab. After every hello it resumes the stored chat after the newest
 * message shown, and every chat message goes into the chat log.
 */
export function tabSocket(): SocketClient {
  if (!instance) {
    const client = new SocketClient({
      url: () => socketUrl(),
      resumePoint: () => {
        const info = readChatInfo();
        if (!info) return null;
        // The resumed messages belong to this room: make sure the log takes them.
        chatLog.open(info.roomId);
        const lastId = chatLog.lastServerId(info.roomId);
        return lastId === undefined ? { roomId: info.roomId } : { roomId: info.roomId, lastId };
      },
    });
    client.on('chatMessage', (message) => {
      chatLog.receive(message);
    });
    instance = client;
  }
  return instance;
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
