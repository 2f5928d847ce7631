import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { formatCountdown, useCountdown } from './countdown';

describe('formatCountdown', () => {
  it.each([
    [180, '03:00'],
    [179, '02:59'],
    [65, '01:05'],
    [60, '01:00'],
    [59, '00:59'],
    [9, '00:09'],
    [0, '00:00'],
    [-5, '00:00'],
    [3599, '59:59'],
    [12.7, '00:12'],
  ])('%d s → %s', (seconds, text) => {
    expect(formatCountdown(seconds)).toBe(text);
  });
});

describe('useCountdown', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('counts down from the start and expires at zero', () => {
    const { result } = renderHook(() => useCountdown(180));
    expect(result.current.started).toBe(false);
    act(() => {
      result.current.start();
    });
    expect(result.current.remaining).toBe(180);
    act(() => {
      vi.advanceTimersByTime(1000);
    });
    expect(result.current.remaining).toBe(179);
    act(() => {
      vi.advanceTimersByTime(179_000);
    });
    expect(result.current.remaining).toBe(0);
    expect(result.current.expired).toBe(true);
    act(() => {
      result.current.start();
    });
    expect(result.current.remaining).toBe(180);
    expect(result.current.expired).toBe(false);
  });
});
