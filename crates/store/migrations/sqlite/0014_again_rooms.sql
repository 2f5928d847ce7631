-- The chat an accepted invitation opened, so the word history can tell a pair's meeting
-- again from the chat that made the pair (same word, same partner, same evening).
ALTER TABLE again_invites ADD COLUMN room_id TEXT;
CREATE INDEX again_invites_room ON again_invites (room_id) WHERE room_id IS NOT NULL;
