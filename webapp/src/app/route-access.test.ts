import { describe, expect, it } from 'vitest';
import { authRedirect, waitsForLogin } from './route-access';

describe('authRedirect', () => {
  it.each([
    ['/login', true, '/main'],
    ['/register', true, '/main'],
    ['/main', true, null],
    ['/mypage', true, null],
    ['/login', false, null],
    ['/register', false, null],
    ['/main', false, '/login'],
    ['/mypage', false, '/login'],
    ['/mywords', false, '/login'],
    ['/likes', false, '/login'],
    ['/chatpage', false, '/login'],
    ['/main/', false, '/login'],
    ['/helppage', false, null],
    ['/wordset', false, null],
    ['/findpassword', false, null],
    ['/changepassword', false, '/login'],
    ['/changepassword', true, null],
    ['/terms/service', false, null],
    ['/verify-mvp', true, null],
    ['/verify', false, '/login'],
    ['/verify/callback', false, '/login'],
    ['/verify', true, null],
  ] as const)('%s, logged in %s → %s', (path, loggedIn, target) => {
    expect(authRedirect(path, loggedIn)).toBe(target);
  });
});

describe('waitsForLogin', () => {
  it.each([
    ['/main', false],
    ['/mypage', false],
    ['/mywords', false],
    ['/likes', false],
    ['/chatpage', true],
    ['/changepassword', true],
    ['/verify', true],
    ['/verify/callback', true],
    ['/login', false],
    ['/helppage', false],
  ] as const)('%s → %s', (path, waits) => {
    expect(waitsForLogin(path)).toBe(waits);
  });
});
