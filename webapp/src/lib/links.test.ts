import { describe, expect, it } from 'vitest';
import type { AppConfig } from '@/api/app-config';
import { operatorLinks } from './links';

function config(links: AppConfig['links'], email?: string): AppConfig {
  return { demo: false, business: email ? { email } : {}, megaphonePacks: [], pushPublicKey: '', links };
}

describe('operatorLinks', () => {
  it('links to the pages the operator configured', () => {
    const links = operatorLinks(
      config({ community: 'https://gall.example.kr/t', paymentInquiry: 'https://forms.example.kr/pay', faq: 'https://telepathy.kr/faq' }, 'help@telepathy.kr'),
    );
    expect(links).toEqual({
      community: 'https://gall.example.kr/t',
      paymentInquiry: { kind: 'site', href: 'https://forms.example.kr/pay' },
      faq: { kind: 'site', href: 'https://telepathy.kr/faq' },
    });
  });

  it('without a form, a payment inquiry is a mail to the operator, titled', () => {
    expect(operatorLinks(config({}, 'help@telepathy.kr')).paymentInquiry).toEqual({
      kind: 'mail',
      href: `mailto:help@telepathy.kr?subject=${encodeURIComponent('[결제 문의]')}`,
    });
  });

  it('without anything configured: no gallery, no inquiry, the help page’s questions', () => {
    expect(operatorLinks(config({}))).toEqual({ community: undefined, paymentInquiry: undefined, faq: { kind: 'page', to: '/helppage' } });
    expect(operatorLinks(undefined).faq).toEqual({ kind: 'page', to: '/helppage' });
  });
});
