import useSWR from 'swr';
import { api, type Schemas } from '@/api/client';
import { unwrapConsole } from './session';

export type Dashboard = Schemas['Dashboard'];

const REFRESH_MS = 30_000;

export function useDashboard() {
  return useSWR<Dashboard, Error>('admin/dashboard', () => unwrapConsole(api.GET('/admin/dashboard')), {
    refreshInterval: REFRESH_MS,
  });
}
