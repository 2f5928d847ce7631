import { useEffect, useState } from 'react';
import type { Schemas } from '@/api/client';
import { Icon } from '@/components/icons';
import { ko } from '@/i18n/ko';
import { useSocketEvent } from '@/lib/socket';
import '../home.css';

type Megaphone = Schemas['Megaphone'];

/** A megaphone and when its turn on air starts here (`Date.now()` time). */
type Turn = Megaphone & { at: number };

/**
 * Megaphones as the server gives them their turns: each waits for its turn (the ones sent
 * before it first), then shows alone for its time; one an operator hides leaves at once.
 */
export function MegaphoneBanner() {
  const [queue, setQueue] = useState<Turn[]>([]);
  const [onAir, setOnAir] = useState<number | null>(null);
  const next = queue[0];
  const current = next !== undefined && next.id === onAir ? next : undefined;

  useSocketEvent('megaphone', (megaphone) => {
    const at = Date.now() + megaphone.waitMs;
    setQueue((waiting) => (waiting.some((m) => m.id === megaphone.id) ? waiting : [...waiting, { ...megaphone, at }]));
  });

  useSocketEvent('megaphoneHidden', ({ id }) => {
    setQueue((waiting) => waiting.filter((m) => m.id !== id));
  });

  useEffect(() => {
    if (!next) return;
    const start = Math.max(0, next.at - Date.now());
    const show = window.setTimeout(() => {
      setOnAir(next.id);
    }, start);
    const hide = window.setTimeout(() => {
      setQueue((waiting) => waiting.filter((m) => m.id !== next.id));
    }, start + next.showMs);
    return () => {
      window.clearTimeout(show);
      window.clearTimeout(hide);
    };
  }, [next]);

  return (
    <div className="megaphone-banner-slot" role="status" aria-live="polite">
      {current ? (
        <div key={current.id} className="megaphone-banner">
          <span className="megaphone-banner__icon" aria-hidden="true">
            <Icon name="megaphone" size={20} />
          </span>
          <span className="megaphone-banner__body">
            <span className="megaphone-banner__from">{ko.megaphone.from(current.nickname)}</span>
            <span className="megaphone-banner__text">{current.message}</span>
          </span>
        </div>
      ) : null}
    </div>
  );
}
