import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { createMemoryRouter, RouterProvider, type RouteObject } from 'react-router';
import { SWRConfig } from 'swr';

/**
 * Renders `element` at `path` inside a memory router with a fresh SWR cache. Extra routes show
 * a marker text so tests can see where navigation went; `state` is the navigation state the
 * page arrives with.
 */
export function renderRoute(
  element: ReactElement,
  { path = '/', extraPaths = [], state }: { path?: string; extraPaths?: string[]; state?: unknown } = {},
) {
  const routes: RouteObject[] = [
    { path, element },
    ...extraPaths.map((extra) => ({ path: extra, element: <p>{`at ${extra}`}</p> })),
  ];
  const router = createMemoryRouter(routes, { initialEntries: [{ pathname: path, state }] });
  const view = render(
    <SWRConfig value={{ provider: () => new Map(), dedupingInterval: 0 }}>
      <RouterProvider router={router} />
    </SWRConfig>,
  );
  return { ...view, router };
}

/** A JSON answer as the server sends it. */
export function jsonResponse(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json; charset=utf-8' },
  });
}
