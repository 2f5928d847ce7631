import { useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent, type SubmitEvent } from 'react';
import { useNavigate } from 'react-router';
import type { Schemas } from '@/api/client';
import { AgainWish } from '@/components/again-wish';
import { AlertDialog, ConfirmDialog } from '@/components/alert-dialog';
import { Button } from '@/components/button';
import { Icon } from '@/components/icons';
import { Modal } from '@/components/modal';
import { ko } from '@/i18n/ko';
import { useCurrentChat } from '@/api/current-chat';
import { Spinner } from '@/components/spinner';
import { chatInfoFromMatched, readChatInfo, writeChatInfo, type ChatInfo } from '@/lib/chat-session';
import { resumeStoredChat, useSocketEvent } from '@/lib/socket';
import { useOnline } from '@/lib/use-online';
import { useChatRoom } from '../hooks/use-chat-room';
import { useFirstQuestion } from '../hooks/use-first-question';
import { sendsOnEnter } from '../lib/enter-key';
import { AgainBanner } from './again-banner';
import { MessageList } from './message-list';
import { QuestionCard } from './question-card';
import { ReportModal } from './report-modal';
import '../chat.css';

const MESSAGE_MAX_LENGTH = 1000;
/** The composer grows with its text up to about five lines, then scrolls. */
const COMPOSER_MAX_HEIGHT = 136;
/** The first question keeps to one quiet row once this many messages are in. */
export const QUESTION_COMPACT_AFTER = 4;

/**
 * The chat room of the stored session. Without one, the server says what there is: the room
 * the user sits in (opened on another device, say) opens here; a chat that ended while the
 * user was away is said to have ended; with neither, a notice and back to /main.
 */
export function ChatPage() {
  const [info, setInfo] = useState(readChatInfo);
  // A new chat while this page shows one that ended (an invitation to meet again accepted
  // from its end): the page turns to it, as a match anywhere else opens it.
  useSocketEvent('matched', (matched) => {
    setInfo(chatInfoFromMatched(matched, Date.now()));
  });
  if (!info) return <ChatFromServer onRoom={setInfo} />;
  return <ChatRoom key={info.roomId} info={info} />;
}

function ChatFromServer({ onRoom }: { onRoom: (info: ChatInfo) => void }) {
  const navigate = useNavigate();
  const { data, error } = useCurrentChat('chatpage');
  const room = data?.room;

  useEffect(() => {
    if (!room) return;
    const info = chatInfoFromMatched(room, Date.now());
    writeChatInfo(info);
    // Its messages so far, as after a reconnect.
    resumeStoredChat();
    onRoom(info);
  }, [room, onRoom]);

  const toMain = () => {
    void navigate('/main', { replace: true });
  };
  if (error || (data && !data.room && !data.ended)) {
    return <AlertDialog open title={ko.chat.missingTitle} message={ko.chat.missingInfo} onConfirm={toMain} />;
  }
  const ended = data?.ended;
  if (!ended) {
    return (
      <main className="chat-page chat-page--over">
        <Spinner label={ko.chat.loadingChat} />
      </main>
    );
  }
  return (
    <main className="chat-page chat-page--over">
      <section className="card chat-over" aria-labelledby="chat-over-title">
        <div className="chat-ended__icon" aria-hidden="true">
          <Icon name="bubble" size={30} />
        </div>
        <h1 id="chat-over-title" className="chat-over__title">
          {ko.chat.endedTitle}
        </h1>
        <p className="chat-over__text">{ko.chat.overText(ended.partnerNickname, ended.word)}</p>
        <p className="chat-over__hint">{ko.chat.overHint}</p>
        <Button block onClick={toMain}>
          {ko.chat.overBack}
        </Button>
      </section>
    </main>
  );
}

