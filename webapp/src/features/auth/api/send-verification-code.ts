import useSWRMutation from 'swr/mutation';
import { api, type Schemas } from '@/api/client';
import { settle } from '@/api/outcome';

export type SendCodeBody = Schemas['SignupPhoneBody'];

export function sendVerificationCode(body: SendCodeBody) {
  return settle(api.POST('/verify-mvp/send', { body }));
}

export function useSendVerificationCode() {
  return useSWRMutation('POST /verify-mvp/send', (_key: string, { arg }: { arg: SendCodeBody }) =>
    sendVerificationCode(arg),
  );
}
