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
