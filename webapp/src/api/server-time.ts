import useSWR from 'swr';
import { api } from '@/api/client';
import { settle } from '@/api/outcome';
import { fallbackIsOpen } from '@/lib/round-clock';
import { noteServerTime, serverNow } from '@/lib/server-clock';

/** How often the screens ask whether the service is open. */
export const SERVER_CHECK_MS = 10_000;

/** Whether the service is open, with the round: asked every 10 seconds. Notes the server's clock. */
export async function fetchServerTime() {
  const outcome = await settle(api.GET('/server-time'));
  if (outcome.ok) noteServerTime(outcome.data.serverTime);
  return outcome;
}

export interface ServiceStatus {
  isOpen: boolean;
  /** When it opens next, RFC 3339, when the server said; null otherwise. */
  nextOpenAt: string | null;
}

async function fetchServiceStatus(): Promise<ServiceStatus> {
  const outcome = await fetchServerTime();
  if (!outcome.ok) throw new Error('server-time');
  return { isOpen: outcome.data.isOpen, nextOpenAt: outcome.data.nextOpenAt ?? null };
}

/**
 * Whether the service is open, for screens without the round (the main screen follows the
 * round itself): asked every 10 seconds; when the server cannot be asked, the specification's
 * rule by the clock. Null until known.
 */
export function useServiceStatus(): ServiceStatus | null {
  const { data, error } = useSWR<ServiceStatus, Error>('GET /server-time', fetchServiceStatus, {
    refreshInterval: SERVER_CHECK_MS,
  });
  if (data !== undefined) return data;
  if (error) return { isOpen: fallbackIsOpen(new Date(serverNow())), nextOpenAt: null };
  return null;
}
