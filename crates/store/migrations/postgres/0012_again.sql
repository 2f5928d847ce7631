-- 다시 텔레파시: after a chat each member may wish to meet the other again; when both members
-- of a room did, the two are a pair for 30 days, and either may invite the other back into
-- a chat under the word they shared.

-- A member's wish after a room ended. Never shown to the other: only a pair says both did.
CREATE TABLE again_wishes (
    room_id     TEXT    NOT NULL REFERENCES rooms (id),
    user_id     BIGINT  NOT NULL REFERENCES users (id),
    created_at  BIGINT  NOT NULL,
    PRIMARY KEY (room_id, user_id)
);

-- A pair (user_a < user_b) and the room both wished after, the latest if more than one.
-- It holds while ended_at is NULL and until is ahead, and no block, report or sanction of
-- either came since created_at; the queries that use a pair say so themselves.
CREATE TABLE again_pairs (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_a      BIGINT  NOT NULL REFERENCES users (id),
    user_b      BIGINT  NOT NULL REFERENCES users (id),
    room_id     TEXT    NOT NULL REFERENCES rooms (id),
    word        TEXT    NOT NULL,
    created_at  BIGINT  NOT NULL,
    until       BIGINT  NOT NULL,
    ended_at    BIGINT
);
CREATE UNIQUE INDEX again_pairs_open ON again_pairs (user_a, user_b) WHERE ended_at IS NULL;
CREATE INDEX again_pairs_b ON again_pairs (user_b);

-- An invitation of a pair, answered once (accepted, declined, or closed once it lapsed).
-- One unanswered invitation per pair at a time.
CREATE TABLE again_invites (
    id          TEXT    PRIMARY KEY,
    pair_id     BIGINT  NOT NULL REFERENCES again_pairs (id),
    from_user   BIGINT  NOT NULL REFERENCES users (id),
    to_user     BIGINT  NOT NULL REFERENCES users (id),
    created_at  BIGINT  NOT NULL,
    until       BIGINT  NOT NULL,
    answered_at BIGINT
);
CREATE UNIQUE INDEX again_invites_open ON again_invites (pair_id) WHERE answered_at IS NULL;
CREATE INDEX again_invites_from ON again_invites (from_user, created_at);
