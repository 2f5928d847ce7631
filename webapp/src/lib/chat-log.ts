import { useSyncExternalStore } from 'react';
import type { ChatMessage } from '@/api/realtime';

/** A line of the conversation: confirmed by the server (with its id) or still on its way. */
export interface ChatEntry {
  /** Stable across the pending → confirmed change, for rendering. */
  key: string;
  /** The server's id, `<ms>-<seq>`; null until the echo arrives. */
  id: string | null;
  clientId: string | null;
  senderId: number;
  message: string;
  /** Unix milliseconds: the server's time once confirmed, the local time before. */
  timestamp: number;
  status: 'sent' | 'pending' | 'failed';
  /** The connection a pending message was sent on; null when not sent yet. */
  sentOn: number | null;
}

const serverId = /^(\d+)-(\d+)$/;

/** Orders server ids `<ms>-<seq>` by their numbers; ids of another shape compare as text. */
export function compareMessageIds(a: string, b: string): number {
  const x = serverId.exec(a);
  const y = serverId.exec(b);
  if (!x || !y) return a < b ? -1 : a > b ? 1 : 0;
  const byMs = Number(x[1]) - Number(y[1]);
  return byMs !== 0 ? Math.sign(byMs) : Math.sign(Number(x[2]) - Number(y[2]));
}

function keyOf(clientId: string | null | undefined, id: string): string {
  return clientId ? `c:${clientId}` : `s:${id}`;
}

/**
 * Merges messages from the server into the conversation: each server id appears once, an echo
 * replaces the sender's own pending copy (same clientId and sender), confirmed messages are
 * ordered by server id and the unconfirmed ones follow in the order they were written.
 */
export function mergeMessages(entries: readonly ChatEntry[], incoming: readonly ChatMessage[]): ChatEntry[] {
  const next = [...entries];
  for (const message of incoming) {
    if (next.some((entry) => entry.id === message.id)) continue;
    const clientId = message.clientId ?? null;
    const ownCopy = clientId
      ? next.findIndex((entry) => entry.id === null && entry.clientId === clientId && entry.senderId === message.senderId)
      : -1;
    const key = ownCopy >= 0 ? (next[ownCopy]?.key ?? keyOf(clientId, message.id)) : keyOf(clientId, message.id);
    if (ownCopy >= 0) next.splice(ownCopy, 1);
    next.push({
      key,
      id: message.id,
      clientId,
      senderId: message.senderId,
      message: message.message,
      timestamp: message.timestamp,
      status: 'sent',
      sentOn: null,
    });
  }
  const confirmed = next.filter((entry) => entry.id !== null);
  const unconfirmed = next.filter((entry) => entry.id === null);
  confirmed.sort((a, b) => compareMessageIds(a.id ?? '', b.id ?? ''));
  return [...confirmed, ...unconfirmed];
}

/** The id of the newest confirmed message, to resume after. */
export function lastServerId(entries: readonly ChatEntry[]): string | undefined {
  let last: string | undefined;
  for (const entry of entries) {
    if (entry.id !== null && (last === undefined || compareMessageIds(entry.id, last) > 0)) last = entry.id;
  }
  return last;
}

export function pendingEntry(clientId: string, senderId: number, message: string, timestamp: number): ChatEntry {
  return { key: keyOf(clientId, ''), id: null, clientId, senderId, message, timestamp, status: 'pending', sentOn: null };
}

/** A fresh id for a message the user writes, from the platform's random source. */
export function newClientId(): string {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

interface LogState {
  roomId: string | null;
  entries: ChatEntry[];
}

/**
 * Where the next resume of the room starts. Between a `resume` and its `resumed`, live messages
 * may arrive before the older ones the resume brings: a connection lost in between would leave
 * a hole behind the newest message shown. So the point moves with each message only while no
 * resume is out, and to the newest one when a resume is whole.
 */
interface ResumeState {
  after: string | undefined;
  resuming: boolean;
}

const FRESH: ResumeState = { after: undefined, resuming: false };

function newer(a: string | undefined, b: string): string {
  return a === undefined || compareMessageIds(b, a) > 0 ? b : a;
}

const EMPTY: ChatEntry[] = [];

/**
 * The conversation of the current room for this tab. It outlives the chat page, so messages
 * arriving while the page is not mounted (between match and navigation, for instance) are kept,
 * and the socket can ask to resume after the newest one.
 */
class ChatLog {
  private state: LogState = { roomId: null, entries: EMPTY };
  private resume: ResumeState = FRESH;
  private readonly listeners = new Set<() => void>();

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  entriesOf(roomId: string): ChatEntry[] {
    return this.state.roomId === roomId ? this.state.entries : EMPTY;
  }

  /** Makes `roomId` the current room; another room's messages are dropped. */
  open(roomId: string): void {
    if (this.state.roomId === roomId) return;
    this.resume = FRESH;
    this.set({ roomId, entries: EMPTY });
  }

  clear(): void {
    this.resume = FRESH;
    this.set({ roomId: null, entries: EMPTY });
  }

  /** Clears the log if `roomId` is still its room; another room opened since stays. */
  close(roomId: string): void {
    if (this.state.roomId === roomId) this.clear();
  }

  /** A message from the server; ignored unless it belongs to the current room. */
  receive(message: ChatMessage): void {
    if (message.roomId !== this.state.roomId) return;
    if (!this.resume.resuming) this.resume = { after: newer(this.resume.after, message.id), resuming: false };
    this.set({ roomId: this.state.roomId, entries: mergeMessages(this.state.entries, [message]) });
  }

  /**
   * A resume of `roomId` goes out: answers the id to resume after (none: from the start), which
   * holds still until the room's `resumed`.
   */
  beginResume(roomId: string): string | undefined {
    this.open(roomId);
    this.resume = { after: this.resume.after, resuming: true };
    return this.resume.after;
  }

  /** The server has sent everything of `roomId` up to the newest message shown. */
  resumed(roomId: string): void {
    if (this.state.roomId !== roomId) return;
    const newest = lastServerId(this.state.entries);
    this.resume = { after: newest === undefined ? this.resume.after : newer(this.resume.after, newest), resuming: false };
  }

  add(roomId: string, entry: ChatEntry): void {
    this.open(roomId);
    this.set({ roomId, entries: mergeMessages([...this.state.entries, entry], []) });
  }

  update(roomId: string, clientId: string, change: Partial<Pick<ChatEntry, 'status' | 'sentOn'>>): void {
    if (this.state.roomId !== roomId) return;
    this.set({
      roomId,
      entries: this.state.entries.map((entry) => (entry.id === null && entry.clientId === clientId ? { ...entry, ...change } : entry)),
    });
  }

  private set(state: LogState): void {
    this.state = state;
    for (const listener of [...this.listeners]) listener();
  }
}

export const chatLog = new ChatLog();

/** The current room's conversation, re-rendered on every change. */
export function useChatLog(roomId: string): ChatEntry[] {
  return useSyncExternalStore(chatLog.subscribe, () => chatLog.entriesOf(roomId));
}
