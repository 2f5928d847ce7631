import { render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ko } from '@/i18n/ko';
import { jsonResponse } from '@/test/render';
import { ClosedOverlay } from './closed-overlay';

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('ClosedOverlay', () => {
  it('puts the page it covers out of reach while it shows, all but the megaphones', () => {
    vi.stubGlobal('fetch', vi.fn(() => Promise.resolve(jsonResponse([]))));
    function Page({ closed }: { closed: boolean }) {
      return (
        <main>
          <div role="status">확성기</div>
          <button type="button">단어</button>
          {closed ? <ClosedOverlay nextOpenAt={null} /> : null}
        </main>
      );
    }
    const { rerender } = render(<Page closed />);
    const dialog = screen.getByRole('dialog', { name: ko.closed.title });
    expect(dialog).not.toHaveAttribute('aria-modal');
    expect(screen.getByText('단어', { selector: 'button' })).toHaveAttribute('inert');
    expect(screen.getByText('확성기')).not.toHaveAttribute('inert');
    rerender(<Page closed={false} />);
    expect(screen.getByRole('button', { name: '단어' })).not.toHaveAttribute('inert');
  });
});
