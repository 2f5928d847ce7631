import { useEffect } from 'react';
import { useWordHistory } from '@/api/word-history';
import { Icon } from '@/components/icons';
import { Card, PageBody, PageHeader } from '@/components/page';
import { Spinner } from '@/components/spinner';
import { ko } from '@/i18n/ko';
import { formatShortKoreanDate } from '@/lib/date';
import '../words.css';

/** The words the user shared with partners, as cards; an empty message when there are none. */
export function MyWordsPage() {
  const { data, error, isLoading } = useWordHistory();

  useEffect(() => {
    // A failed lookup is only logged; the page then shows the empty state.
    if (error) console.error('Word history could not be loaded', error);
  }, [error]);

  const history = data?.history ?? [];
  const total = data?.total ?? 0;

  return (
    <>
      <PageHeader title={ko.minimal.mywordsTitle} fallback="/mypage" />
      <PageBody>
        {isLoading ? (
          <div className="fullscreen-center">
            <Spinner label={ko.app.loading} />
          </div>
        ) : history.length === 0 ? (
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
            {history.map((entry) => (
              <li key={`${entry.connected_at}-${entry.word}-${entry.partner_nickname}`} className="card word-card">
                <span className="word-card__word">{entry.word}</span>
                <span className="word-card__partner">{ko.minimal.partner(entry.partner_nickname)}</span>
                <time className="word-card__date" dateTime={entry.connected_at}>
                  {formatShortKoreanDate(entry.connected_at)}
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
