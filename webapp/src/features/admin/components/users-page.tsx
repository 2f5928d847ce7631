import { useState, type SubmitEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { Button } from '@/components/button';
import { TextField } from '@/components/text-field';
import { koAdmin } from '@/i18n/ko-admin';
import { useUserSearch } from '../api/users';
import { formatDateTime } from '../lib/format';
import { ConsolePageHeader, EmptyState, ErrorState, LoadingState } from './states';

/** /admin/users?q=: find a user by number, username or the start of a nickname. */
export function UsersPage() {
  const [params, setParams] = useSearchParams();
  const q = (params.get('q') ?? '').trim();
  const [text, setText] = useState(q);
  const { data, error, mutate, isLoading } = useUserSearch(q);
  const t = koAdmin.users;

  function onSubmit(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    const next = text.trim();
    setParams(next === '' ? {} : { q: next });
  }

  return (
    <>
      <ConsolePageHeader title={t.title} />
      <form className="console-search" role="search" onSubmit={onSubmit}>
        <TextField
          label={t.search}
          hint={t.searchHint}
          type="search"
          autoCapitalize="none"
          spellCheck={false}
          placeholder={t.searchPlaceholder}
          value={text}
          onChange={(event) => {
            setText(event.target.value);
          }}
          trailing={
            <Button type="submit" loading={isLoading}>
              {t.searchSubmit}
            </Button>
          }
        />
      </form>
      {q === '' ? (
        <EmptyState>{t.prompt}</EmptyState>
      ) : data ? (
        data.users.length === 0 ? (
          <EmptyState>{t.empty}</EmptyState>
        ) : (
          <ul className="user-results">
            {data.users.map((user) => (
              <li key={user.id}>
                <Link to={`/admin/users/${user.id}`} className="user-row">
                  <span className="user-row__id">#{user.id}</span>
                  <span className="user-row__name">{user.nickname ?? t.noNickname}</span>
                  <span className="user-row__username">{user.username}</span>
                  <span className={`status-chip status-chip--${user.status}`}>{t.statuses[user.status] ?? user.status}</span>
                  <span className="user-row__date">
                    {t.joinedAt} {formatDateTime(user.createdAt)}
                  </span>
                </Link>
              </li>
            ))}
          </ul>
        )
      ) : error ? (
        <ErrorState error={error} onRetry={() => void mutate()} />
      ) : (
        <LoadingState />
      )}
    </>
  );
}
