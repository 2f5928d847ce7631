-- Rooms made by matching, their archived messages, word history and mood feedback.

CREATE TABLE rooms (
    id          TEXT    PRIMARY KEY,
    word        TEXT    NOT NULL,
    round       BIGINT  NOT NULL,
    user_a      BIGINT  NOT NULL REFERENCES users (id),
    user_b      BIGINT  NOT NULL REFERENCES users (id),
    created_at  BIGINT  NOT NULL,
    ended_at    BIGINT
);
CREATE INDEX rooms_user_a ON rooms (user_a, created_at);
CREATE INDEX rooms_user_b ON rooms (user_b, created_at);

-- Each message once, by the id its room stream gave it.
CREATE TABLE messages (
    room_id    TEXT    NOT NULL REFERENCES rooms (id),
    msg_id     TEXT    NOT NULL,
    sender_id  BIGINT  NOT NULL,
    body       TEXT    NOT NULL,
    sent_at    BIGINT  NOT NULL,
    PRIMARY KEY (room_id, msg_id)
);
CREATE INDEX messages_sent_at ON messages (sent_at);

CREATE TABLE word_history (
    user_id           BIGINT  NOT NULL REFERENCES users (id),
    room_id           TEXT    NOT NULL REFERENCES rooms (id),
    word              TEXT    NOT NULL,
    partner_id        BIGINT  NOT NULL,
    partner_nickname  TEXT    NOT NULL,
    connected_at      BIGINT  NOT NULL,
    PRIMARY KEY (user_id, room_id)
);

CREATE TABLE feedback (
    user_id     BIGINT  NOT NULL REFERENCES users (id),
    room_id     TEXT    NOT NULL REFERENCES rooms (id),
    partner_id  BIGINT  NOT NULL,
    word        TEXT    NOT NULL,
    emotion     TEXT    NOT NULL,
    created_at  BIGINT  NOT NULL,
    PRIMARY KEY (user_id, room_id)
);
