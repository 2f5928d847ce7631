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

const clockTime = new Intl.DateTimeFormat('ko-KR', {
  timeZone: 'Asia/Seoul',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

/**
 * An instant as a short Korean date and the 24-hour Seoul clock, e.g. "24. 11. 22. 21:05":
 * two chats of one evening with one partner are told apart. The input when unreadable.
 */
export function formatShortKoreanDateTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${shortKorean.format(date)} ${clockTime.format(date)}`;
}

const chatTime = new Intl.DateTimeFormat('ko-KR', {
  timeZone: 'Asia/Seoul',
  hour: 'numeric',
  minute: '2-digit',
});

/** A message time on the Seoul clock, e.g. "오후 9:05". */
export function formatChatTime(epochMs: number): string {
  return chatTime.format(new Date(epochMs));
}

const dayAndTime = new Intl.DateTimeFormat('ko-KR', {
  timeZone: 'Asia/Seoul',
  month: 'long',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

/** An instant on the Seoul calendar and 24-hour clock, e.g. "11월 23일 21:05"; the input when unreadable. */
export function formatKoreanDayAndTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dayAndTime.format(date);
}
