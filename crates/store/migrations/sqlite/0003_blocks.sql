-- Pairs that are never matched again: one user blocked the other (from the mood feedback
-- after a chat). Either direction keeps the two apart.
CREATE TABLE blocks (
    user_id BIGINT NOT NULL REFERENCES users(id),
    blocked_id BIGINT NOT NULL REFERENCES users(id),
    created_at BIGINT NOT NULL,
    PRIMARY KEY (user_id, blocked_id)
);
CREATE INDEX blocks_blocked ON blocks (blocked_id);
