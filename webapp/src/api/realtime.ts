import type { Schemas } from './client';

/**
 * The frames of the WebSocket at /ws, by event name, with the payload types the server documents
 * (docs/realtime.md, "The protocol").
 */

/** What the server sends. */
export interface ServerEvents {
  hello: Schemas['Hello'];
  round: Schemas['RoundState'];
  onlineCount: Schemas['OnlineCount'];
  matchWaiting: Schemas['MatchState'];
  matched: Schemas['Matched'];
  matchExpired: Schemas['MatchExpired'];
  /** How many picked each word of the round that just closed, a second after it did; only when anyone picked. */
  roundEcho: Schemas['RoundEcho'];
  chatMessage: Schemas['ChatMessage'];
  typing: Schemas['RoomRef'];
  stopTyping: Schemas['RoomRef'];
  /** The partner's read mark (the newest message they have read), or their asking for this side's (`ask`). */
  chatRead: Schemas['ReadMark'];
  /** Another first question of the room, to both members after either asked (`nextQuestion`). */
  question: Schemas['Question'];
  chatEnded: Schemas['ChatEnded'];
  /** A member reported the other: the chat ended for both (`reason: 'report'`, `byUserId` the reporter). */
  chatEndedByReport: Schemas['ChatEnded'];
  resumed: Schemas['Resumed'];
  /** The account was suspended or banned; the server closes the socket next. */
  accountRestricted: Schemas['AccountRestricted'];
  /** An operator warned the user; nothing is stopped. */
  accountWarned: Schemas['AccountWarned'];
  /** The other of a pair asks to meet again (다시 텔레파시); answer by `POST /api/again/answer` before `expiresAt`. */
  againInvite: Schemas['AgainInvite'];
  /** A megaphone, to everyone online on every node; shown for 5 s. */
  megaphone: Schemas['Megaphone'];
  /** One's own megaphone went out. */
  megaphoneSent: Schemas['MegaphoneSent'];
  /** One's megaphone count changed (bought, or spent in any tab). */
  megaphoneCount: Schemas['MegaphoneCount'];
  /** An operator hid a megaphone: screens showing it drop it. */
  megaphoneHidden: Schemas['MegaphoneHidden'];
  error: Schemas['SocketError'];
}

/** What the client sends. */
export interface ClientEvents {
  join_match: Schemas['JoinMatch'];
  chatMessage: Schemas['SendChatMessage'];
  typing: Schemas['RoomRef'];
  stopTyping: Schemas['RoomRef'];
  /** The newest message read while the page was visible; `ask` after a reconnect for the partner's. */
  chatRead: Schemas['ReadMark'];
  leaveRoom: Schemas['RoomRef'];
  getOnlineCount: Record<string, never>;
  resume: Schemas['Resume'];
  'megaphone:send': Schemas['SendMegaphone'] & { userId?: number };
  /** "I see draw `draw` of the room's question": the server tells both members the next one. */
  nextQuestion: Schemas['NextQuestion'];
}

export type ServerEvent = keyof ServerEvents;
export type ClientEvent = keyof ClientEvents;

export type RoundState = Schemas['RoundState'];
export type RoundWord = Schemas['RoundWord'];
export type ChatMessage = Schemas['ChatMessage'];
export type Matched = Schemas['Matched'];
export type RoundEcho = Schemas['RoundEcho'];
