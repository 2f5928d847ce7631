import { useEffect, useEffectEvent, useRef, useState } from 'react';
import { NavigationType, useBlocker, useNavigate } from 'react-router';
import { toast } from 'sonner';
import type { Schemas } from '@/api/client';
import { limits } from '@/config/limits';
import { ko } from '@/i18n/ko';
import { chatLog, newClientId, pendingEntry, useChatLog, type ChatEntry } from '@/lib/chat-log';
import { clearChatInfo, clearMissedEnd, moveChatInfoToFeedback, readChatInfo, type ChatInfo } from '@/lib/chat-session';
import { tabSocket, useSocketEvent, useSocketStatus } from '@/lib/socket';
import { useEndMatch } from '../api/end-match';
import { useReport } from '../api/report';
import type { ReportForm } from '../components/report-modal';
import { useReadMarks } from './use-read-marks';
import { useTypingSignal } from './use-typing-signal';

/** The partner's indicator goes away this long after their last `typing`, should `stopTyping` be lost. */
export const PARTNER_TYPING_TIMEOUT_MS = 6000;
/** A short drop is reconnected silently; a notice appears only when it lasts longer than this. */
export const RECONNECT_NOTICE_MS = 2000;
/**
 * A send the server could not complete for now (`UNAVAILABLE`: its shared store did not answer)
 * is tried again this many times, `SEND_RETRY_MS` × the try apart, before it shows as failed.
 * It may have gone through after all: the server delivers a client id once and echoes a retry
 * with the first id, so a retry never doubles a message.
 */
export const SEND_RETRIES = 3;
export const SEND_RETRY_MS = 2000;

export interface ChatRoom {
  /** The conversation, confirmed and pending lines. */
  entries: ChatEntry[];
  /** Messages can be written: the chat has not ended, been reported or been left. */
  active: boolean;
  /** How the chat ended for this user, when the partner left, went away or reported them. */
  ended: Schemas['ChatEnded'] | null;
  /** This user is leaving: the room is being closed. */
  leaving: boolean;
  /** This user's report was accepted: the chat is over and they leave shortly. */
  reported: boolean;
  /** A report is on its way. */
  reporting: boolean;
  /** The partner can be reported: while chatting, or after they left or stayed away. */
  canReport: boolean;
  partnerTyping: boolean;
  /** The newest message the partner has read (their read mark); null before they read any. */
  partnerRead: string | null;
  /** The socket has been down longer than a short drop. */
  reconnecting: boolean;
  /** Browser back was pressed during the chat and waits for the leave confirmation. */
  backBlocked: boolean;
  /** Sends the trimmed text; false, sending nothing, when it is blank or the chat is over. */
  send: (text: string) => boolean;
  /** Sends a failed message again, with its client id: the server delivers it once at most. */
  retry: (clientId: string) => void;
  /** The composer's text changed: tells the partner this user types. */
  onInput: (text: string) => void;
  /** Ends the room and goes to /main; with `askFeedback` the mood question waits there. */
  leave: (askFeedback: boolean) => Promise<void>;
  /** The user chose to stay after pressing browser back. */
  stay: () => void;
  /** Reports the partner; once accepted the chat closes and this user leaves after 2 s. */
  report: (form: ReportForm) => Promise<void>;
}

/**
 * One chat room of the tab's socket: its messages and the partner's typing, sending, the
 * room's end (left, gone, reported), reporting and leaving. Browser back is held while the
 * chat is active (`backBlocked`), and closing the page asks first.
 */
