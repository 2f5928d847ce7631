import { useId } from 'react';
import { Icon } from '@/components/icons';
import { Card } from '@/components/page';
import { Spinner } from '@/components/spinner';
import { ko } from '@/i18n/ko';
import { useTonight } from '../api/tonight';

/**
 * "오늘 밤의 단어": the word whose rooms seated the most people this evening and how many, or,
 * before anyone met, an invitation to be the first. A tie is said, not broken silently.
 */
export function TonightCard() {
  const { data, error } = useTonight();
  const titleId = useId();

  return (
    <Card className="tonight-card" labelledBy={titleId}>
      <span className="tonight-card__icon" aria-hidden="true">
        <Icon name="moon" size={22} />
      </span>
      <div className="tonight-card__body">
        <h2 id={titleId} className="tonight-card__title">
          {ko.mypage.tonightTitle}
        </h2>
        {data ? (
          data.word !== undefined ? (
            <>
              <p className="tonight-card__word">{ko.mypage.tonightWord(data.word)}</p>
              <p className="tonight-card__text">{ko.mypage.tonightPeople(data.people)}</p>
              {data.tied > 0 ? <p className="tonight-card__note">{ko.mypage.tonightTied(data.tied)}</p> : null}
            </>
          ) : (
            <p className="tonight-card__text">{ko.mypage.tonightNone}</p>
          )
        ) : error ? (
          <p className="tonight-card__text">{ko.mypage.tonightLoadFailed}</p>
        ) : (
          <div className="tonight-card__loading">
            <Spinner size="sm" label={ko.app.loading} />
          </div>
        )}
      </div>
    </Card>
  );
}
