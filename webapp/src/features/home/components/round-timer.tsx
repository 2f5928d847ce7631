import { ko } from '@/i18n/ko';
import { DEFAULT_ROUND_SECONDS } from '@/lib/round-clock';

const RADIUS = 26;
const CIRCUMFERENCE = 2 * Math.PI * RADIUS;

/**
 * Seconds left in the round, as a number in a ring that empties. Not a live region: it would
 * speak every second. Until the server has told the round (`remaining` null) it shows no
 * number, which would be a guess, but a turning arc, and says it is loading.
 */
export function RoundTimer({ remaining }: { remaining: number | null }) {
  if (remaining === null) {
    return (
      <div className="round-timer round-timer--loading" role="timer" aria-busy="true" aria-label={ko.round.timerLoading}>
        <Ring dashArray={`${String(CIRCUMFERENCE / 4)} ${String(CIRCUMFERENCE)}`} />
        <span className="round-timer__value" aria-hidden="true">
          <span className="round-timer__dots">
            <span />
            <span />
            <span />
          </span>
        </span>
      </div>
    );
  }
  const fraction = Math.min(1, Math.max(0, remaining / DEFAULT_ROUND_SECONDS));
  return (
    <div className={`round-timer ${remaining <= 5 ? 'round-timer--low' : ''}`} role="timer" aria-label={ko.round.timerLabel(remaining)}>
      <Ring dashArray={String(CIRCUMFERENCE)} dashOffset={CIRCUMFERENCE * (1 - fraction)} />
      <span className="round-timer__value" aria-hidden="true">
        {remaining}
        <small>{ko.round.secondsUnit}</small>
      </span>
    </div>
  );
}

/** The timer's ring: a track, and over it the arc that `dashArray` and `dashOffset` draw. */
function Ring({ dashArray, dashOffset }: { dashArray: string; dashOffset?: number }) {
  return (
    <svg viewBox="0 0 64 64" width="64" height="64" aria-hidden="true" className="round-timer__ring">
      <circle cx="32" cy="32" r={RADIUS} className="round-timer__track" />
      <circle
        cx="32"
        cy="32"
        r={RADIUS}
        className="round-timer__progress"
        strokeDasharray={dashArray}
        strokeDashoffset={dashOffset}
      />
    </svg>
  );
}
