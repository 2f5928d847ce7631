import { useEffect } from 'react';
import { themeColors, themeFor } from '@/lib/theme';

const RECHECK_MS = 10 * 60 * 1000;

/**
 * Puts the theme of today's Seoul date on <html data-theme> and its colour on the browser's bar,
 * and follows midnight changes.
 */
export function useDateTheme(): void {
  useEffect(() => {
    const apply = () => {
      const theme = themeFor(new Date());
      document.documentElement.dataset.theme = theme;
      document.querySelector('meta[name="theme-color"]')?.setAttribute('content', themeColors[theme].theme);
    };
    apply();
    const timer = window.setInterval(apply, RECHECK_MS);
    return () => {
      window.clearInterval(timer);
    };
  }, []);
}
