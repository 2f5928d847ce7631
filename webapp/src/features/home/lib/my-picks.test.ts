import { afterEach, describe, expect, it } from 'vitest';
import { notePick, picksOf } from './my-picks';

afterEach(() => {
  sessionStorage.clear();
});

describe('my picks', () => {
  it('keeps the words of the latest round picked in, every one', () => {
    notePick(7, '바다');
    notePick(7, '산');
    notePick(7, '바다');
    expect(picksOf(7)).toEqual(['산', '바다']);
    expect(picksOf(6)).toEqual([]);
    notePick(8, '별');
    expect(picksOf(7)).toEqual([]);
    expect(picksOf(8)).toEqual(['별']);
  });

  it('forgets what it cannot read', () => {
    sessionStorage.setItem('roundPicks', '{oops');
    expect(picksOf(7)).toEqual([]);
  });
});
