import { Fragment, useEffect, useState } from 'react';
import type { RoundEcho as Echo } from '@/api/realtime';
import { limits } from '@/config/limits';
import { ko } from '@/i18n/ko';
import { useSocketEvent } from '@/lib/socket';
import { picksOf } from '../lib/my-picks';

/**
 * The round that just closed, told a moment after: how many picked each of its words, in its
 * order, for a few seconds or until the next round's echo replaces it. Counts only, nobody is
 * named. The region is always there (empty, it takes no room), so screen readers hear what
 * comes into it; it sits under the words, so nothing on screen moves above it. The words this
 * tab picked are marked (their counts include the user). Word and count wrap as one; the dots
 * between them are for the ear only, so no line ends in one.
 */
export function RoundEcho() {
  const [echo, setEcho] = useState<Echo | null>(null);

  useSocketEvent('roundEcho', (next) => {
    // The server sends none when nobody picked; one that says so all the same shows nothing.
    setEcho(next.words.some((w) => w.count > 0) ? next : null);
  });

  useEffect(() => {
    if (!echo) return;
    const hide = window.setTimeout(() => {
      setEcho(null);
    }, limits.roundEchoShownMs);
    return () => {
      window.clearTimeout(hide);
    };
  }, [echo]);

  const picked = echo ? picksOf(echo.round) : [];

  return (
    <div className="round-echo-slot" role="status" aria-live="polite">
      {echo ? (
        <p key={echo.round} className="round-echo" data-echo-round={echo.round}>
          <span className="round-echo__label">{ko.round.echoLabel}</span>
          {echo.words.map((pick, index) => {
            const mine = picked.includes(pick.word);
            return (
              <Fragment key={pick.word}>
                {index > 0 ? <span className="round-echo__separator visually-hidden">{ko.round.echoSeparator}</span> : null}
                <span className="round-echo__pick" data-none={pick.count === 0 || undefined} data-mine={mine || undefined}>
                  {ko.round.echoPick(pick.word, pick.count)}
                  {mine ? (
                    <>
                      {' '}
                      <span className="round-echo__mine">{ko.round.echoMine}</span>
                    </>
                  ) : null}
                </span>
              </Fragment>
            );
          })}
        </p>
      ) : null}
    </div>
  );
}
