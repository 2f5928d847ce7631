import { useEffect } from 'react';
import { useServiceStatus } from '@/api/server-time';
import { useWordHistory, type WordHistory } from '@/api/word-history';
import { Icon } from '@/components/icons';
import { Card, PageBody, PageHeader } from '@/components/page';
import { Spinner } from '@/components/spinner';
import { ko } from '@/i18n/ko';
import { formatShortKoreanDateTime } from '@/lib/date';
import { useAgainPairs, type AgainPair } from '../api/again-pairs';
import { PairCard } from './pair-card';
import '../words.css';

type HistoryEntry = WordHistory['history'][number];

/**
 * The words the user shared with partners, as cards; an empty message when there are none.
 * The cards of chats both members wished to meet again after (a pair) come first, each
 * offering 다시 텔레파시; a pair whose chat the history does not list has a card of its own.
 * A chat a pair met again in says so, and every card has its time: two chats of one word with
 * one partner in one evening are told apart.
 */
export function MyWordsPage() {
  const { data, error, isLoading } = useWordHistory();
  const { data: pairsData } = useAgainPairs();
  const status = useServiceStatus();

  useEffect(() => {
    // A failed lookup is only logged; the page then shows the empty state.
    if (error) console.error('Word history could not be loaded', error);
  }, [error]);

  const history = data?.history ?? [];
  const total = data?.total ?? 0;
  const pairs = pairsData?.pairs ?? [];
  const listed = new Set(history.map((entry) => entry.room_id));
  const pairOf = new Map(pairs.map((pair) => [pair.roomId, pair]));
  const unlisted = pairs.filter((pair) => !listed.has(pair.roomId));
  const paired = history.filter((entry) => pairOf.has(entry.room_id));
  const plain = history.filter((entry) => !pairOf.has(entry.room_id));
  const isOpen = status?.isOpen ?? null;

  const pairCard = (pair: AgainPair, entry?: HistoryEntry) => (
    <PairCard
      key={`pair-${String(pair.id)}`}
      pair={pair}
      partnerNickname={entry?.partner_nickname}
      connectedAt={entry?.connected_at ?? pair.since}
      isOpen={isOpen}
    />
  );

  return (
    <>
      <PageHeader title={ko.minimal.mywordsTitle} fallback="/mypage" />
      <PageBody>
        {isLoading ? (
          <div className="fullscreen-center">
            <Spinner label={ko.app.loading} />
          </div>
        ) : history.length === 0 && pairs.length === 0 ? (
          <Card className="empty-state">
            <div className="empty-state__icon">
              <Icon name="sparkles" size={36} />
            </div>
            <p className="empty-state__title">{ko.minimal.mywordsEmpty}</p>
            <p className="empty-state__text">{ko.minimal.mywordsHint}</p>
          </Card>
        ) : (
          <>
            {total > history.length ? <p className="word-grid__note">{ko.minimal.mywordsNewest(history.length, total)}</p> : null}
            <ul className="word-grid">
              {paired.map((entry) => {
                const pair = pairOf.get(entry.room_id);
                return pair ? pairCard(pair, entry) : null;
              })}
              {unlisted.map((pair) => pairCard(pair))}
              {plain.map((entry) => (
                <li key={entry.room_id} className="card word-card">
                  <span className="word-card__word">{entry.word}</span>
                  {entry.again ? (
                    <span className="word-card__again">
                      <Icon name="sparkles" size={14} />
                      {ko.again.metAgainTag}
                    </span>
                  ) : null}
                  <span className="word-card__partner">{ko.minimal.partner(entry.partner_nickname)}</span>
                  <time className="word-card__date" dateTime={entry.connected_at}>
                    {formatShortKoreanDateTime(entry.connected_at)}
                  </time>
                </li>
              ))}
            </ul>
          </>
        )}
      </PageBody>
    </>
  );
}
