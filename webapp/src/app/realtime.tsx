import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import { useAuthCheck } from '@/api/auth-check';
import { chatLog } from '@/lib/chat-log';
import { chatInfoFromMatched, writeChatInfo } from '@/lib/chat-session';
import { tabSocket, useSocketEvent } from '@/lib/socket';

/**
 * Keeps the tab's socket open while logged in and closed otherwise. A match is honoured on
 * whatever page it reaches the user: the session is stored and the chat opens.
 */
export function Realtime() {
  const { data: auth } = useAuthCheck();
  const loggedIn = auth?.loggedIn === true;
  const navigate = useNavigate();

  useEffect(() => {
    if (!loggedIn) return;
    const socket = tabSocket();
    socket.start();
    return () => {
      socket.stop();
      chatLog.clear();
    };
  }, [loggedIn]);

  useSocketEvent('matched', (matched) => {
    writeChatInfo(chatInfoFromMatched(matched, Date.now()));
    chatLog.open(matched.roomId);
    void navigate('/chatpage');
  });

  return null;
}
