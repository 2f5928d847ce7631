import { useState, type SubmitEvent } from 'react';
import { toast } from 'sonner';
import { Button } from '@/components/button';
import { limits } from '@/config/limits';
import { ko } from '@/i18n/ko';
import { useComments, usePostComment } from '@/api/comments';

/**
 * The anonymous board of the closed hours: a one-line form and the newest three comments,
 * refreshed every 10 seconds. Blank text is not sent; the server names the author.
 */
export function CommentBoard() {
  const { data, error } = useComments();
  const { trigger, isMutating } = usePostComment();
  const [content, setContent] = useState('');

  async function onSubmit(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    const text = content.trim();
    if (text === '' || isMutating) return;
    const outcome = await trigger(text);
    if (outcome.ok) {
      setContent('');
      toast.success(ko.comments.posted);
    } else {
      toast.error(outcome.network ? ko.comments.serverError : (outcome.message ?? ko.comments.serverError));
    }
  }

  const shown = data?.slice(0, limits.commentsShown) ?? [];
  return (
    <section className="comment-board" aria-labelledby="comment-board-title">
      <h3 id="comment-board-title" className="comment-board__title">
        {ko.comments.title}
      </h3>
      <form className="comment-board__form" onSubmit={(event) => void onSubmit(event)}>
        <label className="visually-hidden" htmlFor="comment-input">
          {ko.comments.label}
        </label>
        <input
          id="comment-input"
          className="comment-board__input"
          value={content}
          maxLength={limits.commentMaxLength}
          placeholder={ko.comments.placeholder}
          autoComplete="off"
          onChange={(event) => {
            setContent(event.target.value);
          }}
        />
        <Button type="submit" size="sm" loading={isMutating} disabled={content.trim() === ''}>
          {isMutating ? ko.comments.submitting : ko.comments.submit}
        </Button>
      </form>
      {error && data === undefined ? (
        <p className="comment-board__empty">{ko.comments.loadFailed}</p>
      ) : shown.length === 0 && data !== undefined ? (
        <p className="comment-board__empty">{ko.comments.empty}</p>
      ) : (
        <ul className="comment-board__list">
          {shown.map((comment) => (
            <li key={comment.id} className="comment-board__item">
              <span className="comment-board__author">{comment.nickname}</span>
              <span className="comment-board__content">{comment.content}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
