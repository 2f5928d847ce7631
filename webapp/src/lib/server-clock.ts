import { useEffect, useState, useSyncExternalStore } from 'react';

/**
 * The server's clock as this device sees it: the server's time minus the device's, learned
 * from every answer that carries the server's time (`serverTime`). What depends on the
 * hour or the date (the closed screen's countdown, the date's theme) reads `serverNow()`, so
 * a phone whose clock is wrong still shows the right opening time and theme.
 */
let offsetMs = 0;
const listeners = new Set<() => void>();

/** Offsets closer than this are the same clock seen through the network's delays. */
const SAME_CLOCK_MS = 1000;

/** Notes the server's time (Unix ms) as of an answer received at `receivedAt` (device time). */
export function noteServerTime(serverTime: number, receivedAt = Date.now()): void {
  if (!Number.isFinite(serverTime)) return;
  const next = serverTime - receivedAt;
  if (Math.abs(next - offsetMs) < SAME_CLOCK_MS) return;
  offsetMs = next;
  for (const listener of listeners) listener();
}

/** The server's time now, in Unix milliseconds. */
export function serverNow(): number {
  return Date.now() + offsetMs;
}

/** Calls `listener` whenever the server's clock is found to differ from what was known. */
export function subscribeServerClock(listener: () => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

/** The server's time, refreshed every `intervalMs` and at once when its offset changes. */
export function useServerNow(intervalMs = 1000): number {
  const offset = useSyncExternalStore(subscribeServerClock, () => offsetMs);
  const [deviceNow, setDeviceNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => {
      setDeviceNow(Date.now());
    }, intervalMs);
    return () => {
      window.clearInterval(timer);
    };
  }, [intervalMs]);
  return deviceNow + offset;
}

/** For tests: back to the device's own clock. */
export function resetServerClock(): void {
  offsetMs = 0;
  for (const listener of listeners) listener();
}
