import useSWR from 'swr';
import { useAuthCheck } from './auth-check';
import { api, type Schemas } from './client';
import { settle, unwrap } from './outcome';

export type Warning = Schemas['AccountWarned'];

export const warningsKey = '/warnings';

export function fetchWarnings() {
  return unwrap(api.GET('/warnings'));
}

/** The warnings the logged-in user has not confirmed, asked once per visit. */
export function useWarnings() {
  const { data: auth } = useAuthCheck();
  return useSWR(auth?.loggedIn === true ? warningsKey : null, fetchWarnings, { revalidateOnFocus: false });
}

/** Tells the server the user saw the warning, so it is not shown again on any device. */
export function confirmWarning(id: number) {
  return settle(api.POST('/warnings/{id}/seen', { params: { path: { id } } }));
}
