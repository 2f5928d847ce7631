import { act, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ko } from '@/i18n/ko';
import { OfflineNotice } from './offline-notice';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('OfflineNotice', () => {
  it('covers the app while offline and leaves when the connection is back', () => {
    const online = vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(true);
    render(<OfflineNotice />);
    expect(screen.queryByText(ko.offline.title)).not.toBeInTheDocument();
    online.mockReturnValue(false);
    act(() => {
      window.dispatchEvent(new Event('offline'));
    });
    expect(screen.getByRole('alertdialog', { name: ko.offline.title })).toBeInTheDocument();
    online.mockReturnValue(true);
    act(() => {
      window.dispatchEvent(new Event('online'));
    });
    expect(screen.queryByText(ko.offline.title)).not.toBeInTheDocument();
  });
});
