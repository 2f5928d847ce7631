import useSWR from 'swr';
import { api, type Schemas } from './client';
import { unwrap } from './outcome';

export type CurrentChat = Schemas['CurrentChat'];

/** The member's chat as the server knows it: the room they sit in, or else their latest chat, ended. */
export function fetchCurrentChat() {
  return unwrap(api.GET('/match/current'));
}

/**
 * The member's chat, asked of the server under `key` (null: not asked). A page names what it
 * asks about (a room, say), so a new question is asked anew rather than answered from the
 * cache of an old one.
 */
export function useCurrentChat(key: string | null) {
  return useSWR<CurrentChat, Error>(key === null ? null : ['/match/current', key], fetchCurrentChat, {
    revalidateOnFocus: false,
    revalidateIfStale: true,
  });
}
