import { Link } from 'react-router';
import { koAdmin } from '@/i18n/ko-admin';
import { useHideMegaphone, useReviewMegaphones } from '../api/megaphones';
import { formatDateTime } from '../lib/format';
import { HideableList } from './hideable-list';

/** /admin/megaphones: the megaphones sent, newest first, with hiding. */
export function MegaphonesPage() {
  const t = koAdmin.megaphones;
  const { data, error, mutate } = useReviewMegaphones();
  const { trigger, isMutating } = useHideMegaphone();
  return (
    <HideableList
      texts={t}
      items={data}
      error={error}
      reload={() => mutate()}
      content={(megaphone) => megaphone.message}
      meta={(megaphone) => (
        <>
          <span>{megaphone.nickname}</span>
          <Link to={`/admin/users/${String(megaphone.userId)}`}>{t.member(megaphone.userId)}</Link>
          <time dateTime={megaphone.sentAt}>{formatDateTime(megaphone.sentAt)}</time>
        </>
      )}
      hide={(id, reason) => trigger({ id, reason })}
      busy={isMutating}
    />
  );
}
