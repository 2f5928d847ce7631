import { act, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ko } from '@/i18n/ko';
import { noteServerTime, resetServerClock } from '@/lib/server-clock';
import { jsonResponse, renderRoute } from '@/test/render';
import { ComingSoon } from './coming-soon';

beforeEach(() => {
  vi.stubGlobal(
    'fetch',
    vi.fn(() => Promise.resolve(jsonResponse([]))),
  );
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  resetServerClock();
});

describe('ComingSoon', () => {
  it('counts down to the opening the server names, each second', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    vi.setSystemTime(new Date('2026-11-23T08:00:00Z'));
    renderRoute(<ComingSoon nextOpenAt="2026-11-23T11:00:05Z" />);
    expect(screen.getByText(ko.main.hours)).toBeInTheDocument();
    const timer = screen.getByRole('timer');
    expect(timer).toHaveTextContent('03:00:05');
    act(() => {
      vi.advanceTimersByTime(1000);
    });
    expect(timer).toHaveTextContent('03:00:04');
    act(() => {
      vi.advanceTimersByTime(5000);
    });
    expect(timer).toHaveTextContent('02:59:59');
  });

  it('counts down to the next 8 PM in Seoul when the server did not say', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    // 10:30 in Seoul.
    vi.setSystemTime(new Date('2026-11-23T01:30:00Z'));
    renderRoute(<ComingSoon nextOpenAt={null} />);
    expect(screen.getByRole('timer')).toHaveTextContent('09:30:00');
  });

  it('counts on the server’s clock, not a device clock that is wrong', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    // The device says 11:14:30 in Seoul; the server says 15:00:00, and opens at 20:00.
    vi.setSystemTime(new Date('2026-11-23T02:14:30Z'));
    noteServerTime(Date.parse('2026-11-23T06:00:00Z'));
    renderRoute(<ComingSoon nextOpenAt="2026-11-23T20:00:00+09:00" />);
    expect(screen.getByRole('timer')).toHaveTextContent('05:00:00');
    act(() => {
      vi.advanceTimersByTime(1000);
    });
    expect(screen.getByRole('timer')).toHaveTextContent('04:59:59');
  });

  it('counts to the next 8 PM of the server’s day when the server did not say when', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    vi.setSystemTime(new Date('2026-11-23T02:14:30Z'));
    noteServerTime(Date.parse('2026-11-23T06:00:00Z'));
    renderRoute(<ComingSoon nextOpenAt={null} />);
    expect(screen.getByRole('timer')).toHaveTextContent('05:00:00');
  });

  it('has the comment board', async () => {
    renderRoute(<ComingSoon nextOpenAt={null} />);
    expect(screen.getByRole('region', { name: ko.comments.title })).toBeInTheDocument();
    expect(await screen.findByText(ko.comments.empty)).toBeInTheDocument();
  });
});
