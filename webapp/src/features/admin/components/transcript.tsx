import { koAdmin } from '@/i18n/ko-admin';
import type { TranscriptLine } from '../api/report';
import { formatClock, formatDay } from '../lib/format';

export interface Speakers {
  reporter: string;
  reported: string;
}

function whoOf(line: TranscriptLine, speakers: Speakers): string {
  switch (line.from) {
    case 'reporter':
      return speakers.reporter;
    case 'reported':
      return speakers.reported;
    default:
      return `${koAdmin.report.from.other} #${line.senderId}`;
  }
}

/**
 * The chat as it was said, as a conversation: the reporter on the left, the reported user on
 * the right in the warning colour, anyone else on the left in grey. Times on the Seoul clock,
 * with the day written where it changes.
 */
export function Transcript({ lines, speakers }: { lines: readonly TranscriptLine[]; speakers: Speakers }) {
  const t = koAdmin.report;
  if (lines.length === 0) return <p className="console-empty">{t.transcriptEmpty}</p>;
  return (
    <ol className="transcript" aria-label={t.transcript}>
      {lines.flatMap((line, index) => {
        const previous = lines[index - 1];
        const day = formatDay(line.sentAt);
        const newDay = !previous || formatDay(previous.sentAt) !== day;
        const startsGroup = newDay || previous.senderId !== line.senderId;
        const who = whoOf(line, speakers);
        const items = [];
        if (newDay) {
          items.push(
            <li key={`day-${line.msgId}`} className="transcript__day" aria-hidden="true">
              <span>{day}</span>
            </li>,
          );
        }
        items.push(
          <li
            key={line.msgId}
            className={`transcript-line transcript-line--${line.from} ${startsGroup ? 'transcript-line--first' : ''}`}
            data-from={line.from}
          >
            {startsGroup ? (
              <span className="transcript-line__who" aria-hidden="true">
                <span className={`who-tag who-tag--${line.from}`}>{t.from[line.from]}</span>
                {who}
              </span>
            ) : null}
            <div className="transcript-line__row">
              <p className="transcript-bubble">
                <span className="visually-hidden">{`${t.from[line.from]} ${who}: `}</span>
                {line.body}
              </p>
              <time className="transcript-line__time" dateTime={line.sentAt}>
                {formatClock(line.sentAt)}
              </time>
            </div>
          </li>,
        );
        return items;
      })}
    </ol>
  );
}
