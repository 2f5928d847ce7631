import type { RoundWord } from '@/api/realtime';
import { Spinner } from '@/components/spinner';
import { ko } from '@/i18n/ko';
import type { RoundView } from '@/lib/round-clock';
import { RoundEcho } from './round-echo';
import { RoundTimer } from './round-timer';

/** The user's pick in a round; `waiting` once the server put them in the queue. */
export interface Pick {
  word: string;
  round: number;
  waiting: boolean;
}

interface RoundPanelProps {
  view: RoundView;
  /** The pick of the round on screen, if any. */
  pick: Pick | null;
  /** The user sits in a chat (the server says so): no word can be picked until it ends. */
  inChat?: boolean;
  /**
   * The socket is open and the server has greeted this tab: until then a pick could not be
   * sent, and whether the user sits in a chat is not known.
   */
  ready?: boolean;
  onPick: (word: string, round: number) => void;
}

/**
 * The heart of the main screen: the timer, the round's four words, what happens after a pick,
 * and under it all, how the round before went.
 */
export function RoundPanel({ view, pick, inChat = false, ready = true, onPick }: RoundPanelProps) {
  const shown = view.shown;
  const disabled = shown === null || view.fading || pick !== null || view.isOpen === false || inChat || !ready;

  return (
    <section className="card round-panel" aria-labelledby="round-panel-title">
      <div className="round-panel__head">
        <div>
          <h2 id="round-panel-title" className="round-panel__title">
            {ko.round.label}
          </h2>
          <p className="round-panel__prompt">{ko.round.prompt}</p>
        </div>
        <RoundTimer remaining={view.round === null ? null : view.remaining} />
      </div>

      {shown === null ? (
        <div className="round-panel__loading">
          <Spinner label={ko.round.loading} />
        </div>
      ) : (
        <ul className="round-words" data-fading={view.fading || undefined} data-round={shown.round}>
          {shown.words.map((word) => (
            <li key={`${shown.round}-${word.word}`}>
              <WordButton
                word={word}
                selected={pick?.word === word.word}
                disabled={disabled}
                onClick={() => {
                  onPick(word.word, shown.round);
                }}
              />
            </li>
          ))}
        </ul>
      )}

      <div className="round-panel__status" role="status" aria-live="polite">
        {pick === null ? (
          shown !== null && !ready && !inChat ? (
            <Working title={ko.round.connecting} />
          ) : null
        ) : pick.waiting ? (
          <div className="round-waiting">
            <span className="round-waiting__dots" aria-hidden="true">
              <span />
              <span />
              <span />
            </span>
            <div>
              <p className="round-waiting__title">{ko.round.waiting(pick.word)}</p>
              <p className="round-waiting__hint">{ko.round.waitingHint}</p>
            </div>
          </div>
        ) : (
          <Working title={ko.round.joining} />
        )}
      </div>

      <RoundEcho />
    </section>
  );
}

/** A line under the words while something is on its way (a connection, a pick). */
function Working({ title }: { title: string }) {
  return (
    <div className="round-waiting">
      <Spinner size="sm" />
      <p className="round-waiting__title">{title}</p>
    </div>
  );
}

interface WordButtonProps {
  word: RoundWord;
  selected: boolean;
  disabled: boolean;
  onClick: () => void;
}

function WordButton({ word, selected, disabled, onClick }: WordButtonProps) {
  const classes = [
    'word-button',
    word.paid ? 'word-button--special' : word.custom ? 'word-button--custom' : '',
    selected ? 'word-button--selected' : '',
  ]
    .filter(Boolean)
    .join(' ');
  return (
    <button type="button" className={classes} aria-pressed={selected} disabled={disabled} onClick={onClick}>
      <span className="word-button__text">{word.word}</span>
      {word.paid ? (
        <span className="word-badge word-badge--special">
          <span aria-hidden="true">✦ </span>
          {ko.round.specialBadge}
          <span className="visually-hidden">{ko.round.specialLabel}</span>
        </span>
      ) : word.custom ? (
        <span className="word-badge">
          {ko.round.customBadge}
          <span className="visually-hidden">{ko.round.customLabel}</span>
        </span>
      ) : null}
    </button>
  );
}
