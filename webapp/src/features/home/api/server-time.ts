import { api } from '@/api/client';
import { settle } from '@/api/outcome';

/** Whether the service is open, with the round: asked every 10 seconds. */
export function fetchServerTime() {
  return settle(api.GET('/server-time'));
}
