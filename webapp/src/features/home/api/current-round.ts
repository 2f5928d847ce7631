import { api } from '@/api/client';
import { settle } from '@/api/outcome';

/** The round, polled each second while the socket is not open. */
export function fetchCurrentRound() {
  return settle(api.GET('/match/current-round'));
}
