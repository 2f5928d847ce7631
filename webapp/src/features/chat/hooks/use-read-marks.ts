import { useEffect, useRef, useState } from 'react';
import { compareMessageIds, type ChatEntry } from '@/lib/chat-log';
import { sendFrame, tabSocket, useSocketEvent, useSocketStatus } from '@/lib/socket';

/**
 * Read marks go out at most this often: a burst of the partner's messages is told read once,
 * for its newest, and a fast chat stays well inside the socket's frame allowance.
 */
export const READ_MARK_SPACING_MS = 2000;

function newestOf(entries: readonly ChatEntry[], senderId: number): string | undefined {
  let newest: string | undefined;
  for (const entry of entries) {
    if (entry.id === null || entry.senderId !== senderId) continue;
    if (newest === undefined || compareMessageIds(entry.id, newest) > 0) newest = entry.id;
  }
  return newest;
}

function isVisible(): boolean {
  return document.visibilityState === 'visible';
}

/**
 * Read marks, as in every Korean messenger: the user's own messages carry "1" until the partner
 * has read them. This side tells the partner (`chatRead`) the newest of their messages it has
 * shown while the page was visible, one mark for a burst; after a reconnect it asks for the
 * partner's mark (`ask`), and answers the partner's asking with its own. Answers the partner's
 * mark: the id of the newest message they have read, null before they have read any.
 */
export function useReadMarks(roomId: string, entries: readonly ChatEntry[], partnerId: number, active: boolean): string | null {
  const [partnerRead, setPartnerRead] = useState<string | null>(null);
  const [visible, setVisible] = useState(isVisible);
  const socketStatus = useSocketStatus();
  /** The newest of the partner's messages shown while visible: this user's mark. */
  const readUpTo = useRef<string | undefined>(undefined);
  /** The mark last told, and on which connection. */
  const told = useRef<{ id: string; connection: number } | null>(null);
  const lastSentAt = useRef(0);
  const timer = useRef<number | undefined>(undefined);

  useEffect(() => {
    const onChange = () => {
      setVisible(isVisible());
    };
    document.addEventListener('visibilitychange', onChange);
    return () => {
      document.removeEventListener('visibilitychange', onChange);
    };
  }, []);

  useEffect(
    () => () => {
      window.clearTimeout(timer.current);
    },
    [],
  );

  const newest = newestOf(entries, partnerId);

  /** Tells the partner the mark, now or once the spacing allows; the newest wins meanwhile. */
  function tell() {
    if (timer.current !== undefined) return;
    const wait = lastSentAt.current + READ_MARK_SPACING_MS - Date.now();
    if (wait > 0) {
      timer.current = window.setTimeout(() => {
        timer.current = undefined;
        tell();
      }, wait);
      return;
    }
    const mark = readUpTo.current;
    const connection = tabSocket().connectionId();
    if (mark === undefined || (told.current?.id === mark && told.current.connection === connection)) return;
    if (sendFrame('chatRead', { roomId, lastId: mark })) {
      told.current = { id: mark, connection };
      lastSentAt.current = Date.now();
    }
  }

  useEffect(() => {
    if (!active || !visible || socketStatus !== 'open' || newest === undefined) return;
    if (readUpTo.current === undefined || compareMessageIds(newest, readUpTo.current) > 0) readUpTo.current = newest;
    if (told.current === null || compareMessageIds(readUpTo.current, told.current.id) > 0) tell();
  });

  // Back from a reconnect (or a reload): the partner's mark may have moved meanwhile.
  useSocketEvent('resumed', (event) => {
    if (event.roomId !== roomId || !active) return;
    const mark = readUpTo.current;
    if (sendFrame('chatRead', { roomId, ask: true, ...(mark === undefined ? {} : { lastId: mark }) }) && mark !== undefined) {
      told.current = { id: mark, connection: tabSocket().connectionId() };
      lastSentAt.current = Date.now();
    }
  });

  useSocketEvent('chatRead', (event) => {
    if (event.roomId !== roomId || event.userId !== partnerId) return;
    const read = event.lastId;
    if (read !== undefined) setPartnerRead((before) => (before === null || compareMessageIds(read, before) > 0 ? read : before));
    const mark = readUpTo.current;
    if (event.ask === true && mark !== undefined && active) sendFrame('chatRead', { roomId, lastId: mark });
  });

  return partnerRead;
}
