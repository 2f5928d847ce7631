import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Business } from '@/api/app-config';
import { ko } from '@/i18n/ko';
import { jsonResponse, renderRoute } from '@/test/render';
import { BusinessFooter } from './business-footer';

function serve(business: Business) {
  vi.stubGlobal(
    'fetch',
    vi.fn(() => Promise.resolve(jsonResponse({ demo: false, business }))),
  );
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('BusinessFooter', () => {
  it('lists only the configured facts', async () => {
    serve({ name: '주식회사 텔레파시', registrationNumber: '123-45-67890', email: 'help@telepathy.kr' });
    const user = userEvent.setup();
    renderRoute(<BusinessFooter />);
    await user.click(await screen.findByRole('button', { name: ko.business.toggle(ko.app.name) }));
    const terms = screen.getAllByRole('term').map((term) => term.textContent);
    expect(terms).toEqual([ko.business.name, ko.business.registrationNumber, ko.business.email]);
    expect(screen.getByText('주식회사 텔레파시')).toBeVisible();
    expect(screen.getByText('123-45-67890')).toBeVisible();
    expect(screen.queryByText(ko.business.representative)).not.toBeInTheDocument();
    expect(screen.queryByText('등록 예정')).not.toBeInTheDocument();
  });

  it('is folded until asked for', async () => {
    serve({ name: '주식회사 텔레파시' });
    renderRoute(<BusinessFooter />);
    const toggle = await screen.findByRole('button', { name: ko.business.toggle(ko.app.name) });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    expect(screen.getByText('주식회사 텔레파시')).not.toBeVisible();
  });

  it('is not there when nothing is configured', async () => {
    serve({});
    const { container } = renderRoute(<BusinessFooter />);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(container).toBeEmptyDOMElement();
  });
});
