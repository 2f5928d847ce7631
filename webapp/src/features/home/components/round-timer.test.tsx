import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ko } from '@/i18n/ko';
import { RoundTimer } from './round-timer';

describe('RoundTimer', () => {
  it('says it is loading, with no number, until the round is known', () => {
    render(<RoundTimer remaining={null} />);
    const timer = screen.getByRole('timer', { name: ko.round.timerLoading });
    expect(timer).toHaveAttribute('aria-busy', 'true');
    expect(timer).not.toHaveTextContent(/\d/);
  });

  it('shows the seconds left once the round is known', () => {
    render(<RoundTimer remaining={30} />);
    const timer = screen.getByRole('timer', { name: ko.round.timerLabel(30) });
    expect(timer).not.toHaveAttribute('aria-busy');
    expect(timer).toHaveTextContent(`30${ko.round.secondsUnit}`);
  });
});
