import useSWRMutation from 'swr/mutation';
import { api, type Schemas } from '@/api/client';
import { settle } from '@/api/outcome';

export type CheckCodeBody = Schemas['PhoneCodeBody'];

export function checkVerificationCode(body: CheckCodeBody) {
  return settle(api.POST('/verify-mvp/check', { body }));
}

export function useCheckVerificationCode() {
  return useSWRMutation('POST /verify-mvp/check', (_key: string, { arg }: { arg: CheckCodeBody }) =>
    checkVerificationCode(arg),
  );
}
