import { useEffect, useRef, useState } from 'react';
import { toast } from 'sonner';
import { useWishAgain } from '@/api/wish-again';
import { ko } from '@/i18n/ko';
import { recallWish, rememberWish, type WishAnswer } from '@/lib/again-wish';
import { Button } from './button';
import { Icon } from './icons';

interface AgainWishProps {
  /** The chat that ended. */
  roomId: string;
  /** Its word, named when both wished it. */
  word: string;
  /**
   * The chat was a pair's meeting again (다시 텔레파시): the two are a pair already, so the
   * wish is to go on meeting, and both wishing it starts the pair's days anew (the server's).
   */
  again?: boolean;
}

/**
 * "다시 만나고 싶어요" after a chat: one tap says it, and the button gives way to a quiet
 * confirmation. It says the two are a pair only when the server says both wished it; otherwise
 * nothing about the partner. A refusal shows the server's message and the button stays.
 */
export function AgainWish({ roomId, word, again = false }: AgainWishProps) {
  const { trigger, isMutating } = useWishAgain();
  const [answer, setAnswer] = useState<WishAnswer | null>(() => recallWish(roomId));
  // The button pressed gives way to the confirmation: focus goes there, not to the page behind.
  const [justAnswered, setJustAnswered] = useState(false);
  const doneRef = useRef<HTMLParagraphElement>(null);

  useEffect(() => {
    if (justAnswered) doneRef.current?.focus();
  }, [justAnswered]);

  async function onWish() {
    const outcome = await trigger(roomId);
    if (!outcome.ok) {
      toast.error(outcome.network ? ko.again.wishServerError : (outcome.message ?? ko.again.wishFailed));
      return;
    }
    const next: WishAnswer = outcome.data.paired ? 'paired' : 'wished';
    rememberWish(roomId, next);
    setAnswer(next);
    setJustAnswered(true);
  }

  if (answer !== null) {
    return (
      <p ref={doneRef} className={answer === 'paired' ? 'again-wish again-wish--paired' : 'again-wish'} role="status" tabIndex={-1}>
        <span className="again-wish__icon" aria-hidden="true">
          <Icon name={answer === 'paired' ? 'sparkles' : 'heart'} size={18} />
        </span>
        <span>
          {answer === 'paired'
            ? again
              ? ko.again.pairedMore(word)
              : ko.again.paired(word)
            : again
              ? ko.again.wishedMore
              : ko.again.wished}
        </span>
      </p>
    );
  }
  return (
    <Button variant="secondary" block className="again-wish__button" loading={isMutating} onClick={() => void onWish()}>
      {isMutating ? null : <Icon name="heart" size={18} />}
      {isMutating ? ko.again.wishing : again ? ko.again.wishMore : ko.again.wish}
    </Button>
  );
}
