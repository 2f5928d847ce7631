import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ko } from '@/i18n/ko';
import { listenForInstallOffer } from '@/lib/install';
import { InstallCard } from './install-card';

beforeAll(() => {
  listenForInstallOffer();
});

afterEach(() => {
  vi.restoreAllMocks();
});

function offerInstall(outcome: 'accepted' | 'dismissed') {
  const event = Object.assign(new Event('beforeinstallprompt', { cancelable: true }), {
    prompt: vi.fn(() => Promise.resolve()),
    userChoice: Promise.resolve({ outcome }),
  });
  act(() => {
    window.dispatchEvent(event);
  });
  return event;
}

describe('InstallCard', () => {
  it('says nothing where the browser offers no installation and it is no iPhone', () => {
    const { container } = render(<InstallCard />);
    expect(container).toBeEmptyDOMElement();
  });

  it('shows the browser’s install dialog once it was offered, then hides', async () => {
    render(<InstallCard />);
    const offer = offerInstall('accepted');
    expect(offer.defaultPrevented).toBe(true);
    await userEvent.click(screen.getByRole('button', { name: ko.install.button }));
    expect(offer.prompt).toHaveBeenCalledOnce();
    await act(async () => {
      window.dispatchEvent(new Event('appinstalled'));
      await Promise.resolve();
    });
    expect(screen.queryByRole('heading', { name: ko.install.title })).not.toBeInTheDocument();
  });
});