export function useChatRoom(info: ChatInfo): ChatRoom {
  const { roomId, myId, partnerId } = info;
  const navigate = useNavigate();
  const entries = useChatLog(roomId);
  const socketStatus = useSocketStatus();
  const { trigger: endMatch } = useEndMatch();
  const { trigger: sendReport, isMutating: reporting } = useReport();
  const [ended, setEnded] = useState<Schemas['ChatEnded'] | null>(null);
  const [leaving, setLeaving] = useState(false);
  const [reported, setReported] = useState(false);
  const [partnerTypingAt, setPartnerTypingAt] = useState<number | null>(null);
  const [lateConnection, setLateConnection] = useState<number | null>(null);
  const endedRef = useRef(false);
  /** Automatic tries of each message refused for now, by client id. */
  const retries = useRef(new Map<string, number>());
  /** What the user wrote, by client id, until the echo shows what the partner reads. */
  const sentTexts = useRef(new Map<string, string>());
  const toldMasked = useRef(false);
  const active = ended === null && !leaving && !reported;
  const typing = useTypingSignal(roomId, active);
  const partnerRead = useReadMarks(roomId, entries, partnerId, active);
  const canReport = !leaving && !reported && (ended === null || ended.reason === 'left' || ended.reason === 'disconnected');

  const blocker = useBlocker(({ historyAction }) => historyAction === NavigationType.Pop && active);

  useEffect(() => {
    chatLog.open(roomId);
  }, [roomId]);

  useEffect(
    () => () => {
      // Walking away from an ended chat (browser back, say) ends the session too; not one
      // that opened since (a chat opened again from this one's end).
      if (endedRef.current) {
        if (readChatInfo()?.roomId === roomId) clearChatInfo();
        chatLog.close(roomId);
      }
    },
    [roomId],
  );

  useEffect(() => {
    if (!active) return;
    const warn = (event: BeforeUnloadEvent) => {
      event.preventDefault();
    };
    window.addEventListener('beforeunload', warn);
    return () => {
      window.removeEventListener('beforeunload', warn);
    };
  }, [active]);

  useEffect(() => {
    if (partnerTypingAt === null) return;
    const timer = window.setTimeout(() => {
      setPartnerTypingAt(null);
    }, PARTNER_TYPING_TIMEOUT_MS);
    return () => {
      window.clearTimeout(timer);
    };
  }, [partnerTypingAt]);

  useEffect(() => {
    if (socketStatus === 'open') return;
    const connection = tabSocket().connectionId();
    const timer = window.setTimeout(() => {
      setLateConnection(connection);
    }, RECONNECT_NOTICE_MS);
    return () => {
      window.clearTimeout(timer);
    };
  }, [socketStatus]);

  /** The chat is over: nothing more can be sent, and walking away ends the session. */
  function closeChat() {
    endedRef.current = true;
    typing.stop();
    setPartnerTypingAt(null);
  }

  useSocketEvent('chatEnded', (event) => {
    if (event.roomId !== roomId || leaving) return;
    closeChat();
    setEnded(event);
  });

  useSocketEvent('chatEndedByReport', (event) => {
    if (event.roomId !== roomId || leaving) return;
    closeChat();
    // The reporter is on the way out already (or reported from another tab, and goes too).
    if (event.byUserId === myId) setReported(true);
    else setEnded(event);
  });

  useSocketEvent('typing', (event) => {
    if (event.roomId === roomId && event.userId !== myId) setPartnerTypingAt(Date.now());
  });

  useSocketEvent('stopTyping', (event) => {
    if (event.roomId === roomId && event.userId !== myId) setPartnerTypingAt(null);
  });

  useSocketEvent('chatMessage', (message) => {
    if (message.roomId !== roomId) return;
    if (message.senderId === partnerId) setPartnerTypingAt(null);
    // The server masks abuse (and, early on, contact details) in what the partner reads:
    // the sender sees it in their own bubble and is told why, once a chat.
    const written = message.clientId ? sentTexts.current.get(message.clientId) : undefined;
    if (message.senderId === myId && written !== undefined) {
      sentTexts.current.delete(message.clientId ?? '');
      if (written !== message.message && !toldMasked.current) {
        toldMasked.current = true;
        toast(ko.chat.masked);
      }
    }
  });

  // After a reconnect the server has sent everything it holds; what it lacks is sent again.
  useSocketEvent('resumed', (event) => {
    if (event.roomId !== roomId) return;
    const socket = tabSocket();
    const connection = socket.connectionId();
    for (const entry of chatLog.entriesOf(roomId)) {
      if (entry.status !== 'pending' || entry.clientId === null || entry.sentOn === connection) continue;
      if (socket.send('chatMessage', { roomId, message: entry.message, clientId: entry.clientId })) {
        chatLog.update(roomId, entry.clientId, { sentOn: connection });
      }
    }
  });

  useSocketEvent('error', (error) => {
    if (error.event !== 'chatMessage' && error.event !== 'session') return;
    if (error.event !== 'chatMessage') {
      toast.error(error.message);
      return;
    }
    // The refusal names no message: the oldest one still waiting on this connection is the one.
    const connection = tabSocket().connectionId();
    const refused = chatLog.entriesOf(roomId).find((entry) => entry.status === 'pending' && entry.sentOn === connection);
    const clientId = refused?.clientId;
    const tries = clientId ? (retries.current.get(clientId) ?? 0) : SEND_RETRIES;
    if (clientId && error.code === 'UNAVAILABLE' && tries < SEND_RETRIES) {
      // Not sent on any connection until the try: a resume meanwhile sends it instead.
      retries.current.set(clientId, tries + 1);
      chatLog.update(roomId, clientId, { sentOn: null });
      window.setTimeout(() => {
        resend(clientId);
      }, SEND_RETRY_MS * (tries + 1));
      return;
    }
    toast.error(error.message);
    if (clientId) chatLog.update(roomId, clientId, { status: 'failed' });
  });

  /** Sends a pending message again under its client id, unless it is confirmed or on its way. */
  function resend(clientId: string) {
    const entry = chatLog.entriesOf(roomId).find((each) => each.id === null && each.clientId === clientId);
    if (!entry || entry.status !== 'pending' || entry.sentOn !== null || !active) return;
    const socket = tabSocket();
    if (socket.send('chatMessage', { roomId, message: entry.message, clientId })) {
      chatLog.update(roomId, clientId, { sentOn: socket.connectionId() });
    }
  }

  function send(text: string): boolean {
    const message = text.trim();
    if (message === '' || !active) return false;
    const clientId = newClientId();
    sentTexts.current.set(clientId, message);
    chatLog.add(roomId, pendingEntry(clientId, myId, message, Date.now()));
    const socket = tabSocket();
    // Unsent, it stays pending and goes out after the reconnect.
    if (socket.send('chatMessage', { roomId, message, clientId })) {
      chatLog.update(roomId, clientId, { sentOn: socket.connectionId() });
    }
    typing.stop();
    return true;
  }

  function retry(clientId: string) {
    if (!active) return;
    retries.current.delete(clientId);
    chatLog.update(roomId, clientId, { status: 'pending', sentOn: null });
    resend(clientId);
  }

  async function leave(askFeedback: boolean) {
    setLeaving(true);
    typing.stop();
    // The room ends either way: the socket frame below ends it too if this call fails.
    await endMatch({ roomId });
    tabSocket().send('leaveRoom', { roomId, userId: myId });
    if (askFeedback) moveChatInfoToFeedback(info);
    else clearChatInfo();
    // Its end was seen here: /main need not say it again.
    clearMissedEnd();
    chatLog.clear();
    if (blocker.state === 'blocked') blocker.reset();
    void navigate('/main', { replace: true });
  }

  // The spec: after a successful report, leave after 2 seconds, with no mood question.
  const leaveAfterReport = useEffectEvent(() => {
    void leave(false);
  });
  useEffect(() => {
    if (!reported) return;
    const timer = window.setTimeout(leaveAfterReport, limits.reportLeaveDelayMs);
    return () => {
      window.clearTimeout(timer);
    };
  }, [reported]);

  async function report(form: ReportForm) {
    const outcome = await sendReport({ roomId, reportedId: partnerId, reasons: form.reasons, extraMessage: form.extraMessage });
    if (!outcome.ok) {
      const serverFailed = outcome.network || outcome.status >= 500;
      toast.error(serverFailed ? ko.report.serverError : (outcome.message ?? ko.report.failed));
      return;
    }
    toast.success(outcome.data.message || ko.report.accepted);
    closeChat();
    setReported(true);
  }

  function stay() {
    if (blocker.state === 'blocked') blocker.reset();
  }

  return {
    entries,
    active,
    ended,
    leaving,
    reported,
    reporting,
    canReport,
    partnerTyping: partnerTypingAt !== null && active,
    partnerRead,
    reconnecting: socketStatus !== 'open' && lateConnection === tabSocket().connectionId(),
    backBlocked: blocker.state === 'blocked',
    send,
    retry,
    onInput: typing.onInput,
    leave,
    stay,
    report,
  };
}
