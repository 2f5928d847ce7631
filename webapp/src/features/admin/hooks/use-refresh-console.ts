import { useCallback } from 'react';
import { useSWRConfig } from 'swr';
import { keyText } from '../lib/swr-key';

/**
 * After a decision: the queue, the dashboard and user pages are read again; a report's page is
 * only forgotten (each read of it is audited, so it is read when next opened, not now).
 */
export function useRefreshConsole() {
  const { mutate } = useSWRConfig();
  return useCallback(async () => {
    await mutate((key) => keyText(key).includes('admin/report"'), undefined, { revalidate: false });
    await mutate((key) => /admin\/(reports|dashboard|users?)\b/.test(keyText(key)));
  }, [mutate]);
}
