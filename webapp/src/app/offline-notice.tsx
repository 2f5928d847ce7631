import { useSyncExternalStore } from 'react';
import { Button } from '@/components/button';
import { Icon } from '@/components/icons';
import { ko } from '@/i18n/ko';

function subscribe(listener: () => void) {
  window.addEventListener('online', listener);
  window.addEventListener('offline', listener);
  return () => {
    window.removeEventListener('online', listener);
    window.removeEventListener('offline', listener);
  };
}

/**
 * Without a connection the app (opened from the service worker's cache) says so in Korean
 * instead of failing call by call; it goes away by itself when the connection is back.
 */
export function OfflineNotice() {
  const online = useSyncExternalStore(subscribe, () => navigator.onLine);
  if (online) return null;
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
