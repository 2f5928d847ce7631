import { Button } from '@/components/button';
import { Icon } from '@/components/icons';
import { ko } from '@/i18n/ko';

interface QuestionCardProps {
  question: string;
  /** A press is on its way: the button says so and further presses wait. */
  asking: boolean;
  /** Messages can be written; after the chat, the question stays and no other is drawn. */
  active: boolean;
  /** Once the conversation is under way the card keeps to one quiet row. */
  compact: boolean;
  onNext: () => void;
}

/**
 * The room's first question at the top of the conversation, with a button for another: an
 * easier first line than a bare greeting. Both members see the same one; a new one is read
 * out when it arrives.
 */
export function QuestionCard({ question, asking, active, compact, onNext }: QuestionCardProps) {
  if (question === '') return null;
  return (
    <section className={compact ? 'question-card question-card--compact' : 'question-card'} aria-label={ko.chat.questionRegion}>
      <span className="question-card__icon" aria-hidden="true">
        <Icon name="question" size={compact ? 16 : 20} />
      </span>
      <div className="question-card__body">
        {compact ? null : <p className="question-card__label">{ko.chat.questionLabel}</p>}
        <p className="question-card__text" aria-live="polite">
          {question}
        </p>
      </div>
      {active ? (
        <Button
          variant="subtle"
          size="sm"
          className="question-card__next"
          aria-busy={asking || undefined}
          title={asking ? ko.chat.questionNextBusy : undefined}
          onClick={onNext}
        >
          {ko.chat.questionNext}
        </Button>
      ) : null}
    </section>
  );
}
