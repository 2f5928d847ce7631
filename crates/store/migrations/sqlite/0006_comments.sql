-- The comment board of the closed hours. A guest's comment has no user. Operators hide a
-- comment rather than delete it (the audit log names who).
CREATE TABLE comments (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id     BIGINT  REFERENCES users (id),
    nickname    TEXT    NOT NULL,
    content     TEXT    NOT NULL,
    ip          TEXT    NOT NULL,
    created_at  BIGINT  NOT NULL,
    hidden_at   BIGINT,
    hidden_by   BIGINT
);
CREATE INDEX comments_recent ON comments (created_at);
