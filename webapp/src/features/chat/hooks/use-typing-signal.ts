import { useCallback, useEffect, useRef } from 'react';
import { sendFrame } from '@/lib/socket';

/** Typing stops counting after this long without input. */
export const TYPING_IDLE_MS = 2000;
/** While the user keeps typing, `typing` is repeated this often so the partner's indicator stays. */
export const TYPING_REPEAT_MS = 4000;

/**
 * Tells the partner when the user types: `typing` on input (repeated while it goes on), and
 * `stopTyping` after 2 s without input, when the text is cleared, on send, or on leaving.
 */
export function useTypingSignal(roomId: string, active: boolean) {
  const lastSent = useRef<number | null>(null);
  const idleTimer = useRef<number | undefined>(undefined);

  const stop = useCallback(() => {
    window.clearTimeout(idleTimer.current);
    if (lastSent.current === null) return;
    lastSent.current = null;
    sendFrame('stopTyping', { roomId });
  }, [roomId]);

  const onInput = useCallback(
    (value: string) => {
      if (!active || value.trim() === '') {
        stop();
        return;
      }
      const now = Date.now();
      if ((lastSent.current === null || now - lastSent.current >= TYPING_REPEAT_MS) && sendFrame('typing', { roomId })) {
        lastSent.current = now;
      }
      window.clearTimeout(idleTimer.current);
      idleTimer.current = window.setTimeout(stop, TYPING_IDLE_MS);
    },
    [active, roomId, stop],
  );

  useEffect(() => stop, [stop]);

  return { onInput, stop };
}
