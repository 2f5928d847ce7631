import { useEffect } from 'react';
import { Icon } from '@/components/icons';
import { ko } from '@/i18n/ko';
import { formatDuration, nextEightPm } from '@/lib/round-clock';
import { useNow } from '../hooks/use-now';
import { CommentBoard } from './comment-board';

/**
 * Covers the main screen while the service is closed: the opening hours and the time until the
 * next opening (the server's, or the next 8 PM when it did not say), and the comment board of
 * those waiting. The navigation stays usable.
 */
export function ClosedOverlay({ nextOpenAt }: { nextOpenAt: string | null }) {
  const now = useNow();
  const fromServer = nextOpenAt === null ? Number.NaN : Date.parse(nextOpenAt);
  const target = Number.isNaN(fromServer) ? nextEightPm(new Date(now)).getTime() : fromServer;
  const left = Math.max(0, Math.ceil((target - now) / 1000));

  useEffect(() => {
    // The page behind is out of use while closed; it should not scroll under the overlay.
    const { overflow } = document.body.style;
    document.body.style.overflow = 'hidden';
    return () => {
      document.body.style.overflow = overflow;
    };
  }, []);

  return (
    <div className="closed-overlay" role="dialog" aria-modal="true" aria-labelledby="closed-title" aria-describedby="closed-description">
      <div className="closed-overlay__panel">
        <div className="closed-overlay__icon">
          <Icon name="moon" size={34} />
        </div>
        <h2 id="closed-title" className="closed-overlay__title">
          {ko.closed.title}
        </h2>
        <p id="closed-description" className="closed-overlay__text">
          {ko.closed.description}
        </p>
        <dl className="closed-overlay__facts">
          <div>
            <dt>{ko.closed.hoursLabel}</dt>
            <dd>{ko.main.hours}</dd>
          </div>
          <div>
            <dt>{ko.closed.untilOpen}</dt>
            <dd className="closed-overlay__countdown" role="timer">
              {formatDuration(left)}
            </dd>
          </div>
        </dl>
        <CommentBoard />
      </div>
    </div>
  );
}
