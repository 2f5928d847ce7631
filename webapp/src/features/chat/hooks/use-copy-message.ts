import { useEffect, useRef, type MouseEvent, type TouchEvent } from 'react';
import { toast } from 'sonner';
import { ko } from '@/i18n/ko';

/** How long a finger rests on a message to copy it, as messengers do. */
export const HOLD_MS = 500;
/** A finger that moves this far is scrolling, not holding. */
const MOVE_PX = 10;
/** A long press may also raise a context menu (Android): one copy for the two. */
const ONE_COPY_MS = 1000;

async function copy(text: string) {
  try {
    await navigator.clipboard.writeText(text);
    toast.success(ko.chat.copied);
  } catch {
    toast.error(ko.chat.copyFailed);
  }
}

/**
 * A message copied by a long press (a finger held still on it) or a right click, which would
 * otherwise open the browser's menu: the handlers to spread on its bubble.
 */
export function useCopyMessage() {
  const timer = useRef<number | null>(null);
  const start = useRef<{ x: number; y: number } | null>(null);
  const lastCopy = useRef(0);

  const cancel = () => {
    if (timer.current !== null) window.clearTimeout(timer.current);
    timer.current = null;
    start.current = null;
  };

  useEffect(() => cancel, []);

  const once = (text: string) => {
    const now = Date.now();
    if (now - lastCopy.current < ONE_COPY_MS) return;
    lastCopy.current = now;
    void copy(text);
  };

  return (text: string) => ({
    onContextMenu: (event: MouseEvent) => {
      event.preventDefault();
      once(text);
    },
    onTouchStart: (event: TouchEvent) => {
      const touch = event.touches[0];
      if (!touch || event.touches.length > 1) {
        cancel();
        return;
      }
      cancel();
      start.current = { x: touch.clientX, y: touch.clientY };
      timer.current = window.setTimeout(() => {
        timer.current = null;
        once(text);
      }, HOLD_MS);
    },
    onTouchMove: (event: TouchEvent) => {
      const touch = event.touches[0];
      const from = start.current;
      if (!touch || !from) return;
      if (Math.abs(touch.clientX - from.x) > MOVE_PX || Math.abs(touch.clientY - from.y) > MOVE_PX) cancel();
    },
    onTouchEnd: cancel,
    onTouchCancel: cancel,
  });
}
