import { useEffect, useEffectEvent, useRef, useState, type SubmitEvent } from 'react';
import { NavigationType, useBlocker, useNavigate } from 'react-router';
import { toast } from 'sonner';
import type { Schemas } from '@/api/client';
import { AlertDialog, ConfirmDialog } from '@/components/alert-dialog';
import { Button } from '@/components/button';
import { Icon } from '@/components/icons';
import { Modal } from '@/components/modal';
import { limits } from '@/config/limits';
import { ko } from '@/i18n/ko';
import { chatLog, newClientId, pendingEntry, useChatLog } from '@/lib/chat-log';
import { clearChatInfo, moveChatInfoToFeedback, readChatInfo, type ChatInfo } from '@/lib/chat-session';
import { tabSocket, useSocketEvent, useSocketStatus } from '@/lib/socket';
import { useEndMatch } from '../api/end-match';
import { useReport } from '../api/report';
import { useTypingSignal } from '../hooks/use-typing-signal';
import { MessageList } from './message-list';
import { ReportModal, type ReportForm } from './report-modal';

const MESSAGE_MAX_LENGTH = 1000;
/** The partner's indicator goes away this long after their last `typing`, should `stopTyping` be lost. */
const PARTNER_TYPING_TIMEOUT_MS = 6000;
/** A short drop is reconnected silently; a notice appears only when it lasts longer than this. */
const RECONNECT_NOTICE_MS = 2000;

/** The chat room of the stored session; without one (no room or no partner), a notice and back to /main. */
export function ChatPage() {
  const [info] = useState(readChatInfo);
  const navigate = useNavigate();
  if (!info) {
    return (
      <AlertDialog
        open
        title={ko.chat.missingTitle}
        message={ko.chat.missingInfo}
        onConfirm={() => {
          void navigate('/main', { replace: true });
        }}
      />
    );
  }
  return <ChatRoom info={info} />;
}

