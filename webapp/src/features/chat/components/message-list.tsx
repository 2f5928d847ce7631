import { ko } from '@/i18n/ko';
import { compareMessageIds, type ChatEntry } from '@/lib/chat-log';
import { formatChatTime } from '@/lib/date';
import { useCopyMessage } from '../hooks/use-copy-message';

interface MessageListProps {
  entries: ChatEntry[];
  myId: number;
  partnerNickname: string;
  /** The newest message the partner has read: the user's later ones show "1". */
  partnerRead?: string | null | undefined;
  /** Sends a failed message of the user again (absent once the chat is over). */
  onRetry?: ((clientId: string) => void) | undefined;
}

const MINUTE_MS = 60_000;

/**
 * The conversation: the user's bubbles on the right, the partner's on the left, with times.
 * The user's messages the partner has not read yet carry "1", as in every Korean messenger.
 * A long press or a right click on a bubble copies its message.
 */
export function MessageList({ entries, myId, partnerNickname, partnerRead = null, onRetry }: MessageListProps) {
  const copyOnHold = useCopyMessage();
  return (
    // The log is a wrapper: a list given the role would stop being a list for its items.
    <div role="log" aria-label={ko.chat.log}>
      <ol className="chat-log">
        {entries.map((entry, index) => {
          const mine = entry.senderId === myId;
          const previous = entries[index - 1];
          const next = entries[index + 1];
          const startsGroup = previous?.senderId !== entry.senderId;
          // Like most messengers, a run of messages in the same minute shows its time once, at the end.
          const showMeta =
            entry.status !== 'sent' ||
            next?.senderId !== entry.senderId ||
            next.status !== 'sent' ||
            Math.floor(next.timestamp / MINUTE_MS) !== Math.floor(entry.timestamp / MINUTE_MS);
          const unreadMark = mine && unread(entry, partnerRead);
          const classes = ['bubble-row', mine ? 'bubble-row--mine' : 'bubble-row--theirs', startsGroup ? 'bubble-row--first' : '']
            .filter(Boolean)
            .join(' ');
          return (
            <li key={entry.key} className={classes} data-status={entry.status}>
              {!mine && startsGroup ? (
                <span className="bubble-row__avatar" aria-hidden="true">
                  {Array.from(partnerNickname)[0] ?? '?'}
                </span>
              ) : null}
              <div className="bubble-row__body">
                {!mine && startsGroup ? <span className="bubble-row__name">{partnerNickname}</span> : null}
                <div className="bubble-row__line">
                  <p className="bubble" {...copyOnHold(entry.message)}>
                    <span className="visually-hidden">{mine ? ko.chat.me : partnerNickname}: </span>
                    {entry.message}
                  </p>
                  {unreadMark || showMeta ? (
                    <span className="bubble-row__side">
                      {unreadMark ? (
                        <span className="bubble-row__unread">
                          <span aria-hidden="true">1</span>
                          <span className="visually-hidden">{ko.chat.unread}</span>
                        </span>
                      ) : null}
                      {showMeta ? (
                        <span className="bubble-row__meta">
                          {entry.status === 'pending' ? ko.chat.pending : entry.status === 'failed' ? ko.chat.failed : formatChatTime(entry.timestamp)}
                          {entry.status === 'failed' && mine && entry.clientId && onRetry ? (
                            <button
                              type="button"
                              className="bubble-row__retry"
                              onClick={() => {
                                if (entry.clientId) onRetry(entry.clientId);
                              }}
                            >
                              {ko.chat.retry}
                            </button>
                          ) : null}
                        </span>
                      ) : null}
                    </span>
                  ) : null}
                </div>
              </div>
            </li>
          );
        })}
      </ol>
    </div>
  );
}

/** A confirmed message the partner's mark has not reached. */
function unread(entry: ChatEntry, partnerRead: string | null): boolean {
  return entry.status === 'sent' && entry.id !== null && (partnerRead === null || compareMessageIds(entry.id, partnerRead) > 0);
}
