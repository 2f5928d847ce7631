import { ko } from '@/i18n/ko';
import { formatDuration, nextEightPm } from '@/lib/round-clock';
import { useServerNow } from '@/lib/server-clock';
import { CommentBoard } from './comment-board';

/**
 * What the closed hours show: the opening hours, the time until the next opening (the
 * server's, or the next 8 PM when it did not say) ticking each second, and the comment board
 * of those waiting. Drawn light on the closed screen's dark background. Counted on the
 * server's clock: a device whose clock is wrong still shows the right time left.
 */
export function ComingSoon({ nextOpenAt }: { nextOpenAt: string | null }) {
  const now = useServerNow();
  const fromServer = nextOpenAt === null ? Number.NaN : Date.parse(nextOpenAt);
  const target = Number.isNaN(fromServer) ? nextEightPm(new Date(now)).getTime() : fromServer;
  const left = Math.max(0, Math.ceil((target - now) / 1000));

  return (
    <>
      <dl className="closed-overlay__facts">
        <div>
          <dt>{ko.closed.hoursLabel}</dt>
          <dd>{ko.main.hours}</dd>
        </div>
        <div>
          <dt>{ko.closed.untilOpen}</dt>
          {/* The timer inside the dd: a dd with a role of its own breaks the list. */}
          <dd>
            <span className="closed-overlay__countdown" role="timer">
              {formatDuration(left)}
            </span>
          </dd>
        </div>
      </dl>
      <CommentBoard />
    </>
  );
}
