//! The opening bell: each user's notification consent, the push subscriptions of their
//! devices, and the evening sends with their lease.
//!
//! Nothing here sends: the server claims devices in batches and reports what came of each.
//! A device is claimed for an evening (its `last_evening` set) before it is sent to, in one
//! conditional `UPDATE`, so no evening reaches a device twice, whichever node sends and
//! however often nodes restart: a claim that was not sent is lost for that evening, never
//! repeated.

use sqlx::FromRow;

use crate::consents::{record_consents, Consent};
use crate::{Store, StoreError};

/// A device to push to.
#[derive(Debug, Clone, PartialEq, Eq, FromRow)]
pub struct PushTarget {
    pub id: i64,
    pub user_id: i64,
    pub endpoint: String,
    pub p256dh: String,
    pub auth: String,
}

/// What a subscription stores.
#[derive(Debug)]
pub struct NewPushSubscription<'a> {
    pub user_id: i64,
    pub endpoint: &'a str,
    pub p256dh: &'a str,
    pub auth: &'a str,
    pub now: i64,
}

/// What came of saving a subscription.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subscribed {
    /// Saved; how many devices the user has now.
    Saved { devices: i64 },
    /// The user has not consented (or is not an active account): nothing was saved.
    NoConsent,
}

/// One evening's send as recorded.
#[derive(Debug, Clone, PartialEq, Eq, FromRow)]
pub struct Opening {
    pub evening: String,
    pub holder: String,
    pub lease_until: i64,
    pub started_at: i64,
    pub finished_at: Option<i64>,
    pub sent: i64,
    pub gone: i64,
    pub failed: i64,
}

/// The counts of one batch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BatchCounts {
    /// Accepted by the push service.
    pub sent: i64,
    /// The push service no longer knows the subscription (404, 410): removed.
    pub gone: i64,
    /// Refused or unreachable for another reason.
    pub failed: i64,
}

const TARGET_COLUMNS: &str = "id, user_id, endpoint, p256dh, auth";
const OPENING_COLUMNS: &str =
    "evening, holder, lease_until, started_at, finished_at, sent, gone, failed";

impl Store {
    /// Whether `user_id` consents to notifications.
    pub async fn alarm_consent(&self, user_id: i64) -> Result<bool, StoreError> {
        let at: Option<Option<i64>> =
            sqlx::query_scalar("SELECT alarm_consent_at FROM users WHERE id = $1")
                .bind(user_id)
                .fetch_optional(&self.pool)
                .await?;
        Ok(matches!(at, Some(Some(_))))
    }

