import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { toast } from 'sonner';
import { useProfile } from '@/api/profile';
import { BusinessFooter } from '@/components/business-footer';
import { Button, ButtonLink } from '@/components/button';
import { Icon } from '@/components/icons';
import { Card } from '@/components/page';
import { ko } from '@/i18n/ko';
import { clearFeedbackInfo, clearMissedEnd, readFeedbackInfo } from '@/lib/chat-session';
import { sendFrame, useActiveChat, useMissedEnd, useSocketEvent, useSocketReady, useSocketStatus } from '@/lib/socket';
import { readLocal, storageKeys } from '@/lib/storage';
import { useRound } from '../hooks/use-round';
import { ClosedOverlay } from './closed-overlay';
import { FeedbackModal } from './feedback-modal';
import { MegaphoneButton } from './megaphone-button';
import { NicknameModal } from '@/components/nickname-modal';
import { OnlineCounter } from './online-counter';
import { RoundPanel, type Pick } from './round-panel';
import { megaphoneTextRefusals } from '../lib/megaphone-refusals';
import { notePick } from '../lib/my-picks';
import '../home.css';

/** Refusals of chat frames belong to the chat screen; they are not news here. */
const chatEvents = new Set(['chatMessage', 'typing', 'stopTyping', 'chatRead', 'leaveRoom', 'resume']);

