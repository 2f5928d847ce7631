import { useEffect } from 'react';
import { fetchServerTime } from '@/api/server-time';
import { serverNow, subscribeServerClock } from '@/lib/server-clock';
import { themeColors, themeFor } from '@/lib/theme';

const RECHECK_MS = 10 * 60 * 1000;

/**
 * Puts the theme of today's Seoul date on <html data-theme> and its colour on the browser's bar,
 * and follows midnight changes. The date is the server's: the device's clock may be wrong, so
 * the server's time is asked for at the start and with each recheck, and the theme follows
 * whenever the server's clock is learned anew (any page's answer may teach it).
 */
export function useDateTheme(): void {
  useEffect(() => {
    const apply = () => {
      const theme = themeFor(new Date(serverNow()));
      document.documentElement.dataset.theme = theme;
      document.querySelector('meta[name="theme-color"]')?.setAttribute('content', themeColors[theme].theme);
    };
    const recheck = () => {
      apply();
      void fetchServerTime();
    };
    recheck();
    const off = subscribeServerClock(apply);
    const timer = window.setInterval(recheck, RECHECK_MS);
    return () => {
      off();
      window.clearInterval(timer);
    };
  }, []);
}
