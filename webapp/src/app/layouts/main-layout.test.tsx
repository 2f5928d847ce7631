import { screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, renderRoute } from '@/test/render';
import { MainLayout } from './main-layout';

function serve(links: Record<string, string>) {
  vi.stubGlobal(
    'fetch',
    vi.fn((request: Request) =>
      Promise.resolve(
        new URL(request.url).pathname === '/api/app-config'
          ? jsonResponse({ demo: false, business: {}, megaphonePacks: [], pushPublicKey: '', links })
          : jsonResponse({}, 404),
      ),
    ),
  );
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('MainLayout', () => {
  it('links to the community gallery the operator named, in a new tab', async () => {
    serve({ community: 'https://gall.example.kr/telepathy' });
    renderRoute(<MainLayout />);
    const nav = screen.getByRole('navigation', { name: '주요 메뉴' });
    const gallery = await within(nav).findByRole('link', { name: /커뮤니티/ });
    expect(gallery).toHaveAttribute('href', 'https://gall.example.kr/telepathy');
    expect(gallery).toHaveAttribute('target', '_blank');
    expect(within(nav).getAllByRole('link')).toHaveLength(4);
  });

  it('has no gallery item while none is configured', async () => {
    serve({});
    renderRoute(<MainLayout />);
    const nav = screen.getByRole('navigation', { name: '주요 메뉴' });
    await within(nav).findByRole('link', { name: /마이페이지/ });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(within(nav).queryByRole('link', { name: /커뮤니티/ })).toBeNull();
    expect(within(nav).getAllByRole('link')).toHaveLength(3);
  });
});
