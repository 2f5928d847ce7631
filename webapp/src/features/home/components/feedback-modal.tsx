import { useRef, useState } from 'react';
import { toast } from 'sonner';
import { AgainWish } from '@/components/again-wish';
import { ConfirmDialog } from '@/components/alert-dialog';
import { Button } from '@/components/button';
import { Modal } from '@/components/modal';
import { ko } from '@/i18n/ko';
import { recallWish } from '@/lib/again-wish';
import type { ChatInfo } from '@/lib/chat-session';
import { emotions, feedbackBody, validateFeedback, type Emotion } from '@/lib/feedback';
import { useAddFeedback } from '../api/add-feedback';
import { useBlockPartner } from '../api/block-partner';
import { EmotionFace } from './emotion-face';

interface FeedbackModalProps {
  info: ChatInfo;
  /** Called once the feedback was sent (whatever the answer) or skipped. */
  onDone: () => void;
}

/**
 * After leaving a chat: how it felt, as one of five moods, and beside it "다시 만나고
 * 싶어요" (gone once the partner is blocked: the two can never be a pair then). Blocking
 * asks first, as taking a pair back does, and says when it ends a pair too.
 */
export function FeedbackModal({ info, onDone }: FeedbackModalProps) {
  const { trigger, isMutating } = useAddFeedback();
  const block = useBlockPartner();
  const [blocked, setBlocked] = useState(false);
  const [askBlock, setAskBlock] = useState(false);
  const [emotion, setEmotion] = useState<Emotion | null>(null);
  // Focus starts on the group, not on its first mood, which would look chosen.
  const pickerRef = useRef<HTMLFieldSetElement>(null);

  async function onSubmit() {
    if (validateFeedback(emotion) !== null || emotion === null) {
      toast.error(ko.feedback.selectEmotion);
      return;
    }
    const outcome = await trigger(feedbackBody(info, emotion));
    if (outcome.ok) {
      toast.success(outcome.data.message || ko.feedback.saved);
    } else {
      toast.error(outcome.network ? ko.feedback.serverError : ko.feedback.saveFailed(outcome.message ?? ko.mypage.unknownError));
    }
    onDone();
  }

  async function onBlock() {
    const outcome = await block.trigger(info.roomId);
    setAskBlock(false);
    if (outcome.ok) {
      setBlocked(true);
      toast.success(outcome.data.message || ko.feedback.blocked);
    } else {
      toast.error(outcome.network ? ko.feedback.blockServerError : ko.feedback.blockFailed(outcome.message ?? ko.mypage.unknownError));
    }
  }

  return (
    <Modal
      open
      title={ko.feedback.title}
      description={ko.feedback.description(info.partnerNickname, info.word)}
      className="feedback-modal"
      initialFocus={pickerRef}
    >
      <fieldset ref={pickerRef} className="emotion-picker" tabIndex={-1}>
        <legend className="visually-hidden">{ko.feedback.legend}</legend>
        {emotions.map((option) => (
          <label key={option} className="emotion-option" data-checked={emotion === option || undefined}>
            <input
              type="radio"
              name="emotion"
              value={option}
              checked={emotion === option}
              onChange={() => {
                setEmotion(option);
              }}
            />
            <EmotionFace emotion={option} />
            <span className="emotion-option__label">{option}</span>
          </label>
        ))}
      </fieldset>
      {blocked ? null : (
        <div className="feedback-modal__again">
          <AgainWish roomId={info.roomId} word={info.word} again={info.again} />
        </div>
      )}
      <div className="modal__actions">
        <Button block loading={isMutating} onClick={() => void onSubmit()}>
          {isMutating ? ko.feedback.submitting : ko.feedback.submit}
        </Button>
        <Button variant="ghost" block disabled={isMutating} onClick={onDone}>
          {ko.feedback.skip}
        </Button>
        <Button
          variant="subtle"
          size="sm"
          block
          loading={block.isMutating}
          disabled={blocked || block.isMutating}
          onClick={() => {
            setAskBlock(true);
          }}
        >
          {blocked ? ko.feedback.blocked : block.isMutating ? ko.feedback.blocking : ko.feedback.block(info.partnerNickname)}
        </Button>
      </div>
      <ConfirmDialog
        open={askBlock}
        title={ko.feedback.blockTitle(info.partnerNickname)}
        message={
          <>
            <p>{ko.feedback.blockMessage}</p>
            {/* A block ends the pair the two made (the server's rule); say so before, not after. */}
            {info.again || recallWish(info.roomId) === 'paired' ? <p>{ko.feedback.blockEndsPair}</p> : null}
          </>
        }
        confirmLabel={ko.feedback.blockConfirm}
        danger
        busy={block.isMutating}
        onCancel={() => {
          setAskBlock(false);
        }}
        onConfirm={() => void onBlock()}
      />
    </Modal>
  );
}
