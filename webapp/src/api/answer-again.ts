import { api, type Schemas } from './client';
import { settle } from './outcome';

export type AgainAnswer = Schemas['AnswerBody'];

/**
 * Answers an invitation (`againInvite`). Accepted, both members are told `matched` with
 * `again` and the chat opens; declined, nothing is told to the sender.
 */
export function answerAgain(answer: AgainAnswer) {
  return settle(api.POST('/again/answer', { body: answer }));
}
