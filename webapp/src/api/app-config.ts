import useSWR from 'swr';
import { api } from './client';
import { unwrap } from './outcome';

export const appConfigKey = '/app-config';

export function fetchAppConfig() {
  return unwrap(api.GET('/app-config'));
}

/** Server settings the UI shows, such as demo mode. */
export function useAppConfig() {
  return useSWR<Awaited<ReturnType<typeof fetchAppConfig>>, Error>(appConfigKey, fetchAppConfig, {
    revalidateOnFocus: false,
  });
}
