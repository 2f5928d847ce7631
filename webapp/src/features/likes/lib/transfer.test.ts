import { describe, expect, it } from 'vitest';
import { accountDigits, isMobileDevice, secondsLeft, tossLink } from './transfer';

const transfer = { id: 7, depositor: '김민준0427', amount: 1000, bank: '국민', account: '123-45-6789', holder: '텔레파시' };

describe('transfer', () => {
  it('links Toss with the bank, the account digits and the amount', () => {
    const link = new URL(tossLink(transfer));
    expect(link.protocol).toBe('supertoss:');
    expect(link.searchParams.get('bank')).toBe('국민');
    expect(link.searchParams.get('accountNo')).toBe('123456789');
    expect(link.searchParams.get('amount')).toBe('1000');
    expect(accountDigits(' 3333-01 2345 ')).toBe('3333012345');
  });

  it('tells phones from desktops by their user agent', () => {
    expect(isMobileDevice('Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148')).toBe(true);
    expect(isMobileDevice('Mozilla/5.0 (Linux; Android 14; SM-S918N) Chrome/126.0 Mobile Safari/537.36')).toBe(true);
    expect(isMobileDevice('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/126.0 Safari/537.36')).toBe(false);
  });

  it('counts the 60-second check down in whole seconds', () => {
    expect(secondsLeft(0, 0)).toBe(60);
    expect(secondsLeft(0, 999)).toBe(60);
    expect(secondsLeft(0, 1000)).toBe(59);
    expect(secondsLeft(0, 59_999)).toBe(1);
    expect(secondsLeft(0, 60_000)).toBe(0);
    expect(secondsLeft(0, 90_000)).toBe(0);
  });
});