    /// Records the consent to `version` of the text, or its withdrawal, which removes every
    /// subscription of the user in the same transaction; a change is added to the user's
    /// ledger of terms answers. Giving it again keeps the first time it was given.
    pub async fn set_alarm_consent(
        &self,
        user_id: i64,
        agree: bool,
        version: &str,
        now: i64,
    ) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        let changed = if agree {
            sqlx::query(
                "UPDATE users SET alarm_consent_at = $1 WHERE id = $2 AND alarm_consent_at IS NULL",
            )
            .bind(now)
            .bind(user_id)
            .execute(&mut *tx)
            .await?
        } else {
            let changed = sqlx::query(
                "UPDATE users SET alarm_consent_at = NULL
                 WHERE id = $1 AND alarm_consent_at IS NOT NULL",
            )
            .bind(user_id)
            .execute(&mut *tx)
            .await?;
            forget_devices(&mut tx, user_id).await?;
            changed
        };
        if changed.rows_affected() == 1 {
            let answer = Consent {
                terms: "alarm",
                version,
                agreed: agree,
            };
            record_consents(&mut tx, user_id, &[answer], now).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// How many devices of `user_id` are subscribed.
    pub async fn push_devices(&self, user_id: i64) -> Result<i64, StoreError> {
        Ok(
            sqlx::query_scalar("SELECT COUNT(*) FROM push_subscriptions WHERE user_id = $1")
                .bind(user_id)
                .fetch_one(&self.pool)
                .await?,
        )
    }

    /// Saves a device's subscription for a consenting, active user. An endpoint is one
    /// browser: subscribing it again replaces its keys, and moves it to this user when
    /// another account used that browser before. Beyond `max_devices` the oldest of the
    /// user's devices give way.
    pub async fn save_push_subscription(
        &self,
        s: &NewPushSubscription<'_>,
        max_devices: i64,
    ) -> Result<Subscribed, StoreError> {
        let mut tx = self.pool.begin().await?;
        let consents: Option<i64> = sqlx::query_scalar(
            "SELECT id FROM users WHERE id = $1 AND status = 'active'
               AND alarm_consent_at IS NOT NULL",
        )
        .bind(s.user_id)
        .fetch_optional(&mut *tx)
        .await?;
        if consents.is_none() {
            return Ok(Subscribed::NoConsent);
        }
        sqlx::query(
            "INSERT INTO push_subscriptions (user_id, endpoint, p256dh, auth, created_at)
             VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (endpoint) DO UPDATE SET user_id = excluded.user_id,
                 p256dh = excluded.p256dh, auth = excluded.auth, created_at = excluded.created_at",
        )
        .bind(s.user_id)
        .bind(s.endpoint)
        .bind(s.p256dh)
        .bind(s.auth)
        .bind(s.now)
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "DELETE FROM push_subscriptions WHERE user_id = $1 AND id NOT IN (
                 SELECT id FROM push_subscriptions WHERE user_id = $1
                 ORDER BY created_at DESC, id DESC LIMIT $2)",
        )
        .bind(s.user_id)
        .bind(max_devices)
        .execute(&mut *tx)
        .await?;
        let devices: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM push_subscriptions WHERE user_id = $1")
                .bind(s.user_id)
                .fetch_one(&mut *tx)
                .await?;
        tx.commit().await?;
        Ok(Subscribed::Saved { devices })
    }

    /// Removes one device of `user_id` (someone else's endpoint is left alone).
    pub async fn remove_push_subscription(
        &self,
        user_id: i64,
        endpoint: &str,
    ) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM push_subscriptions WHERE user_id = $1 AND endpoint = $2")
            .bind(user_id)
            .bind(endpoint)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Takes the lease on `evening`'s send for `holder` until `lease_until`: a new evening,
    /// or an unfinished one whose holder stopped renewing. `None`: another node holds it,
    /// or the evening is done.
    pub async fn claim_opening(
        &self,
        evening: &str,
        holder: &str,
        now: i64,
        lease_until: i64,
    ) -> Result<Option<Opening>, StoreError> {
        sqlx::query(
            "INSERT INTO push_openings (evening, holder, lease_until, started_at)
             VALUES ($1, $2, $3, $4) ON CONFLICT (evening) DO NOTHING",
        )
        .bind(evening)
        .bind(holder)
        .bind(lease_until)
        .bind(now)
        .execute(&self.pool)
        .await?;
        let taken = sqlx::query(
            "UPDATE push_openings SET holder = $1, lease_until = $2
             WHERE evening = $3 AND finished_at IS NULL AND (holder = $1 OR lease_until < $4)",
        )
        .bind(holder)
        .bind(lease_until)
        .bind(evening)
        .bind(now)
        .execute(&self.pool)
        .await?;
        if taken.rows_affected() != 1 {
            return Ok(None);
        }
        self.opening(evening).await
    }

    /// The record of `evening`'s send.
    pub async fn opening(&self, evening: &str) -> Result<Option<Opening>, StoreError> {
        Ok(sqlx::query_as(&format!(
            "SELECT {OPENING_COLUMNS} FROM push_openings WHERE evening = $1"
        ))
        .bind(evening)
        .fetch_optional(&self.pool)
        .await?)
    }

    /// The latest evening's send, finished or under way.
    pub async fn latest_opening(&self) -> Result<Option<Opening>, StoreError> {
        Ok(sqlx::query_as(&format!(
            "SELECT {OPENING_COLUMNS} FROM push_openings ORDER BY evening DESC LIMIT 1"
        ))
        .fetch_optional(&self.pool)
        .await?)
    }

    /// How many devices have the bell on, all users together.
    pub async fn push_device_total(&self) -> Result<i64, StoreError> {
        Ok(
            sqlx::query_scalar("SELECT COUNT(*) FROM push_subscriptions")
                .fetch_one(&self.pool)
                .await?,
        )
    }

    /// The devices of `user_id` that have the bell on, while the user consents to
    /// notifications.
    pub async fn push_targets_of(&self, user_id: i64) -> Result<Vec<PushTarget>, StoreError> {
        Ok(sqlx::query_as(&format!(
            "SELECT {TARGET_COLUMNS} FROM push_subscriptions
             WHERE user_id = $1
               AND EXISTS (SELECT 1 FROM users u
                           WHERE u.id = $2 AND u.alarm_consent_at IS NOT NULL)
             ORDER BY id"
        ))
        .bind(user_id)
        .bind(user_id)
        .fetch_all(&self.pool)
        .await?)
    }

    /// Claims the next `limit` devices not yet sent `evening`'s opening, for the lease's
    /// holder only: empty when the lease was lost. Only consenting, active accounts that no
    /// suspension or ban holds at `now` (a suspended user's devices wait for its end).
    pub async fn claim_push_batch(
        &self,
        evening: &str,
        holder: &str,
        limit: i64,
        now: i64,
    ) -> Result<Vec<PushTarget>, StoreError> {
        // One statement: the lease check and the claim cannot come apart, and SQLite takes
        // its write lock at once rather than upgrading a read (which fails when busy).
        Ok(sqlx::query_as(&format!(
            "UPDATE push_subscriptions SET last_evening = $1
             WHERE (last_evening IS NULL OR last_evening <> $1)
               AND EXISTS (SELECT 1 FROM push_openings
                           WHERE evening = $1 AND holder = $2 AND finished_at IS NULL)
               AND id IN (
                 SELECT s.id FROM push_subscriptions s JOIN users u ON u.id = s.user_id
                 WHERE (s.last_evening IS NULL OR s.last_evening <> $1)
                   AND u.status = 'active' AND u.alarm_consent_at IS NOT NULL
                   AND NOT EXISTS (SELECT 1 FROM sanctions x
                                   WHERE x.user_id = s.user_id AND x.kind IN ('suspend', 'ban')
                                     AND x.lifted_at IS NULL
                                     AND (x.until IS NULL OR x.until > $4))
                 ORDER BY s.id LIMIT $3)
             RETURNING {TARGET_COLUMNS}"
        ))
        .bind(evening)
        .bind(holder)
        .bind(limit)
        .bind(now)
        .fetch_all(&self.pool)
        .await?)
    }

    /// Records a batch: its counts, the removal of the devices the push service no longer
    /// knows, and the lease renewed to `lease_until`. False when the lease was lost.
    pub async fn record_push_batch(
        &self,
        evening: &str,
        holder: &str,
        counts: BatchCounts,
        gone: &[i64],
        lease_until: i64,
    ) -> Result<bool, StoreError> {
        let mut tx = self.pool.begin().await?;
        for id in gone {
            sqlx::query("DELETE FROM push_subscriptions WHERE id = $1")
                .bind(id)
                .execute(&mut *tx)
                .await?;
        }
        let renewed = sqlx::query(
            "UPDATE push_openings SET sent = sent + $1, gone = gone + $2, failed = failed + $3,
                 lease_until = $4
             WHERE evening = $5 AND holder = $6 AND finished_at IS NULL",
        )
        .bind(counts.sent)
        .bind(counts.gone)
        .bind(counts.failed)
        .bind(lease_until)
        .bind(evening)
        .bind(holder)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(renewed.rows_affected() == 1)
    }

    /// Marks `evening`'s send done. False when the lease was lost.
    pub async fn finish_opening(
        &self,
        evening: &str,
        holder: &str,
        now: i64,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE push_openings SET finished_at = $1
             WHERE evening = $2 AND holder = $3 AND finished_at IS NULL",
        )
        .bind(now)
        .bind(evening)
        .bind(holder)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// The value of the shared key `name`, made by `make` and stored if no node stored one
    /// before; every node gets the first one stored.
    pub async fn shared_key(
        &self,
        name: &str,
        make: impl FnOnce() -> String,
        now: i64,
    ) -> Result<String, StoreError> {
        let read =
            || sqlx::query_scalar("SELECT value FROM server_keys WHERE name = $1").bind(name);
        if let Some(value) = read().fetch_optional(&self.pool).await? {
            return Ok(value);
        }
        sqlx::query(
            "INSERT INTO server_keys (name, value, created_at) VALUES ($1, $2, $3)
             ON CONFLICT (name) DO NOTHING",
        )
        .bind(name)
        .bind(make())
        .bind(now)
        .execute(&self.pool)
        .await?;
        Ok(read().fetch_one(&self.pool).await?)
    }
}

/// Forgets every device of `user_id`, inside the transaction of what ends the bell for them:
/// the consent withdrawn, the account withdrawn, a ban.
pub(crate) async fn forget_devices(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    user_id: i64,
) -> Result<(), StoreError> {
    sqlx::query("DELETE FROM push_subscriptions WHERE user_id = $1")
        .bind(user_id)
        .execute(&mut **tx)
        .await?;
    Ok(())
}
