import useSWR from 'swr';
import { api, type Schemas } from '@/api/client';
import { unwrap } from '@/api/outcome';

export type OperatorMe = Schemas['OperatorMe'];

export const operatorKey = 'admin/me';

export function fetchOperator() {
  return unwrap(api.GET('/admin/me'));
}

/** The operator of this browser's console session, before or after the second factor. */
export function useOperator() {
  return useSWR<OperatorMe, Error>(operatorKey, fetchOperator, { shouldRetryOnError: false });
}
