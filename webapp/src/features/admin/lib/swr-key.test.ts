import { describe, expect, it } from 'vitest';
import { keyText } from './swr-key';

describe('keyText', () => {
  it('reads string and array keys, and no others', () => {
    expect(keyText('admin/me')).toBe('admin/me');
    expect(keyText(['admin/report', 12])).toBe('["admin/report",12]');
    expect(keyText(undefined)).toBe('');
    expect(keyText(() => 'admin/me')).toBe('');
  });
});
