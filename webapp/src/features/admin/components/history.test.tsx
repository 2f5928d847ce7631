import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderRoute } from '@/test/render';
import type { SanctionItem } from '../api/user';
import { formatDateTime } from '../lib/format';
import { SanctionList } from './history';

const warning = (id: number, seenAt?: string): SanctionItem => ({
  id,
  kind: 'warn',
  reason: `사유 ${String(id)}`,
  createdAt: '2026-11-23T12:00:00+00:00',
  active: true,
  operator: 'mina',
  ...(seenAt ? { seenAt } : {}),
});

describe('SanctionList', () => {
  it('tells whether the user has read each warning, and when', async () => {
    renderRoute(<SanctionList sanctions={[warning(2, '2026-11-24T01:30:00+00:00'), warning(1)]} />);
    const items = await screen.findAllByRole('listitem');
    expect(items[0]).toHaveTextContent(`${formatDateTime('2026-11-24T01:30:00+00:00')} 회원 확인`);
    expect(items[1]).toHaveTextContent('회원이 아직 확인하지 않음');
  });
});
