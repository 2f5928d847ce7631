-- The opening bell: the notification consent, the devices that asked for the 8 PM push,
-- and one row per evening's send, which is also its lease.

-- When the user agreed to be notified (the terms' optional 알림 수신 동의); NULL: no consent.
ALTER TABLE users ADD COLUMN alarm_consent_at BIGINT;

-- A browser's push subscription (RFC 8030 endpoint, RFC 8291 keys). One endpoint belongs to
-- one user: the browser's last account. `last_evening` is the Seoul date of the last opening
-- sent to it, claimed before sending, so no evening reaches a device twice.
CREATE TABLE push_subscriptions (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id      BIGINT  NOT NULL REFERENCES users (id),
    endpoint     TEXT    NOT NULL UNIQUE,
    p256dh       TEXT    NOT NULL,
    auth         TEXT    NOT NULL,
    created_at   BIGINT  NOT NULL,
    last_evening TEXT
);
CREATE INDEX push_subscriptions_user ON push_subscriptions (user_id);

-- One evening's opening send: whoever holds the lease sends; a holder that stops renewing
-- is taken over, and the devices it claimed stay claimed.
CREATE TABLE push_openings (
    evening     TEXT    PRIMARY KEY,
    holder      TEXT    NOT NULL,
    lease_until BIGINT  NOT NULL,
    started_at  BIGINT  NOT NULL,
    finished_at BIGINT,
    sent        BIGINT  NOT NULL DEFAULT 0,
    gone        BIGINT  NOT NULL DEFAULT 0,
    failed      BIGINT  NOT NULL DEFAULT 0
);

-- Keys the nodes must share and nobody configured (the demo's VAPID pair): the first node
-- to need one makes it, every node reads the same.
CREATE TABLE server_keys (
    name       TEXT    PRIMARY KEY,
    value      TEXT    NOT NULL,
    created_at BIGINT  NOT NULL
);
