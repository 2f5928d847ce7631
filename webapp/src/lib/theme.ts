export type Theme = 'default' | 'halloween' | 'christmas';

const seoulMonthDay = new Intl.DateTimeFormat('en-US', {
  timeZone: 'Asia/Seoul',
  month: 'numeric',
  day: 'numeric',
});

/** The theme of a moment, by its calendar date in Asia/Seoul whatever the device's zone. */
export function themeFor(date: Date): Theme {
  const parts = seoulMonthDay.formatToParts(date);
  const month = Number(parts.find((part) => part.type === 'month')?.value);
  const day = Number(parts.find((part) => part.type === 'day')?.value);
  if (month === 10 && day >= 23) return 'halloween';
  if (month === 12) return 'christmas';
  return 'default';
}

/**
 * Each theme's browser colours: the bar colour (`<meta name="theme-color">`, the brand) and
 * the background; the web app manifest carries the default theme's.
 */
export const themeColors: Record<Theme, { theme: string; background: string }> = {
  default: { theme: '#6d28d9', background: '#f6f4fe' },
  halloween: { theme: '#c2410c', background: '#fdf6ef' },
  christmas: { theme: '#be123c', background: '#fbf7f5' },
};
