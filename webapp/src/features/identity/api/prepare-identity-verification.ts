import useSWRMutation from 'swr/mutation';
import { api } from '@/api/client';
import { settle } from '@/api/outcome';

export function prepareIdentityVerification() {
  return settle(api.POST('/verify/prepare'));
}

export function usePrepareIdentityVerification() {
  return useSWRMutation('POST /verify/prepare', () => prepareIdentityVerification());
}
