-- A room is the one record of a match: it keeps each member's nickname as of the match,
-- and a member's word history is read from their rooms. The history table held the same
-- match twice more (a line a member), which cost a round's start two more rows, their key
-- and four foreign-key checks a room.
ALTER TABLE rooms ADD COLUMN nickname_a TEXT NOT NULL DEFAULT '';
ALTER TABLE rooms ADD COLUMN nickname_b TEXT NOT NULL DEFAULT '';
-- Each member's line named the other: user_b's line holds a's nickname, user_a's holds b's.
-- A room whose lines are missing keeps ''.
UPDATE rooms SET
    nickname_a = COALESCE((SELECT h.partner_nickname FROM word_history h
                           WHERE h.user_id = rooms.user_b AND h.room_id = rooms.id), ''),
    nickname_b = COALESCE((SELECT h.partner_nickname FROM word_history h
                           WHERE h.user_id = rooms.user_a AND h.room_id = rooms.id), '');
DROP TABLE word_history;
