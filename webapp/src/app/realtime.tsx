import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import { useAuthCheck } from '@/api/auth-check';
import type { Schemas } from '@/api/client';
import { useSetMegaphoneCount } from '@/api/megaphones';
import { useSessionCache } from '@/api/session';
import { confirmWarning, useWarnings, type Warning } from '@/api/warnings';
import { AlertDialog } from '@/components/alert-dialog';
import { ko } from '@/i18n/ko';
import { chatLog } from '@/lib/chat-log';
import { chatInfoFromMatched, writeChatInfo } from '@/lib/chat-session';
import { formatKoreanDayAndTime } from '@/lib/date';
import { tabSocket, useSocketEvent } from '@/lib/socket';
import { AgainInvitation } from './again-invitation';

/**
 * Keeps the tab's socket open while logged in and closed otherwise (one the server closed for a
 * newer socket of the account opens again when the tab is looked at). A match is honoured on
 * whatever page it reaches the user: the session is stored and the chat opens. A suspension or
 * ban ends the session here and now, and says why and until when; a warning is shown and
 * nothing else changes: those given while the user was away are shown at their next visit, one
 * at a time, each until confirmed. A megaphone count the server tells is shown on every page at
 * once, and so is an invitation to meet again (다시 텔레파시).
 */
export function Realtime() {
  const { data: auth } = useAuthCheck();
  const loggedIn = auth?.loggedIn === true;
  const navigate = useNavigate();
  const { markLoggedOut } = useSessionCache();
  const [restriction, setRestriction] = useState<Schemas['AccountRestricted'] | null>(null);
  const [told, setTold] = useState<Warning[]>([]);
  const [confirmed, setConfirmed] = useState<ReadonlySet<number>>(() => new Set());
  const { data: waiting } = useWarnings();
  const setMegaphoneCount = useSetMegaphoneCount();
  // The ones waiting since the last visit, then the ones told since, each once.
  const warning = [...(waiting?.warnings ?? []), ...told].find((w) => !confirmed.has(w.id)) ?? null;

  useEffect(() => {
    if (!loggedIn) return;
    const socket = tabSocket();
    socket.start();
    // A socket the server closed for a newer one of the account comes back once its tab is in use.
    const wake = () => {
      if (document.visibilityState === 'visible') socket.wake();
    };
    document.addEventListener('visibilitychange', wake);
    window.addEventListener('focus', wake);
    return () => {
      document.removeEventListener('visibilitychange', wake);
      window.removeEventListener('focus', wake);
      socket.stop();
      chatLog.clear();
    };
  }, [loggedIn]);

  useSocketEvent('matched', (matched) => {
    writeChatInfo(chatInfoFromMatched(matched, Date.now()));
    chatLog.open(matched.roomId);
    void navigate('/chatpage');
  });

  useSocketEvent('accountRestricted', (notice) => {
    // The server closes the socket next and the session no longer works: no reconnecting.
    tabSocket().stop();
    chatLog.clear();
    setRestriction(notice);
    // As a logout does; the member pages then send the user to /login behind the dialog.
    void markLoggedOut();
  });

  useSocketEvent('accountWarned', (notice) => {
    setTold((current) => (current.some((w) => w.id === notice.id) ? current : [...current, notice]));
  });

  useSocketEvent('megaphoneCount', ({ count }) => {
    void setMegaphoneCount(count);
  });

  return (
    <>
      <AlertDialog
        open={warning !== null && restriction === null}
        title={ko.warned.title}
        message={
          warning ? (
            <>
              {warning.message}
              <span className="warning-given-at">{ko.warned.givenAt(formatKoreanDayAndTime(warning.givenAt))}</span>
            </>
          ) : undefined
        }
        onConfirm={() => {
          if (!warning) return;
          setConfirmed((current) => new Set(current).add(warning.id));
          // Not confirmed on the server (offline): shown again at the next visit.
          void confirmWarning(warning.id);
        }}
      />
      {restriction === null ? <AgainInvitation /> : null}
      <AlertDialog
        open={restriction !== null}
        title={ko.restricted.title}
        message={restriction?.message}
        onConfirm={() => {
          setRestriction(null);
          void navigate('/login', { replace: true });
        }}
      />
    </>
  );
}