/** Home after login: the round's four words, a pick, and the wait for someone who picked the same. */
export function MainPage() {
  const { data: profile } = useProfile();
  const needsNickname = profile ? !profile.nickname : readLocal(storageKeys.needNicknameSetup) === 'true';
  const view = useRound();
  const socketStatus = useSocketStatus();
  const ready = useSocketReady();
  const [pick, setPick] = useState<Pick | null>(null);
  const [feedback, setFeedback] = useState(readFeedbackInfo);
  // A chat the server says goes on (see useActiveChat): a stored one that ended is not shown,
  // and one open on another device or tab is.
  const activeChat = useActiveChat();
  // A chat that ended while this device was away, as the server confirms, until dismissed.
  const missedEnd = useMissedEnd();
  const [dismissed, setDismissed] = useState<string | null>(null);
  const shownMissedEnd = missedEnd !== null && missedEnd.roomId !== dismissed ? missedEnd : null;

  function dismissMissedEnd(roomId: string) {
    clearMissedEnd();
    setDismissed(roomId);
  }
  // A pick lasts for its round only: a new round on screen re-enables the words.
  const currentPick = pick !== null && view.shown !== null && pick.round === view.shown.round ? pick : null;

  useEffect(() => {
    if (socketStatus === 'open') sendFrame('getOnlineCount', {});
  }, [socketStatus]);

  useSocketEvent('matchWaiting', (state) => {
    setPick((current) => (current && current.word === state.word && current.round === state.round ? { ...current, waiting: true } : current));
  });

  useSocketEvent('matchExpired', (expired) => {
    if (pick?.round !== expired.round) return;
    setPick(null);
    toast(ko.round.expired(pick.word));
  });

  useSocketEvent('error', (error) => {
    if (chatEvents.has(error.event)) return;
    // The megaphone composer shows these under its field.
    if (error.event === 'megaphone:send' && megaphoneTextRefusals.has(error.code)) return;
    if (error.event === 'join_match') setPick(null);
    toast.error(error.message);
  });

  function onPick(word: string, round: number) {
    if (!profile?.userId) {
      toast.error(ko.round.profileNotLoaded);
      return;
    }
    const sent = sendFrame('join_match', {
      word,
      round,
      userId: profile.userId,
      username: profile.username,
      nickname: profile.nickname,
    });
    if (!sent) {
      toast.error(ko.round.notConnected);
      return;
    }
    setPick({ word, round, waiting: false });
    notePick(round, word);
  }

  return (
    <main className="page-body main-page">
      <header className="main-hero">
        <div className="main-hero__top">
          {profile?.nickname ? (
            <p className="main-hero__greeting" title={ko.main.greeting(profile.nickname)}>
              <span className="main-hero__name-line">
                <span className="main-hero__name">{profile.nickname}</span>
                {ko.main.greetingName}
              </span>
              <span className="main-hero__hello">{ko.main.greetingHello}</span>
            </p>
          ) : (
            <span className="main-hero__greeting" />
          )}
          <div className="main-hero__actions">
            <OnlineCounter />
            <MegaphoneButton profile={profile} />
            <Link to="/helppage" className="icon-button icon-button--soft" aria-label={ko.main.help}>
              <Icon name="help" size={24} />
            </Link>
          </div>
        </div>
        <div className="main-hero__orbs" aria-hidden="true">
          <span className="orb orb--a" />
          <span className="orb orb--b" />
        </div>
        <h1 className="main-hero__title">{ko.main.title}</h1>
        <p className="main-hero__subtitle">{ko.main.subtitle}</p>
      </header>

      <div className="main-page__columns">
        <div className="main-page__primary">
          {activeChat ? (
            <Card className="active-chat" labelledBy="active-chat-title">
              <span className="active-chat__icon" aria-hidden="true">
                <Icon name="bubble" size={22} />
              </span>
              <div className="active-chat__body">
                <h2 id="active-chat-title" className="card-title">
                  {ko.round.activeChatTitle}
                </h2>
                <p className="card-text">{ko.round.activeChatText(activeChat.partnerNickname, activeChat.word)}</p>
                <p className="active-chat__hint">{ko.round.activeChatHint}</p>
              </div>
              <ButtonLink to="/chatpage" size="sm" className="active-chat__action">
                {ko.round.backToChat}
              </ButtonLink>
            </Card>
          ) : shownMissedEnd ? (
            <Card className="active-chat active-chat--ended" labelledBy="missed-end-title">
              <span className="active-chat__icon" aria-hidden="true">
                <Icon name="bubble" size={22} />
              </span>
              <div className="active-chat__body">
                <h2 id="missed-end-title" className="card-title">
                  {ko.round.missedEndTitle}
                </h2>
                <p className="card-text">{ko.round.missedEndText(shownMissedEnd.partnerNickname, shownMissedEnd.word)}</p>
              </div>
              <div className="active-chat__actions">
                <Button
                  size="sm"
                  onClick={() => {
                    setFeedback(shownMissedEnd);
                    dismissMissedEnd(shownMissedEnd.roomId);
                  }}
                >
                  {ko.round.missedEndFeedback}
                </Button>
                <Button
                  variant="ghost"
                  size="sm"
                  onClick={() => {
                    dismissMissedEnd(shownMissedEnd.roomId);
                  }}
                >
                  {ko.round.missedEndClose}
                </Button>
              </div>
            </Card>
          ) : null}

          <RoundPanel view={view} pick={currentPick} inChat={activeChat !== null} ready={ready} onPick={onPick} />
        </div>

        <div className="main-page__side">
          <Card className="hours-card">
            <div className="hours-card__icon">
              <Icon name="moon" size={26} />
            </div>
            <div>
              <h2 className="card-title">{ko.main.hoursTitle}</h2>
              <p className="hours-card__time">{ko.main.hours}</p>
              <p className="hours-card__text">{ko.main.hoursNotice}</p>
            </div>
          </Card>

          <Card className="how-card">
            <h2 className="card-title">{ko.main.howTitle}</h2>
            <ol className="steps">
              {ko.main.howSteps.map((step, index) => (
                <li key={step} className="steps__item">
                  <span className="steps__number" aria-hidden="true">
                    {index + 1}
                  </span>
                  <span>{step}</span>
                </li>
              ))}
            </ol>
          </Card>

          <BusinessFooter />
        </div>
      </div>
      {view.isOpen === false ? <ClosedOverlay nextOpenAt={view.nextOpenAt} /> : null}
      <NicknameModal open={needsNickname} />
      {!needsNickname && feedback ? (
        <FeedbackModal
          info={feedback}
          onDone={() => {
            clearFeedbackInfo();
            setFeedback(null);
          }}
        />
      ) : null}
    </main>
  );
}
