import { afterEach, describe, expect, it, vi } from 'vitest';
import { noteServerTime, resetServerClock, serverNow, subscribeServerClock } from './server-clock';

afterEach(() => {
  vi.useRealTimers();
  resetServerClock();
});

describe('server clock', () => {
  it('is the device clock until the server says otherwise', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-06-15T01:00:00Z'));
    expect(serverNow()).toBe(Date.parse('2026-06-15T01:00:00Z'));
  });

  it('follows the server’s time from then on, however wrong the device is', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-06-15T01:00:00Z'));
    noteServerTime(Date.parse('2026-12-10T06:00:00Z'));
    expect(new Date(serverNow()).toISOString()).toBe('2026-12-10T06:00:00.000Z');
    vi.advanceTimersByTime(90_000);
    expect(new Date(serverNow()).toISOString()).toBe('2026-12-10T06:01:30.000Z');
  });

  it('tells its listeners of a new offset, not of network jitter', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-06-15T01:00:00Z'));
    const listener = vi.fn();
    const off = subscribeServerClock(listener);
    noteServerTime(Date.now() + 300);
    expect(listener).not.toHaveBeenCalled();
    noteServerTime(Date.now() + 3_600_000);
    expect(listener).toHaveBeenCalledTimes(1);
    off();
  });
});
