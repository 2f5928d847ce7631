use sqlx::FromRow;

use crate::{Store, StoreError};

/// A verification code sent by SMS; only its hash is stored.
#[derive(Debug, Clone, FromRow)]
pub struct PhoneCode {
    pub id: i64,
    pub phone: String,
    pub purpose: String,
    pub code_hash: String,
    /// The digest of the browser's code flow the code was sent for (see the server's
    /// `accounts::codes`): only that browser may try it.
    pub flow: Option<String>,
    pub created_at: i64,
    pub expires_at: i64,
    pub attempts: i64,
    pub verified_at: Option<i64>,
    pub consumed_at: Option<i64>,
}

/// An identity verification started by a user.
#[derive(Debug, Clone, FromRow)]
pub struct IdentityCheck {
    pub id: String,
    pub user_id: Option<i64>,
    pub created_at: i64,
    pub verified_at: Option<i64>,
    pub name: Option<String>,
}

impl Store {
    /// Records a freshly sent code for one browser's `flow`. Only the latest code of a
    /// phone, purpose and flow counts: another browser's code leaves this one's alone.
    pub async fn insert_phone_code(
        &self,
        phone: &str,
        purpose: &str,
        flow: &str,
        code_hash: &str,
        now: i64,
        expires_at: i64,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO phone_codes (phone, purpose, flow, code_hash, created_at, expires_at)
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(phone)
        .bind(purpose)
        .bind(flow)
        .bind(code_hash)
        .bind(now)
        .bind(expires_at)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The latest code of `phone` and `purpose` sent for the browser's `flow`.
    pub async fn latest_phone_code(
        &self,
        phone: &str,
        purpose: &str,
        flow: &str,
    ) -> Result<Option<PhoneCode>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT id, phone, purpose, code_hash, flow, created_at, expires_at, attempts,
                    verified_at, consumed_at
             FROM phone_codes WHERE phone = $1 AND purpose = $2 AND flow = $3
             ORDER BY id DESC LIMIT 1",
        )
        .bind(phone)
        .bind(purpose)
        .bind(flow)
        .fetch_optional(&self.pool)
        .await?)
    }

    /// Whether `phone` has a sign-up code verified since `since` and not yet spent: what
    /// registering needs (checked again, and spent, in the same step as the account).
    pub async fn phone_verified_since(&self, phone: &str, since: i64) -> Result<bool, StoreError> {
        let found: Option<i64> = sqlx::query_scalar(
            "SELECT id FROM phone_codes
             WHERE phone = $1 AND purpose = 'register' AND verified_at >= $2
               AND consumed_at IS NULL
             LIMIT 1",
        )
        .bind(phone)
        .bind(since)
        .fetch_optional(&self.pool)
        .await?;
        Ok(found.is_some())
    }

    /// Takes one of the `max` tries of a code and answers how many are taken now, this one
    /// included; `None` when none was left. Counting and checking are one conditional
    /// UPDATE, so tries that arrive at once, on any nodes, never take more than `max`.
    pub async fn take_code_attempt(&self, id: i64, max: i64) -> Result<Option<i64>, StoreError> {
        Ok(sqlx::query_scalar(
            "UPDATE phone_codes SET attempts = attempts + 1
             WHERE id = $1 AND attempts < $2 RETURNING attempts",
        )
        .bind(id)
        .bind(max)
        .fetch_optional(&self.pool)
        .await?)
    }

    /// Marks a code as verified (register) once; false when it already was.
    pub async fn mark_code_verified(&self, id: i64, now: i64) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE phone_codes SET verified_at = $1 WHERE id = $2 AND verified_at IS NULL",
        )
        .bind(now)
        .bind(id)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Spends a code (password reset) once; false when it already was spent.
    pub async fn consume_code(&self, id: i64, now: i64) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE phone_codes SET verified_at = $1, consumed_at = $1
             WHERE id = $2 AND consumed_at IS NULL",
        )
        .bind(now)
        .bind(id)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    pub async fn create_identity_check(
        &self,
        id: &str,
        user_id: Option<i64>,
        now: i64,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO identity_verifications (id, user_id, created_at) VALUES ($1, $2, $3)",
        )
        .bind(id)
        .bind(user_id)
        .bind(now)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    pub async fn identity_check(&self, id: &str) -> Result<Option<IdentityCheck>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT id, user_id, created_at, verified_at, name FROM identity_verifications WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?)
    }

    pub async fn complete_identity_check(
        &self,
        id: &str,
        name: &str,
        now: i64,
    ) -> Result<(), StoreError> {
        sqlx::query("UPDATE identity_verifications SET verified_at = $1, name = $2 WHERE id = $3")
            .bind(now)
            .bind(name)
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}
