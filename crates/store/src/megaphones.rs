//! Megaphones: the count each user owns, the card orders that buy them, and the megaphones
//! sent.
//!
//! A grant and a spend are each one conditional `UPDATE` inside a transaction, so neither a
//! replayed payment nor two tabs sending at once can count twice: the order row moves from
//! `ready` to `paid` once, and the count never goes below zero.

use sqlx::FromRow;

use crate::safety::AuditEntry;
use crate::{is_unique_violation, Store, StoreError};

/// A card order we issued for (user, pack) before the payment window opened.
#[derive(Debug, Clone, PartialEq, Eq, FromRow)]
pub struct CardOrder {
    pub merchant_uid: String,
    pub user_id: i64,
    pub item: String,
    pub amount: i64,
    pub megaphones: i64,
    /// `ready` until a payment of the order's amount pays it, then `paid`.
    pub status: String,
    pub imp_uid: Option<String>,
    pub created_at: i64,
    pub paid_at: Option<i64>,
}

/// What issuing an order stores.
#[derive(Debug)]
pub struct NewCardOrder<'a> {
    pub merchant_uid: &'a str,
    pub user_id: i64,
    pub item: &'a str,
    pub amount: i64,
    pub megaphones: i64,
    pub now: i64,
}

/// What came of paying an order with a gateway payment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grant {
    /// The order was paid now; the user's count after the grant.
    Granted { count: i64 },
    /// This very payment paid the order before (a replay, a second tab, the webhook):
    /// nothing more was granted.
    AlreadyGranted { count: i64 },
    /// The order is not `ready` for this payment: paid by another payment, for another
    /// amount, or the payment paid another order already.
    Refused,
}

/// A megaphone as sent.
#[derive(Debug, Clone, PartialEq, Eq, FromRow)]
pub struct MegaphoneMessage {
    pub id: i64,
    pub user_id: i64,
    pub nickname: String,
    pub message: String,
    pub sent_at: i64,
    pub hidden_at: Option<i64>,
}

/// A megaphone spent: what was stored and how many the sender has left.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spent {
    pub message: MegaphoneMessage,
    pub remaining: i64,
}

const ORDER_COLUMNS: &str =
    "merchant_uid, user_id, item, amount, megaphones, status, imp_uid, created_at, paid_at";