function ChatRoom({ info }: { info: ChatInfo }) {
  const { roomId, myId, partnerId, partnerNickname, word } = info;
  const navigate = useNavigate();
  const entries = useChatLog(roomId);
  const socketStatus = useSocketStatus();
  const { trigger: endMatch } = useEndMatch();
  const { trigger: sendReport, isMutating: reporting } = useReport();
  const [draft, setDraft] = useState('');
  const [ended, setEnded] = useState<Schemas['ChatEnded'] | null>(null);
  const [leaving, setLeaving] = useState(false);
  const [askLeave, setAskLeave] = useState(false);
  const [reportOpen, setReportOpen] = useState(false);
  /** This user's report was accepted: the chat is over and they leave shortly. */
  const [reported, setReported] = useState(false);
  const [partnerTypingAt, setPartnerTypingAt] = useState<number | null>(null);
  const [lateConnection, setLateConnection] = useState<number | null>(null);
  const endedRef = useRef(false);
  const active = ended === null && !leaving && !reported;
  const typing = useTypingSignal(roomId, active);
  // A partner who left, or stayed away, can still be reported for what they said.
  const canReport = !leaving && !reported && (ended === null || ended.reason === 'left' || ended.reason === 'disconnected');

  // Browser back asks first, like the leave button.
  const blocker = useBlocker(({ historyAction }) => historyAction === NavigationType.Pop && active);
  const leaveDialogOpen = (askLeave || blocker.state === 'blocked') && ended === null && !reported;

  useEffect(() => {
    chatLog.open(roomId);
  }, [roomId]);

  useEffect(
    () => () => {
      // Walking away from an ended chat (browser back, say) ends the session too.
      if (endedRef.current) {
        clearChatInfo();
        chatLog.clear();
      }
    },
    [],
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

  useEffect(() => {
    window.scrollTo({ top: document.documentElement.scrollHeight, behavior: 'smooth' });
  }, [entries.length, partnerTypingAt]);

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
    if (event.byUserId === myId) {
      setReportOpen(false);
      setReported(true);
      return;
    }
    setReportOpen(false);
    setEnded(event);
  });

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

  useSocketEvent('typing', (event) => {
    if (event.roomId === roomId && event.userId !== myId) setPartnerTypingAt(Date.now());
  });

  useSocketEvent('stopTyping', (event) => {
    if (event.roomId === roomId && event.userId !== myId) setPartnerTypingAt(null);
  });

  useSocketEvent('chatMessage', (message) => {
    if (message.roomId === roomId && message.senderId === partnerId) setPartnerTypingAt(null);
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
    toast.error(error.message);
    if (error.event !== 'chatMessage') return;
    // The refusal names no message: the oldest one still waiting on this connection is the one.
    const connection = tabSocket().connectionId();
    const refused = chatLog.entriesOf(roomId).find((entry) => entry.status === 'pending' && entry.sentOn === connection);
    if (refused?.clientId) chatLog.update(roomId, refused.clientId, { status: 'failed' });
  });

  function onSubmit(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    const message = draft.trim();
    if (message === '' || !active) return;
    const clientId = newClientId();
    chatLog.add(roomId, pendingEntry(clientId, myId, message, Date.now()));
    const socket = tabSocket();
    // Unsent, it stays pending and goes out after the reconnect.
    if (socket.send('chatMessage', { roomId, message, clientId })) {
      chatLog.update(roomId, clientId, { sentOn: socket.connectionId() });
    }
    setDraft('');
    typing.stop();
  }

  async function leave(askFeedback: boolean) {
    setLeaving(true);
    typing.stop();
    // The room ends either way: the socket frame below ends it too if this call fails.
    await endMatch({ roomId });
    tabSocket().send('leaveRoom', { roomId, userId: myId });
    if (askFeedback) moveChatInfoToFeedback(info);
    else clearChatInfo();
    chatLog.clear();
    if (blocker.state === 'blocked') blocker.reset();
    void navigate('/main', { replace: true });
  }

  async function submitReport(form: ReportForm) {
    const outcome = await sendReport({ roomId, reportedId: partnerId, reasons: form.reasons, extraMessage: form.extraMessage });
    if (!outcome.ok) {
      const serverFailed = outcome.network || outcome.status >= 500;
      toast.error(serverFailed ? ko.report.serverError : (outcome.message ?? ko.report.failed));
      return;
    }
    toast.success(outcome.data.message || ko.report.accepted);
    closeChat();
    setReportOpen(false);
    setReported(true);
  }

  function cancelLeave() {
    setAskLeave(false);
    if (blocker.state === 'blocked') blocker.reset();
  }

  const reconnecting = socketStatus !== 'open' && lateConnection === tabSocket().connectionId();
  const partnerTyping = partnerTypingAt !== null && active;

  return (
    <div className="chat-page">
      <header className="chat-header">
        <button
          type="button"
          className="icon-button chat-header__report"
          aria-label={ko.report.open}
          title={ko.report.open}
          disabled={!canReport}
          onClick={() => {
            setReportOpen(true);
          }}
        >
          <Icon name="siren" size={24} />
        </button>
        <div className="chat-header__title">
          <h1 className="chat-header__word">{word}</h1>
          <p className="chat-header__partner">{ko.chat.partner(partnerNickname)}</p>
        </div>
        <Button
          variant="subtle"
          size="sm"
          className="chat-header__leave"
          disabled={!active}
          onClick={() => {
            setAskLeave(true);
          }}
        >
          {ko.chat.leave}
        </Button>
      </header>

      <div className="chat-banner">
        <span className="chat-banner__icon" aria-hidden="true">
          <Icon name="sparkles" size={20} />
        </span>
        <div>
          <p className="chat-banner__text">{ko.chat.banner(partnerNickname, word)}</p>
          <p className="chat-banner__hint">{ko.chat.bannerHint}</p>
        </div>
      </div>

      {reported ? (
        <p className="chat-notice chat-notice--info" role="status">
          {ko.report.leavingSoon}
        </p>
      ) : null}

      {reconnecting && !reported ? (
        <p className="chat-notice" role="status">
          {ko.chat.reconnecting}
        </p>
      ) : null}

      <div className="chat-body">
        {entries.length === 0 ? <p className="chat-empty">{ko.chat.emptyHint}</p> : null}
        <MessageList entries={entries} myId={myId} partnerNickname={partnerNickname} />
        <div className="typing-indicator" role="status" aria-live="polite">
          {partnerTyping ? (
            <>
              <span className="typing-indicator__dots" aria-hidden="true">
                <span />
                <span />
                <span />
              </span>
              <span className="typing-indicator__text">{ko.chat.typing(partnerNickname)}</span>
            </>
          ) : null}
        </div>
      </div>

      <form className="chat-composer" onSubmit={onSubmit}>
        <label className="visually-hidden" htmlFor="chat-input">
          {ko.chat.inputLabel}
        </label>
        <input
          id="chat-input"
          className="chat-composer__input"
          type="text"
          autoComplete="off"
          enterKeyHint="send"
          maxLength={MESSAGE_MAX_LENGTH}
          placeholder={active ? ko.chat.placeholder : ko.chat.endedPlaceholder}
          value={draft}
          disabled={!active}
          onChange={(event) => {
            setDraft(event.target.value);
            typing.onInput(event.target.value);
          }}
        />
        <button type="submit" className="chat-composer__send" disabled={!active || draft.trim() === ''} aria-label={ko.chat.send}>
          <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true">
            <path d="M4.5 12 19.5 4.5 15 19.5l-3.2-6.3z M11.8 13.2 19.5 4.5" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" />
          </svg>
        </button>
      </form>

      <ConfirmDialog
        open={leaveDialogOpen}
        title={ko.chat.leaveTitle}
        message={ko.chat.leaveMessage}
        confirmLabel={ko.chat.leaveConfirm}
        danger
        busy={leaving}
        onCancel={cancelLeave}
        onConfirm={() => void leave(true)}
      />

      {reportOpen && canReport ? (
        <ReportModal
          partnerNickname={partnerNickname}
          busy={reporting}
          onCancel={() => {
            setReportOpen(false);
          }}
          onSubmit={(form) => void submitReport(form)}
        />
      ) : null}

      <Modal
        open={ended !== null && !leaving && !reported && !reportOpen}
        title={ko.chat.endedTitle}
        role="alertdialog"
        className={ended?.reason === 'report' ? 'chat-ended chat-ended--report' : 'chat-ended'}
      >
        <div className="chat-ended__icon" aria-hidden="true">
          <Icon name={ended?.reason === 'report' ? 'siren' : 'bubble'} size={30} />
        </div>
        <p className="modal__description">{ended ? endedText(ended, info) : null}</p>
        {ended?.reason === 'report' ? <p className="chat-ended__hint">{ko.chat.endedByReportHint}</p> : null}
        <div className="modal__actions">
          <Button block onClick={() => void leave(false)}>
            {ko.chat.endedLeave}
          </Button>
          {canReport ? (
            <Button
              variant="ghost"
              block
              onClick={() => {
                setReportOpen(true);
              }}
            >
              {ko.report.open}
            </Button>
          ) : null}
        </div>
      </Modal>
    </div>
  );
}

function endedText(ended: Schemas['ChatEnded'], info: ChatInfo): string {
  if (ended.reason === 'report') return ko.chat.endedByReport;
  if (ended.reason === 'disconnected') return ko.chat.endedDisconnected(info.partnerNickname);
  if (ended.reason === 'left' && ended.byUserId !== info.myId) return ko.chat.endedByPartner(info.partnerNickname);
  return ko.chat.endedGone;
}
