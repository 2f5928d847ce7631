/** Times the console shows, all on the Seoul clock whatever the operator's machine says. */
const dateTime = new Intl.DateTimeFormat('ko-KR', {
  timeZone: 'Asia/Seoul',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

const clockTime = new Intl.DateTimeFormat('ko-KR', {
  timeZone: 'Asia/Seoul',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

const dayOnly = new Intl.DateTimeFormat('ko-KR', {
  timeZone: 'Asia/Seoul',
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  weekday: 'short',
});

function parse(iso: string): Date | null {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** "2026. 11. 23. 21:05"; the input when unreadable. */
export function formatDateTime(iso: string): string {
  const date = parse(iso);
  return date ? dateTime.format(date) : iso;
}

/** "21:05:09", for a message in a transcript. */
export function formatClock(iso: string): string {
  const date = parse(iso);
  return date ? clockTime.format(date) : iso;
}

/** "2026년 11월 23일 (월)", for a day divider in a transcript; built from parts, as ICU versions differ. */
export function formatDay(iso: string): string {
  const date = parse(iso);
  if (!date) return iso;
  const part = (type: Intl.DateTimeFormatPartTypes) => dayOnly.formatToParts(date).find((p) => p.type === type)?.value ?? '';
  return `${part('year')}년 ${part('month')}월 ${part('day')}일 (${part('weekday')})`;
}

/** A base32 secret in groups of four for typing by hand: "ABCD EFGH …". */
export function groupSecret(secret: string): string {
  return (secret.replace(/\s+/g, '').match(/.{1,4}/g) ?? []).join(' ');
}
