import useSWRMutation from 'swr/mutation';
import { api, type Schemas } from '@/api/client';
import { settle } from '@/api/outcome';

export type FeedbackBody = Schemas['FeedbackBody'];

export function addFeedback(body: FeedbackBody) {
  return settle(api.POST('/feedback/add', { body }));
}

export function useAddFeedback() {
  return useSWRMutation('POST /feedback/add', (_key: string, { arg }: { arg: FeedbackBody }) => addFeedback(arg));
}