function ChatRoom({ info }: { info: ChatInfo }) {
  const { myId, partnerNickname, word } = info;
  const room = useChatRoom(info);
  const online = useOnline();
  const [draft, setDraft] = useState('');
  const bodyRef = useRef<HTMLDivElement>(null);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const [askLeave, setAskLeave] = useState(false);
  const [reportOpen, setReportOpen] = useState(false);
  const { entries, active, ended, leaving, reported, canReport, partnerTyping } = room;
  const firstQuestion = useFirstQuestion(info, active);
  const leaveDialogOpen = (askLeave || room.backBlocked) && ended === null && !reported;
  // A chat ended by a report, or reported, cannot be reported (again): its form closes.
  const reportShown = reportOpen && canReport;

  // The newest message in view: on a phone the page scrolls; on a desktop only the message list does.
  useEffect(() => {
    window.scrollTo({ top: document.documentElement.scrollHeight, behavior: 'smooth' });
    // (Smoothly there: chat.css asks for it from 1024 px.)
    const body = bodyRef.current;
    if (body) body.scrollTop = body.scrollHeight;
  }, [entries.length, partnerTyping]);

  // The composer is as tall as its lines, up to COMPOSER_MAX_HEIGHT.
  useLayoutEffect(() => {
    const input = inputRef.current;
    if (!input) return;
    input.style.height = 'auto';
    input.style.height = `${Math.min(input.scrollHeight + input.offsetHeight - input.clientHeight, COMPOSER_MAX_HEIGHT)}px`;
  }, [draft]);

  function onSubmit(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    if (room.send(draft)) setDraft('');
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (!sendsOnEnter(event)) return;
    event.preventDefault();
    event.currentTarget.form?.requestSubmit();
  }

  function cancelLeave() {
    setAskLeave(false);
    room.stay();
  }

  return (
    <main className="chat-page">
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

      {info.again ? (
        <AgainBanner word={word} />
      ) : (
        <div className="chat-banner">
          <span className="chat-banner__icon" aria-hidden="true">
            <Icon name="sparkles" size={20} />
          </span>
          <div>
            <p className="chat-banner__text">
              <BannerPartner nickname={partnerNickname} /> {ko.chat.bannerSameWord(word)}
            </p>
            <p className="chat-banner__hint">{ko.chat.bannerHint}</p>
          </div>
        </div>
      )}

      <QuestionCard
        question={firstQuestion.question}
        asking={firstQuestion.asking}
        active={active}
        compact={entries.length >= QUESTION_COMPACT_AFTER}
        onNext={firstQuestion.next}
      />

      {reported ? (
        <p className="chat-notice chat-notice--info" role="status">
          {ko.report.leavingSoon}
        </p>
      ) : null}

      {/* Offline, the conversation stays as it is: unsent messages stay marked and go out
          once the connection is back. A line says so; nothing covers the chat or reloads it. */}
      {!online && ended === null && !reported ? (
        <p className="chat-notice chat-notice--offline" role="status">
          <Icon name="cloudOff" size={16} />
          <span>{ko.chat.offline}</span>
        </p>
      ) : room.reconnecting && !reported ? (
        <p className="chat-notice" role="status">
          {ko.chat.reconnecting}
        </p>
      ) : null}

      <div className="chat-body" ref={bodyRef}>
        {/* An invitation to say hello, only while hello can still be said. */}
        {entries.length === 0 && active ? <p className="chat-empty">{ko.chat.emptyHint}</p> : null}
        <MessageList
          entries={entries}
          myId={myId}
          partnerNickname={partnerNickname}
          partnerRead={room.partnerRead}
          onRetry={active ? room.retry : undefined} />
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
        <textarea
          ref={inputRef}
          id="chat-input"
          className="chat-composer__input"
          rows={1}
          autoComplete="off"
          enterKeyHint="send"
          maxLength={MESSAGE_MAX_LENGTH}
          placeholder={active ? ko.chat.placeholder : ko.chat.endedPlaceholder}
          value={draft}
          disabled={!active}
          onChange={(event) => {
            setDraft(event.target.value);
            room.onInput(event.target.value);
          }}
          onKeyDown={onKeyDown}
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
        onConfirm={() => void room.leave(true)}
      />

      {reportShown ? (
        <ReportModal
          partnerNickname={partnerNickname}
          busy={room.reporting}
          onCancel={() => {
            setReportOpen(false);
          }}
          onSubmit={(form) => void room.report(form)}
        />
      ) : null}

      <Modal
        open={ended !== null && !leaving && !reported && !reportShown}
        title={ko.chat.endedTitle}
        role="alertdialog"
        className={ended?.reason === 'report' ? 'chat-ended chat-ended--report' : 'chat-ended'}
      >
        <div className="chat-ended__icon" aria-hidden="true">
          <Icon name={ended?.reason === 'report' ? 'siren' : 'bubble'} size={30} />
        </div>
        <p className="modal__description">{ended ? endedText(ended, info) : null}</p>
        {ended?.reason === 'report' ? (
          <p className="chat-ended__hint">{ko.chat.endedByReportHint}</p>
        ) : (
          <div className="chat-ended__again">
            <AgainWish roomId={info.roomId} word={word} again={info.again} />
          </div>
        )}
        <div className="modal__actions">
          {/* Whoever the chat ended on is asked how it felt and may block the partner, as the
              one who left is; after a report, neither. */}
          <Button block onClick={() => void room.leave(ended?.reason !== 'report')}>
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
    </main>
  );
}

function endedText(ended: Schemas['ChatEnded'], info: ChatInfo): string {
  if (ended.reason === 'report') return ko.chat.endedByReport;
  if (ended.reason === 'disconnected') return ko.chat.endedDisconnected(info.partnerNickname);
  if (ended.reason === 'left' && ended.byUserId === info.partnerId) return ko.chat.endedByPartner(info.partnerNickname);
  // The answer to a resume: the chat ended while this device was away.
  if (ended.reason === 'left' && ended.byUserId === undefined) return ko.chat.endedWhileAway;
  return ko.chat.endedGone;
}

/**
 * "…님과" of the banner: a 20-letter nickname breaks inside itself where it must, and its last
 * letter, 님 and 과 stay on one line.
 */
function BannerPartner({ nickname }: { nickname: string }) {
  // Nicknames are Hangul, Latin letters and digits (the nickname rule): one code unit a letter.
  return (
    <span className="chat-banner__partner">
      {nickname.slice(0, -1)}
      <span className="chat-banner__with">{ko.chat.bannerWith(nickname.slice(-1))}</span>
    </span>
  );
}
