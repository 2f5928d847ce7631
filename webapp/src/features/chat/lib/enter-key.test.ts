import { describe, expect, it } from 'vitest';
import { sendsOnEnter, type EnterKey } from './enter-key';

function press(key: string, options: Partial<Omit<EnterKey, 'nativeEvent'>> & { isComposing?: boolean } = {}): EnterKey {
  const { isComposing = false, ...modifiers } = options;
  return { key, shiftKey: false, altKey: false, ctrlKey: false, metaKey: false, keyCode: key === 'Enter' ? 13 : 65, ...modifiers, nativeEvent: { isComposing } };
}

describe('sendsOnEnter', () => {
  it.each([
    ['Enter alone', press('Enter'), true],
    ['Shift+Enter, a new line', press('Enter', { shiftKey: true }), false],
    ['Enter ending an IME composition', press('Enter', { isComposing: true }), false],
    ['Enter as older Safari reports it during a composition', press('Enter', { keyCode: 229 }), false],
    ['Ctrl+Enter', press('Enter', { ctrlKey: true }), false],
    ['Alt+Enter', press('Enter', { altKey: true }), false],
    ['Meta+Enter', press('Enter', { metaKey: true }), false],
    ['another key', press('a'), false],
  ])('%s', (_name, event, sends) => {
    expect(sendsOnEnter(event)).toBe(sends);
  });
});
