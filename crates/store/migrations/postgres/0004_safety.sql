-- Reports, sanctions, and the operators who handle them. Times are Unix milliseconds.

-- A report about the partner of a chat, by its reporter (source 'user'), or a chat the
-- abuse filter flagged by itself (source 'filter', no reporter). Handled within 24 hours.
CREATE TABLE reports (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    source       TEXT    NOT NULL DEFAULT 'user',
    reporter_id  BIGINT  REFERENCES users (id),
    reported_id  BIGINT  NOT NULL REFERENCES users (id),
    room_id      TEXT    NOT NULL,
    reasons      TEXT    NOT NULL,
    extra        TEXT    NOT NULL,
    created_at   BIGINT  NOT NULL,
    status       TEXT    NOT NULL DEFAULT 'open',
    resolved_at  BIGINT,
    resolved_by  BIGINT,
    resolution   TEXT
);
-- One report per reporter and room; one filter flag per sender and room.
CREATE UNIQUE INDEX reports_once ON reports (room_id, reported_id, COALESCE(reporter_id, 0));
CREATE INDEX reports_open ON reports (status, created_at);
CREATE INDEX reports_reported ON reports (reported_id);
CREATE INDEX reports_reporter ON reports (reporter_id);

-- Warnings, suspensions (until a time) and bans (no end) of users.
CREATE TABLE sanctions (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id      BIGINT  NOT NULL REFERENCES users (id),
    kind         TEXT    NOT NULL,
    reason       TEXT    NOT NULL,
    created_at   BIGINT  NOT NULL,
    until        BIGINT,
    operator_id  BIGINT,
    report_id    BIGINT,
    lifted_at    BIGINT
);
CREATE INDEX sanctions_user ON sanctions (user_id, created_at);

-- Operators are not users: their own accounts (made by `telepathy operator add`), a TOTP
-- second factor, and their own short sessions.
CREATE TABLE operators (
    id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    username        TEXT    NOT NULL UNIQUE,
    password_hash   TEXT    NOT NULL,
    totp_secret     TEXT,
    totp_enrolled_at BIGINT,
    totp_last_step  BIGINT,
    created_at      BIGINT  NOT NULL,
    disabled_at     BIGINT
);

CREATE TABLE operator_sessions (
    token_hash        TEXT    PRIMARY KEY,
    operator_id       BIGINT  NOT NULL REFERENCES operators (id),
    created_at        BIGINT  NOT NULL,
    expires_at        BIGINT  NOT NULL,
    second_factor_at  BIGINT,
    revoked_at        BIGINT,
    ip                TEXT    NOT NULL
);
CREATE INDEX operator_sessions_operator ON operator_sessions (operator_id);

-- Every operator action, written in the transaction of the action itself. Append-only:
-- the triggers below refuse any change or deletion, whoever asks.
CREATE TABLE audit_log (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    operator_id  BIGINT,
    action       TEXT    NOT NULL,
    user_id      BIGINT,
    report_id    BIGINT,
    detail       TEXT    NOT NULL,
    ip           TEXT    NOT NULL,
    at           BIGINT  NOT NULL
);
CREATE INDEX audit_log_at ON audit_log (at);
CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit_log is append-only';
END
$$;
CREATE TRIGGER audit_log_no_change BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
    FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();
