-- Megaphones: each user's count, the card orders that buy them and the megaphones sent.
ALTER TABLE users ADD COLUMN megaphones INTEGER NOT NULL DEFAULT 0;

-- A card order: issued by us for (user, pack) before the payment window opens, paid at
-- most once. `imp_uid` is the card payment's id at the gateway; one payment pays one order.
CREATE TABLE card_orders (
    merchant_uid TEXT    PRIMARY KEY,
    user_id      BIGINT  NOT NULL REFERENCES users (id),
    item         TEXT    NOT NULL,
    amount       BIGINT  NOT NULL,
    megaphones   INTEGER NOT NULL,
    status       TEXT    NOT NULL DEFAULT 'ready',
    imp_uid      TEXT    UNIQUE,
    created_at   BIGINT  NOT NULL,
    paid_at      BIGINT
);
CREATE INDEX card_orders_user ON card_orders (user_id, created_at);

-- Every megaphone sent, for the operators (hidden ones stay, with who hid them).
CREATE TABLE megaphone_messages (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id    BIGINT  NOT NULL REFERENCES users (id),
    nickname   TEXT    NOT NULL,
    message    TEXT    NOT NULL,
    sent_at    BIGINT  NOT NULL,
    hidden_at  BIGINT,
    hidden_by  BIGINT
);
CREATE INDEX megaphone_messages_recent ON megaphone_messages (sent_at);