impl Store {
    /// How many megaphones `user_id` owns (0 for an unknown user).
    pub async fn megaphone_count(&self, user_id: i64) -> Result<i64, StoreError> {
        let count: Option<i64> = sqlx::query_scalar("SELECT megaphones FROM users WHERE id = $1")
            .bind(user_id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(count.unwrap_or(0))
    }

    pub async fn add_card_order(&self, o: &NewCardOrder<'_>) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO card_orders (merchant_uid, user_id, item, amount, megaphones, created_at)
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(o.merchant_uid)
        .bind(o.user_id)
        .bind(o.item)
        .bind(o.amount)
        .bind(o.megaphones)
        .bind(o.now)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    pub async fn card_order(&self, merchant_uid: &str) -> Result<Option<CardOrder>, StoreError> {
        Ok(sqlx::query_as(&format!(
            "SELECT {ORDER_COLUMNS} FROM card_orders WHERE merchant_uid = $1"
        ))
        .bind(merchant_uid)
        .fetch_optional(&self.pool)
        .await?)
    }

    /// Pays the order `merchant_uid` with the gateway payment `imp_uid` of `amount` and adds
    /// its megaphones to its user, once: only a `ready` order of exactly that amount moves
    /// to `paid`, and a payment pays one order (`imp_uid` is unique). Whoever comes second
    /// (a replay, a concurrent verify, the webhook) waits for the first and finds the
    /// order paid.
    pub async fn pay_card_order(
        &self,
        merchant_uid: &str,
        imp_uid: &str,
        amount: i64,
        now: i64,
    ) -> Result<Grant, StoreError> {
        let mut tx = self.pool.begin().await?;
        let paid: Option<(i64, i64)> = match sqlx::query_as(
            "UPDATE card_orders SET status = 'paid', imp_uid = $1, paid_at = $2
             WHERE merchant_uid = $3 AND status = 'ready' AND amount = $4
             RETURNING user_id, megaphones",
        )
        .bind(imp_uid)
        .bind(now)
        .bind(merchant_uid)
        .bind(amount)
        .fetch_optional(&mut *tx)
        .await
        {
            Ok(paid) => paid,
            // The payment paid another order already.
            Err(e) if is_unique_violation(&e) => return Ok(Grant::Refused),
            Err(e) => return Err(e.into()),
        };
        let Some((user_id, megaphones)) = paid else {
            drop(tx);
            return self.earlier_grant(merchant_uid, imp_uid).await;
        };
        let count: i64 = sqlx::query_scalar(
            "UPDATE users SET megaphones = megaphones + $1 WHERE id = $2 RETURNING megaphones",
        )
        .bind(megaphones)
        .bind(user_id)
        .fetch_one(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(Grant::Granted { count })
    }

    /// Whether `imp_uid` is the payment that paid `merchant_uid` before.
    async fn earlier_grant(&self, merchant_uid: &str, imp_uid: &str) -> Result<Grant, StoreError> {
        let Some(order) = self.card_order(merchant_uid).await? else {
            return Ok(Grant::Refused);
        };
        if order.status == "paid" && order.imp_uid.as_deref() == Some(imp_uid) {
            let count = self.megaphone_count(order.user_id).await?;
            Ok(Grant::AlreadyGranted { count })
        } else {
            Ok(Grant::Refused)
        }
    }

    /// Spends one of `user_id`'s megaphones on `message` and records it, or `None` when
    /// they have none. Two sends at once with one megaphone left: one of them gets it.
    pub async fn spend_megaphone(
        &self,
        user_id: i64,
        nickname: &str,
        message: &str,
        now: i64,
    ) -> Result<Option<Spent>, StoreError> {
        let mut tx = self.pool.begin().await?;
        let remaining: Option<i64> = sqlx::query_scalar(
            "UPDATE users SET megaphones = megaphones - 1
             WHERE id = $1 AND megaphones > 0 RETURNING megaphones",
        )
        .bind(user_id)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(remaining) = remaining else {
            return Ok(None);
        };
        let message: MegaphoneMessage = sqlx::query_as(
            "INSERT INTO megaphone_messages (user_id, nickname, message, sent_at)
             VALUES ($1, $2, $3, $4)
             RETURNING id, user_id, nickname, message, sent_at, hidden_at",
        )
        .bind(user_id)
        .bind(nickname)
        .bind(message)
        .bind(now)
        .fetch_one(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(Some(Spent { message, remaining }))
    }

    /// Gives back the megaphone spent on message `id` when it could not be sent: the
    /// message is removed and the count restored, once.
    pub async fn return_megaphone(&self, id: i64) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        let owner: Option<i64> =
            sqlx::query_scalar("DELETE FROM megaphone_messages WHERE id = $1 RETURNING user_id")
                .bind(id)
                .fetch_optional(&mut *tx)
                .await?;
        if let Some(user_id) = owner {
            sqlx::query("UPDATE users SET megaphones = megaphones + 1 WHERE id = $1")
                .bind(user_id)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// The newest megaphones, hidden ones too, newest first.
    pub async fn recent_megaphones(&self, limit: i64) -> Result<Vec<MegaphoneMessage>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT id, user_id, nickname, message, sent_at, hidden_at FROM megaphone_messages
             ORDER BY id DESC LIMIT $1",
        )
        .bind(limit)
        .fetch_all(&self.pool)
        .await?)
    }

    /// Hides a megaphone (from screens still showing it, and marks the record), with its
    /// audit line in the same transaction; false (and nothing written) when there is no
    /// such megaphone not hidden yet.
    pub async fn hide_megaphone(
        &self,
        id: i64,
        operator_id: Option<i64>,
        now: i64,
        audit: &AuditEntry<'_>,
    ) -> Result<bool, StoreError> {
        self.hide_row("megaphone_messages", id, operator_id, now, audit)
            .await
    }
}
