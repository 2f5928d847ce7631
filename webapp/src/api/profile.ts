import useSWR from 'swr';
import { useAuthCheck } from './auth-check';
import { api } from './client';
import { unwrap } from './outcome';

export const profileKey = '/nickname/profile';

export function fetchProfile() {
  return unwrap(api.GET('/nickname/profile'));
}

export type Profile = Awaited<ReturnType<typeof fetchProfile>>;

/** The logged-in user's profile; not requested while logged out. */
export function useProfile() {
  const { data: auth } = useAuthCheck();
  return useSWR<Profile, Error>(auth?.loggedIn === true ? profileKey : null, fetchProfile);
}
