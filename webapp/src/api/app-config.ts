import useSWR from 'swr';
import { api, type Schemas } from './client';
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

export type AppConfig = Schemas['AppConfig'];

/** The operator's facts; a field the server leaves out is not configured and is not shown. */
export type Business = Schemas['Business'];
export type BusinessOfficer = Schemas['BusinessOfficer'];
