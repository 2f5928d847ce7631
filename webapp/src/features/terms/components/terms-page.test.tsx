import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { termsItems } from '@/config/terms';
import { ko } from '@/i18n/ko';
import { renderRoute } from '@/test/render';
import { termsDocuments } from '../content';
import { TermsPage } from './terms-page';

describe('TermsPage', () => {
  it('every configured slug has a document', () => {
    for (const item of termsItems) expect(termsDocuments[item.slug].slug).toBe(item.slug);
  });

  it.each(termsItems.map((item) => [item.type, item.slug] as const))('/terms/%s redirects to /terms/%s', async (type, slug) => {
    const { router } = renderRoute(<TermsPage />, { path: '/terms/:type' });
    await router.navigate(`/terms/${type}`);
    await waitFor(() => {
      expect(router.state.location.pathname).toBe(`/terms/${slug}`);
    });
    expect(await screen.findByRole('heading', { level: 2, name: termsDocuments[slug].title })).toBeInTheDocument();
  });

  it('says that an unknown type does not exist', async () => {
    const { router } = renderRoute(<TermsPage />, { path: '/terms/:type' });
    await router.navigate('/terms/nope');
    expect(await screen.findByText(ko.terms.unknownType)).toBeInTheDocument();
  });
});
