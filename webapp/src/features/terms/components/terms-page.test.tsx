import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Business } from '@/api/app-config';
import { termsItems, termsPath } from '@/config/terms';
import { ko } from '@/i18n/ko';
import { jsonResponse, renderRoute } from '@/test/render';
import { termsDocuments, termsSlugs } from '../content';
import { TermsPage } from './terms-page';

function serve(business: Business) {
  vi.stubGlobal(
    'fetch',
    vi.fn(() => Promise.resolve(jsonResponse({ demo: false, business }))),
  );
}

/** Every sentence of a document, so a test can look for what must never be printed. */
function allText(slug: (typeof termsSlugs)[number], business: Business): string {
  const document = termsDocuments[slug](business);
  return [document.intro ?? '', ...document.sections.flatMap((s) => [s.heading, ...(s.paragraphs ?? []), ...(s.items ?? [])])].join('\n');
}

const full: Business = {
  name: '주식회사 텔레파시',
  email: 'help@telepathy.kr',
  hosting: '한빛클라우드',
  youthOfficer: { name: '이서연', position: '운영 책임자', email: 'youth@telepathy.kr' },
  privacyOfficer: { name: '김민준', email: 'privacy@telepathy.kr' },
};

beforeEach(() => {
  serve({});
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('TermsPage', () => {
  it('every configured slug has a document', () => {
    for (const item of termsItems) expect(termsDocuments[item.slug]({}).slug).toBe(item.slug);
  });

  it.each(termsItems.map((item) => [item.type, item.slug] as const))('/terms/%s redirects to /terms/%s', async (type, slug) => {
    const { router } = renderRoute(<TermsPage />, { path: '/terms/:type' });
    await router.navigate(`/terms/${type}`);
    await waitFor(() => {
      expect(router.state.location.pathname).toBe(`/terms/${slug}`);
    });
    expect(await screen.findByRole('heading', { level: 2, name: termsDocuments[slug]({}).title })).toBeInTheDocument();
  });

  it('says that an unknown type does not exist', async () => {
    const { router } = renderRoute(<TermsPage />, { path: '/terms/:type' });
    await router.navigate('/terms/nope');
    expect(await screen.findByText(ko.terms.unknownType)).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 1, name: ko.terms.pageTitle })).toBeInTheDocument();
    expect(screen.queryByText(ko.terms.modalTitle)).not.toBeInTheDocument();
    const links = within(screen.getByRole('navigation', { name: ko.terms.available })).getAllByRole('link');
    expect(links.map((link) => link.getAttribute('href'))).toEqual(termsItems.map((item) => termsPath(item.slug)));
  });

  it('names the configured operator and contacts', async () => {
    serve(full);
    const { router } = renderRoute(<TermsPage />, { path: '/terms/:type' });
    await router.navigate('/terms/privacy-policy');
    expect(await screen.findByText(/^주식회사 텔레파시\(이하 “운영자”\)는 /)).toBeInTheDocument();
    expect(screen.getByText('개인정보 보호책임자: 김민준')).toBeInTheDocument();
    expect(screen.getByText('이메일: privacy@telepathy.kr')).toBeInTheDocument();
    expect(screen.getByText('서비스 일반 문의: help@telepathy.kr')).toBeInTheDocument();
    expect(screen.getByText('한빛클라우드: 서비스 서버 운영과 데이터 보관')).toBeInTheDocument();
  });

  it.each(termsSlugs)('%s leaves out what is not configured and never shows a placeholder', (slug) => {
    const bare = allText(slug, {});
    for (const absent of ['undefined', 'null', '등록 예정', '@', '()', '이메일:', '책임자:']) expect(bare).not.toContain(absent);
    expect(allText(slug, full)).not.toMatch(/undefined|null|등록 예정/);
  });

  it('writes the particles of the operator name', () => {
    expect(termsDocuments['service-agreement']({ name: '텔레파시 운영팀' }).intro).toContain('텔레파시 운영팀이 제공하는');
    expect(termsDocuments['service-agreement']({ name: 'Telepathy' }).intro).toContain('Telepathy가 제공하는');
    expect(termsDocuments['youth-protection']({}).intro).toMatch(/^텔레파시를 운영하는 사업자\(이하 “운영자”\)는 /);
  });

  it('tells where to write only when an email is configured', () => {
    const withEmail = allText('service-agreement', { email: 'help@telepathy.kr' });
    expect(withEmail).toContain('마이페이지의 회원 탈퇴 메뉴나 운영자 이메일(help@telepathy.kr)로 탈퇴를 요청할 수 있으며');
    expect(allText('service-agreement', {})).toContain('마이페이지의 회원 탈퇴 메뉴로 탈퇴를 요청할 수 있으며');
    expect(allText('improve-consent', {})).toContain('동의는 서비스 안의 설정에서 언제든지 철회할 수 있습니다.');
  });
});
