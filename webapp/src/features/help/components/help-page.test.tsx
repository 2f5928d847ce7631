import { screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Business } from '@/api/app-config';
import { ko } from '@/i18n/ko';
import { jsonResponse, renderRoute } from '@/test/render';
import { HelpPage } from './help-page';

function serve(business: Business) {
  vi.stubGlobal(
    'fetch',
    vi.fn(() => Promise.resolve(jsonResponse({ demo: false, business }))),
  );
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('HelpPage', () => {
  it('explains the rounds, the hours, the questions people ask and how a report is handled', () => {
    serve({});
    renderRoute(<HelpPage />);
    expect(screen.getByRole('heading', { level: 1, name: ko.help.title })).toBeInTheDocument();
    expect(screen.getByText('30초마다 단어 4개')).toBeInTheDocument();
    expect(screen.getByText(ko.help.hoursTitle).parentElement).toHaveTextContent('운영 시간 한국 시간매일 20:00 ~ 02:00');
    expect(ko.help.faq.length).toBeGreaterThanOrEqual(6);
    for (const { q } of ko.help.faq) expect(screen.getByText(q)).toBeInTheDocument();
    const report = screen.getByRole('heading', { level: 2, name: ko.help.reportTitle }).closest('section');
    if (!report) throw new Error('no report section');
    for (const reason of Object.values(ko.report.reasons)) expect(within(report).getByText(reason)).toBeInTheDocument();
    expect(within(report).getByText(/24시간 이내/)).toBeInTheDocument();
    expect(within(report).getByText(ko.help.reportPrivacy)).toBeInTheDocument();
  });

  it('offers the configured email and lists the configured facts only', async () => {
    serve({ name: '주식회사 텔레파시', email: 'help@telepathy.kr', youthOfficer: { name: '이서연', position: '운영 책임자' } });
    renderRoute(<HelpPage />);
    const mail = await screen.findByRole('link', { name: `${ko.help.contactEmail} help@telepathy.kr` });
    expect(mail).toHaveAttribute('href', 'mailto:help@telepathy.kr');
    const contact = screen.getByRole('heading', { level: 2, name: ko.help.contactTitle }).closest('section');
    if (!contact) throw new Error('no contact section');
    expect(within(contact).getAllByRole('term').map((term) => term.textContent)).toEqual([
      ko.business.name,
      ko.business.email,
      ko.business.youthOfficer,
    ]);
    expect(within(contact).getByText('이서연 (운영 책임자)')).toBeInTheDocument();
  });

  it('has no contact section when nothing is configured', async () => {
    serve({});
    renderRoute(<HelpPage />);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(screen.queryByRole('heading', { name: ko.help.contactTitle })).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: ko.help.contactTitle })).not.toBeInTheDocument();
  });
});
