import { useEffect, useState } from 'react';
import type { Schemas } from '@/api/client';
import { Icon } from '@/components/icons';
import { ko } from '@/i18n/ko';
import { useSocketEvent } from '@/lib/socket';

/** How long one megaphone stays on screen (spec: notification auto-close 5 s). */
export const MEGAPHONE_SHOWN_MS = 5000;

type Megaphone = Schemas['Megaphone'];

/** Megaphones as they arrive, one at a time, each for 5 seconds; one an operator hides leaves at once. */
export function MegaphoneBanner() {
  const [queue, setQueue] = useState<Megaphone[]>([]);
  const current = queue[0];

  useSocketEvent('megaphone', (megaphone) => {
    setQueue((waiting) => (waiting.some((m) => m.id === megaphone.id) ? waiting : [...waiting, megaphone]));
  });

  useSocketEvent('megaphoneHidden', ({ id }) => {
    setQueue((waiting) => waiting.filter((m) => m.id !== id));
  });

  useEffect(() => {
    if (!current) return;
    const timer = window.setTimeout(() => {
      setQueue((waiting) => waiting.slice(1));
    }, MEGAPHONE_SHOWN_MS);
    return () => {
      window.clearTimeout(timer);
    };
  }, [current]);

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
