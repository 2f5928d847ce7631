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

/**
 * An invitation to the session's user while it waits for an answer: what a screen opened
 * from the invitation's push shows.
 */
export function openInvite(inviteId: string) {
  return settle(api.GET('/again/invites/{id}', { params: { path: { id: inviteId } } }));
}
