import { useState } from 'react';
import { ko } from '@/i18n/ko';
import { tabSocket, useSocketEvent } from '@/lib/socket';

/** The true number of users online, shown only when there are at least two. */
export function OnlineCounter() {
  const [count, setCount] = useState(() => tabSocket().latest('onlineCount')?.count ?? 0);
  useSocketEvent('onlineCount', (data) => {
    setCount(data.count);
  });
  if (count < 2) return null;
  return (
    <span className="online-pill">
      <span className="online-pill__dot" aria-hidden="true" />
      {ko.round.online(count)}
    </span>
  );
}
