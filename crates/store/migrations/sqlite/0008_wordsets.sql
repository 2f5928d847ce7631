-- The paid custom word set (spec section 4): a bank transfer waiting for its deposit, the
-- deposits the bank reported, and the word sets bought, with their review.

-- A transfer the user promised: `depositor` is the memo the deposit must carry. 'pending'
-- until its deposit is confirmed ('paid') or `expires_at` passes ('expired', written when
-- a later transfer is opened; a pending one past its time reads as expired). `used_at`:
-- when it bought its word set.
CREATE TABLE transfers (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id     BIGINT  NOT NULL REFERENCES users (id),
    depositor   TEXT    NOT NULL,
    amount      BIGINT  NOT NULL,
    status      TEXT    NOT NULL DEFAULT 'pending',
    created_at  BIGINT  NOT NULL,
    expires_at  BIGINT  NOT NULL,
    paid_at     BIGINT,
    -- How the deposit was confirmed: 'deposit' (the bank's notification), 'operator',
    -- 'cli' or 'demo'.
    paid_by     TEXT,
    used_at     BIGINT
);
-- A memo names one open transfer; a user has one open transfer at a time.
CREATE UNIQUE INDEX transfers_open_depositor ON transfers (depositor) WHERE status = 'pending';
CREATE UNIQUE INDEX transfers_open_user ON transfers (user_id) WHERE status = 'pending';
CREATE INDEX transfers_user ON transfers (user_id, id);
CREATE INDEX transfers_status ON transfers (status, expires_at);

-- Deposits the bank's notification reported. 'matched' paid exactly one open transfer;
-- 'unmatched' (none) and 'ambiguous' (several) wait for an operator, who settles them.
CREATE TABLE deposits (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    external_id   TEXT,
    amount        BIGINT  NOT NULL,
    depositor     TEXT    NOT NULL,
    deposited_at  TEXT    NOT NULL,
    received_at   BIGINT  NOT NULL,
    outcome       TEXT    NOT NULL,
    transfer_id   BIGINT  REFERENCES transfers (id),
    settled_at    BIGINT,
    settled_by    BIGINT
);
-- The bank may send a notification twice; its id makes the second one a no-op.
CREATE UNIQUE INDEX deposits_external ON deposits (external_id) WHERE external_id IS NOT NULL;
CREATE INDEX deposits_unsettled ON deposits (outcome, settled_at);

-- A word set bought with one paid transfer: four words separated by single spaces, and
-- the refund account should it be rejected. `refund_account` is sealed (AES-256-GCM, see
-- the server's `sealing`) and erased once it is no longer needed: on approval, or once
-- the refund was made. `active_from_round`: the first round an approved set may show.
CREATE TABLE wordsets (
    id                 INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id            BIGINT  NOT NULL REFERENCES users (id),
    transfer_id        BIGINT  NOT NULL UNIQUE REFERENCES transfers (id),
    words              TEXT    NOT NULL,
    refund_bank        TEXT,
    refund_account     TEXT,
    status             TEXT    NOT NULL DEFAULT 'pending',
    created_at         BIGINT  NOT NULL,
    reviewed_at        BIGINT,
    reviewed_by        BIGINT,
    reject_reason      TEXT,
    active_from_round  BIGINT,
    refunded_at        BIGINT,
    refunded_by        BIGINT
);
CREATE INDEX wordsets_user ON wordsets (user_id, id);
CREATE INDEX wordsets_status ON wordsets (status, created_at);
