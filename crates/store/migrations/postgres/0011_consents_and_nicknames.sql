-- Every answer a person gave to the terms: at sign-up the three required documents and
-- the optional ones ticked, later the notification consent given or withdrawn on My page.
-- `version` is the effective date of the text agreed to (domain `Terms::version`);
-- `agreed` is 1 for a consent given, 0 for one withdrawn. Rows are only ever added.
CREATE TABLE consents (
    id       BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id  BIGINT  NOT NULL REFERENCES users (id),
    terms    TEXT    NOT NULL,
    version  TEXT    NOT NULL,
    agreed   BIGINT  NOT NULL,
    at       BIGINT  NOT NULL
);
CREATE INDEX consents_user ON consents (user_id, terms, id);

-- A nickname belongs to at most one active account, case and spaces aside (domain
-- `Nickname::key`). Of nicknames shared before this rule, the first holder keeps the
-- claim; the others keep their name (nothing stored is taken away) until they change it.
ALTER TABLE users ADD COLUMN nickname_key TEXT;
UPDATE users SET nickname_key = lower(replace(nickname, ' ', ''))
WHERE nickname IS NOT NULL AND status = 'active'
  AND id = (SELECT MIN(other.id) FROM users other
            WHERE other.status = 'active'
              AND lower(replace(other.nickname, ' ', '')) = lower(replace(users.nickname, ' ', '')));
CREATE UNIQUE INDEX users_active_nickname ON users (nickname_key) WHERE status = 'active';
