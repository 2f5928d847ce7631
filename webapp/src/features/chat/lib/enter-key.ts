/** What `sendsOnEnter` reads of a key press (React's or the DOM's). */
export interface EnterKey {
  key: string;
  shiftKey: boolean;
  altKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  keyCode: number;
  nativeEvent: { isComposing: boolean };
}

/**
 * Enter sends, Shift+Enter breaks the line. An Enter that ends an IME composition (Korean is
 * typed through one) only commits the syllable: browsers flag it `isComposing`, and older
 * Safari reports it as key code 229 instead.
 */
export function sendsOnEnter(event: EnterKey): boolean {
  if (event.key !== 'Enter' || event.shiftKey || event.altKey || event.ctrlKey || event.metaKey) return false;
  return !event.nativeEvent.isComposing && event.keyCode !== 229;
}
