import { useEffect, useRef, useState } from 'react';
import { toast } from 'sonner';
import { readChatInfo, writeChatInfo, type ChatInfo } from '@/lib/chat-session';
import { tabSocket, useSocketEvent } from '@/lib/socket';

/** A press with no answer this long frees the button again (a lost frame, a reconnect). */
export const NEXT_QUESTION_WAIT_MS = 5000;

export interface FirstQuestion {
  /** The question both members see now; empty when none is known. */
  question: string;
  /** A press went out and its answer has not come yet. */
  asking: boolean;
  /** Asks the server for the room's next question, which both members are told. */
  next: () => void;
}

/**
 * The room's first question, drawn by the server from the shared word: draw 0 comes with
 * `matched`, and either member may ask for the next one ("I see draw n"), which the server
 * tells both. Two presses at once ask for the same draw and get the same question. The last
 * one told is kept with the stored chat, so a reload shows it again.
 */
export function useFirstQuestion(info: ChatInfo, active: boolean): FirstQuestion {
  const { roomId } = info;
  const [seen, setSeen] = useState({ question: info.question, draw: info.questionDraw });
  /** What was last shown, at once: two frames may arrive before the next render. */
  const latest = useRef(seen);
  const [asking, setAsking] = useState(false);

  useEffect(() => {
    if (!asking) return;
    const timer = window.setTimeout(() => {
      setAsking(false);
    }, NEXT_QUESTION_WAIT_MS);
    return () => {
      window.clearTimeout(timer);
    };
  }, [asking]);

  useSocketEvent('question', (event) => {
    if (event.roomId !== roomId) return;
    setAsking(false);
    // Draws only go forward: a late answer to an older press changes nothing.
    if (event.draw <= latest.current.draw && latest.current.question !== '') return;
    latest.current = { question: event.question, draw: event.draw };
    setSeen(latest.current);
    const stored = readChatInfo();
    if (stored?.roomId === roomId) writeChatInfo({ ...stored, question: event.question, questionDraw: event.draw });
  });

  useSocketEvent('error', (error) => {
    if (error.event !== 'nextQuestion') return;
    setAsking(false);
    toast.error(error.message);
  });

  function next() {
    if (!active || asking) return;
    if (tabSocket().send('nextQuestion', { roomId, draw: seen.draw })) setAsking(true);
  }

  return { question: seen.question, asking, next };
}
