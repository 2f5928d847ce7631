const shortKorean = new Intl.DateTimeFormat('ko-KR', {
  timeZone: 'Asia/Seoul',
  year: '2-digit',
  month: '2-digit',
  day: '2-digit',
});

/** An instant as a short Korean date on the Seoul calendar, e.g. "24. 11. 22."; the input when unreadable. */
export function formatShortKoreanDate(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : shortKorean.format(date);
}
