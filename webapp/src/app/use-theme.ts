import { useEffect } from 'react';
import { themeFor } from '@/lib/theme';

const RECHECK_MS = 10 * 60 * 1000;

/** Puts the theme of today's Seoul date on <html data-theme>, and follows midnight changes. */
export function useDateTheme(): void {
  useEffect(() => {
    const apply = () => {
      document.documentElement.dataset.theme = themeFor(new Date());
    };
    apply();
    const timer = window.setInterval(apply, RECHECK_MS);
    return () => {
      window.clearInterval(timer);
    };
  }, []);
}
