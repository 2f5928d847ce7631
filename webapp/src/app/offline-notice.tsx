import { Button } from '@/components/button';
import { Icon } from '@/components/icons';
import { ko } from '@/i18n/ko';
import { useOnline } from '@/lib/use-online';

/**
 * Pages that stay usable without a connection and say so themselves, in a line of their
 * own: a chat keeps its conversation on screen and its unsent messages marked until the
 * connection is back, and is never reloaded (a reload there would ask to leave the chat).
 */
const PAGES_THAT_STAY_OFFLINE = new Set(['/chatpage']);

/**
 * Without a connection the app (opened from the service worker's cache) says so in Korean
 * instead of failing call by call; it goes away by itself when the connection is back. On
 * the pages above it leaves the page to say it.
 */
export function OfflineNotice({ path }: { path: string }) {
  const online = useOnline();
  if (online || PAGES_THAT_STAY_OFFLINE.has(path)) return null;
  return (
    <div className="offline-screen" role="alertdialog" aria-modal="true" aria-labelledby="offline-title" aria-describedby="offline-text">
      <div className="offline-screen__panel">
        <div className="offline-screen__icon" aria-hidden="true">
          <Icon name="cloudOff" size={34} />
        </div>
        <h2 id="offline-title" className="offline-screen__title">
          {ko.offline.title}
        </h2>
        <p id="offline-text" className="offline-screen__text">
          {ko.offline.text}
        </p>
        <Button
          block
          onClick={() => {
            window.location.reload();
          }}
        >
          {ko.offline.retry}
        </Button>
      </div>
    </div>
  );
}
