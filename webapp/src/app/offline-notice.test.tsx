import { act, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ko } from '@/i18n/ko';
import { OfflineNotice } from './offline-notice';

afterEach(() => {
  vi.restoreAllMocks();
});

function goOffline(online: { mockReturnValue: (value: boolean) => unknown }) {
  online.mockReturnValue(false);
  act(() => {
    window.dispatchEvent(new Event('offline'));
  });
}

describe('OfflineNotice', () => {
  it('covers the app while offline and leaves when the connection is back', () => {
    const online = vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(true);
    render(<OfflineNotice path="/main" />);
    expect(screen.queryByText(ko.offline.title)).not.toBeInTheDocument();
    goOffline(online);
    expect(screen.getByRole('alertdialog', { name: ko.offline.title })).toBeInTheDocument();
    online.mockReturnValue(true);
    act(() => {
      window.dispatchEvent(new Event('online'));
    });
    expect(screen.queryByText(ko.offline.title)).not.toBeInTheDocument();
  });

  it('leaves a chat on screen: the chat says it is offline itself, and is never reloaded', () => {
    const online = vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(true);
    render(<OfflineNotice path="/chatpage" />);
    goOffline(online);
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: ko.offline.retry })).not.toBeInTheDocument();
  });
});
