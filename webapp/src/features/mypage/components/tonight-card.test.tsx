import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ko } from '@/i18n/ko';
import { jsonResponse, renderRoute } from '@/test/render';
import { TonightCard } from './tonight-card';

afterEach(() => {
  vi.unstubAllGlobals();
});

/** A logged-in server whose tonight's word answers `tonight` (a body, or a network failure). */
function serve(tonight: (() => Response) | 'offline') {
  vi.stubGlobal(
    'fetch',
    vi.fn((request: Request) => {
      const path = new URL(request.url).pathname;
      if (path === '/api/auth/check') return Promise.resolve(jsonResponse({ loggedIn: true }));
      if (path === '/api/match/tonight') {
        return tonight === 'offline' ? Promise.reject(new TypeError('Failed to fetch')) : Promise.resolve(tonight());
      }
      return Promise.resolve(jsonResponse({ success: false, code: 'NOT_FOUND', message: '없음' }, 404));
    }),
  );
}

function card() {
  return screen.getByRole('region', { name: ko.mypage.tonightTitle });
}

describe('TonightCard', () => {
  it('names tonight’s word and how many people it connected', async () => {
    serve(() => jsonResponse({ word: '바다', people: 24, tied: 0 }));
    renderRoute(<TonightCard />);
    expect(await screen.findByText('‘바다’')).toBeInTheDocument();
    expect(card()).toHaveTextContent('오늘 밤 24명을 이어줬어요');
  });

  it('says when other words seated as many, rather than breaking the tie silently', async () => {
    serve(() => jsonResponse({ word: '바다', people: 4, tied: 2 }));
    renderRoute(<TonightCard />);
    expect(await screen.findByText('‘바다’')).toBeInTheDocument();
    expect(card()).toHaveTextContent('다른 단어 2개도 같은 수예요. 먼저 그 수에 닿은 단어를 보여드려요.');
  });

  it('says nothing of a tie when there is none', async () => {
    serve(() => jsonResponse({ word: '바다', people: 4, tied: 0 }));
    renderRoute(<TonightCard />);
    expect(await screen.findByText('‘바다’')).toBeInTheDocument();
    expect(card()).not.toHaveTextContent('같은 수예요');
  });

  it('groups the thousands of a large evening', async () => {
    serve(() => jsonResponse({ word: '아이스크림', people: 1268, tied: 0 }));
    renderRoute(<TonightCard />);
    expect(await screen.findByText('‘아이스크림’')).toBeInTheDocument();
    expect(card()).toHaveTextContent('오늘 밤 1,268명을 이어줬어요');
  });

  it('invites the user to be the first when nobody has met yet tonight', async () => {
    serve(() => jsonResponse({ people: 0, tied: 0 }));
    renderRoute(<TonightCard />);
    expect(await screen.findByText('아직 오늘 밤 이어진 사람이 없어요. 첫 텔레파시의 주인공이 되어 보세요.')).toBeInTheDocument();
    expect(card()).not.toHaveTextContent('명을 이어줬어요');
  });

  it('says it is loading until the answer comes', async () => {
    serve(() => jsonResponse({ word: '별', people: 2, tied: 0 }));
    renderRoute(<TonightCard />);
    expect(screen.getByRole('status', { name: ko.app.loading })).toBeInTheDocument();
    expect(await screen.findByText('‘별’')).toBeInTheDocument();
    expect(screen.queryByRole('status', { name: ko.app.loading })).not.toBeInTheDocument();
  });

  it.each([
    ['the server fails', () => jsonResponse({ success: false, code: 'INTERNAL', message: '서버 오류' }, 500)],
    ['the network is down', 'offline' as const],
  ])('says in a short line that it could not load when %s', async (_case, answer) => {
    serve(answer);
    renderRoute(<TonightCard />);
    expect(await screen.findByText(ko.mypage.tonightLoadFailed)).toBeInTheDocument();
    expect(card()).toHaveTextContent('오늘 밤의 단어');
  });
});
