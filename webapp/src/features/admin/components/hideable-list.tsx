import { useState, type ReactNode } from 'react';
import { toast } from 'sonner';
import type { Outcome } from '@/api/outcome';
import { Button } from '@/components/button';
import { formatDateTime } from '../lib/format';
import { ReasonDialog } from './reason-dialog';
import { ConsolePageHeader, EmptyState, ErrorState, LoadingState } from './states';

/** What a list of hideable things says (the comment board's, the megaphones'). */
export interface HideableTexts {
  title: string;
  lead: string;
  empty: string;
  hidden: (date: string) => string;
  hide: string;
  hideTitle: string;
  hideMessage: string;
  hideReason: string;
  hideConfirm: string;
  hiding: string;
  hideDone: string;
  hideFailed: string;
}

interface Hideable {
  id: number;
  hiddenAt?: string;
}

interface HideableListProps<T extends Hideable> {
  texts: HideableTexts;
  items: T[] | undefined;
  error: unknown;
  reload: () => Promise<unknown>;
  /** What was said. */
  content: (item: T) => string;
  /** Who said it, when, from where. */
  meta: (item: T) => ReactNode;
  hide: (id: number, reason: string) => Promise<Outcome<unknown>>;
  busy: boolean;
}

/**
 * A console page of things users said to everyone (comments, megaphones), newest first, each
 * hidden by an operator with a reason for the audit log.
 */
export function HideableList<T extends Hideable>({ texts: t, items, error, reload, content, meta, hide, busy }: HideableListProps<T>) {
  const [hiding, setHiding] = useState<T | null>(null);

  return (
    <>
      <ConsolePageHeader title={t.title} lead={t.lead} />
      {items ? (
        items.length === 0 ? (
          <EmptyState>{t.empty}</EmptyState>
        ) : (
          <ul className="comment-review" aria-label={t.title}>
            {items.map((item) => (
              <li key={item.id} className="comment-review__item" data-hidden={item.hiddenAt !== undefined || undefined}>
                <div className="comment-review__body">
                  <p className="comment-review__content">{content(item)}</p>
                  <p className="comment-review__meta muted">{meta(item)}</p>
                </div>
                {item.hiddenAt !== undefined ? (
                  <span className="comment-review__hidden">{t.hidden(formatDateTime(item.hiddenAt))}</span>
                ) : (
                  <Button
                    size="sm"
                    variant="secondary"
                    onClick={() => {
                      setHiding(item);
                    }}
                  >
                    {t.hide}
                  </Button>
                )}
              </li>
            ))}
          </ul>
        )
      ) : error ? (
        <ErrorState error={error} onRetry={() => void reload()} />
      ) : (
        <LoadingState />
      )}
      <ReasonDialog
        open={hiding !== null}
        title={t.hideTitle}
        message={t.hideMessage}
        target={hiding ? <p className="lift-form__target">{content(hiding)}</p> : null}
        reasonLabel={t.hideReason}
        confirm={t.hideConfirm}
        pending={t.hiding}
        failed={t.hideFailed}
        variant="danger"
        busy={busy}
        submit={(reason) => (hiding ? hide(hiding.id, reason) : Promise.resolve({ ok: false, network: true }))}
        onDone={async (outcome) => {
          if (!outcome.ok) return;
          toast.success(t.hideDone);
          await reload();
        }}
        onClose={() => {
          setHiding(null);
        }}
      />
    </>
  );
}
