import createClient from 'openapi-fetch';
import type { components, paths } from './schema';

/**
 * The one HTTP client of the app, typed from the server's OpenAPI document (whose server URL is
 * /api). Every call carries the session cookie. `fetch` is looked up at call time so tests can
 * replace the global.
 */
export const api = createClient<paths>({
  baseUrl: `${typeof window === 'undefined' ? '' : window.location.origin}/api`,
  credentials: 'include',
  fetch: (request) => globalThis.fetch(request),
});

/** The request and response bodies the server documents. */
export type Schemas = components['schemas'];
