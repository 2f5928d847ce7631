-- Accounts, sessions and the phone and identity checks that guard them.
-- Times are Unix milliseconds (UTC).

CREATE TABLE users (
    id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    username        TEXT    NOT NULL,
    password_hash   TEXT    NOT NULL,
    phone           TEXT    NOT NULL,
    gender          TEXT    NOT NULL,
    birthdate       TEXT    NOT NULL,
    nickname        TEXT,
    nickname_set_at BIGINT,
    real_name       TEXT,
    status          TEXT    NOT NULL DEFAULT 'active',
    created_at      BIGINT  NOT NULL,
    withdrawn_at    BIGINT
);
-- A username and a phone belong to at most one active account; a withdrawn account frees both.
CREATE UNIQUE INDEX users_active_username ON users (username) WHERE status = 'active';
CREATE UNIQUE INDEX users_active_phone ON users (phone) WHERE status = 'active';

CREATE TABLE sessions (
    token_hash  TEXT    PRIMARY KEY,
    user_id     BIGINT  NOT NULL REFERENCES users (id),
    created_at  BIGINT  NOT NULL,
    expires_at  BIGINT  NOT NULL,
    revoked_at  BIGINT,
    ip          TEXT    NOT NULL,
    user_agent  TEXT    NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);

CREATE TABLE phone_codes (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    phone        TEXT    NOT NULL,
    purpose      TEXT    NOT NULL,
    code_hash    TEXT    NOT NULL,
    created_at   BIGINT  NOT NULL,
    expires_at   BIGINT  NOT NULL,
    attempts     BIGINT  NOT NULL DEFAULT 0,
    verified_at  BIGINT,
    consumed_at  BIGINT
);
CREATE INDEX phone_codes_phone ON phone_codes (phone, purpose, id);

CREATE TABLE identity_verifications (
    id           TEXT    PRIMARY KEY,
    user_id      BIGINT  REFERENCES users (id),
    created_at   BIGINT  NOT NULL,
    verified_at  BIGINT,
    name         TEXT
);
