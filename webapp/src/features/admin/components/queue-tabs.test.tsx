import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { QueueTabs, type QueueTab } from './queue-tabs';

type Status = 'open' | 'closed';

const tabs: QueueTab<Status>[] = [
  { value: 'open', label: '처리 대기', count: 3 },
  { value: 'closed', label: '처리 완료' },
];

describe('QueueTabs', () => {
  it('names the tab list and marks only the selected tab', () => {
    render(<QueueTabs label="신고 상태" tabs={tabs} selected="closed" onSelect={vi.fn()} />);
    const list = screen.getByRole('tablist', { name: '신고 상태' });
    const [open, closed] = within(list).getAllByRole('tab');
    expect(open).toHaveAttribute('aria-selected', 'false');
    expect(closed).toHaveAttribute('aria-selected', 'true');
    expect(open).toHaveAttribute('type', 'button');
  });

  it('shows a count only on the tabs that have one', () => {
    render(<QueueTabs label="신고 상태" tabs={tabs} selected="open" onSelect={vi.fn()} />);
    expect(screen.getByRole('tab', { name: '처리 대기 3' })).toBeInTheDocument();
    expect(screen.getByRole('tab', { name: '처리 완료' })).toBeInTheDocument();
    expect(document.querySelectorAll('.console-tabs__count')).toHaveLength(1);
  });

  it('asks for the status of the tab clicked', async () => {
    const user = userEvent.setup();
    const onSelect = vi.fn();
    render(<QueueTabs label="신고 상태" tabs={tabs} selected="open" onSelect={onSelect} />);
    await user.click(screen.getByRole('tab', { name: '처리 완료' }));
    expect(onSelect).toHaveBeenCalledWith('closed');
  });
});
