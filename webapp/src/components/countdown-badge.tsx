import { ko } from '@/i18n/ko';
import { formatCountdown } from '@/lib/countdown';

/** The time left on a verification code. Not a live region: announcing every second is noise. */
export function CountdownBadge({ remaining }: { remaining: number }) {
  return (
    <span className={`countdown ${remaining <= 30 ? 'countdown--low' : ''}`} role="timer" aria-label={`${ko.codeField.remaining} ${formatCountdown(remaining)}`}>
      {formatCountdown(remaining)}
    </span>
  );
}
