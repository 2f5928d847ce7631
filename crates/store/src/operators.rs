//! Operators (the operations team, not users), their TOTP second factor and their
//! sessions. Every change here is written with its audit line in one transaction.

use sqlx::FromRow;

use crate::safety::AuditEntry;
use crate::{is_unique_violation, Store, StoreError};

/// An operator as stored.
#[derive(Debug, Clone, FromRow)]
pub struct Operator {
    pub id: i64,
    pub username: String,
    pub password_hash: String,
    /// From the start of enrolment until `reset-totp`: the base32 secret, sealed with the
    /// deployment's data key by the server (the store keeps what it is given).
    pub totp_secret: Option<String>,
    pub totp_enrolled_at: Option<i64>,
    /// The time step of the last code accepted: a code is good once.
    pub totp_last_step: Option<i64>,
    pub created_at: i64,
    pub disabled_at: Option<i64>,
}

/// A new operator session; only the hash of its token is stored.
#[derive(Debug)]
pub struct NewOperatorSession<'a> {
    pub token_hash: &'a str,
    pub operator_id: i64,
    pub now: i64,
    pub expires_at: i64,
    pub ip: &'a str,
}

/// A live session of an operator who is not disabled.
#[derive(Debug, Clone)]
pub struct OperatorSession {
    pub operator: Operator,
    pub created_at: i64,
    pub expires_at: i64,
    /// When the session passed the second factor; `None` while it waits for a code.
    pub second_factor_at: Option<i64>,
}

/// A code found right for `step`, on its way to being accepted once.
#[derive(Debug)]
pub struct SecondFactor<'a> {
    pub operator_id: i64,
    pub token_hash: &'a str,
    /// The secret the code was checked against, as stored: a reset meanwhile voids the
    /// code.
    pub secret: &'a str,
    pub step: i64,
    pub now: i64,
}

const OPERATOR_COLUMNS: &str = "id, username, password_hash, totp_secret, totp_enrolled_at, \
     totp_last_step, created_at, disabled_at";

#[derive(FromRow)]
struct SessionRow {
    #[sqlx(flatten)]
    operator: Operator,
    session_created_at: i64,
    session_expires_at: i64,
    second_factor_at: Option<i64>,
}

impl Store {
    /// Adds an operator with its audit line; `OperatorExists` when the username is taken
    /// (by a disabled operator too).
    pub async fn add_operator(
        &self,
        username: &str,
        password_hash: &str,
        now: i64,
        audit: &AuditEntry<'_>,
    ) -> Result<i64, StoreError> {
        let mut tx = self.audited(audit).await?;
        let inserted = sqlx::query_scalar::<_, i64>(
            "INSERT INTO operators (username, password_hash, created_at) VALUES ($1, $2, $3)
             RETURNING id",
        )
        .bind(username)
        .bind(password_hash)
        .bind(now)
        .fetch_one(&mut **tx)
        .await;
        let id = match inserted {
            Ok(id) => id,
            Err(e) if is_unique_violation(&e) => return Err(StoreError::OperatorExists),
            Err(e) => return Err(e.into()),
        };
        tx.commit().await?;
        Ok(id)
    }

    /// Every operator, disabled ones included, oldest first.
    pub async fn operators(&self) -> Result<Vec<Operator>, StoreError> {
        let sql = format!("SELECT {OPERATOR_COLUMNS} FROM operators ORDER BY id");
        Ok(sqlx::query_as(&sql).fetch_all(&self.pool).await?)
    }

    /// The operator with this username, disabled or not.
    pub async fn operator_by_username(
        &self,
        username: &str,
    ) -> Result<Option<Operator>, StoreError> {
        let sql = format!("SELECT {OPERATOR_COLUMNS} FROM operators WHERE username = $1");
        Ok(sqlx::query_as(&sql)
            .bind(username)
            .fetch_optional(&self.pool)
            .await?)
    }

    /// Disables an operator and ends its sessions, with the audit line. False (and
    /// nothing written) when it was disabled already.
    pub async fn disable_operator(
        &self,
        id: i64,
        now: i64,
        audit: &AuditEntry<'_>,
    ) -> Result<bool, StoreError> {
        let mut tx = self.audited(audit).await?;
        let done = sqlx::query(
            "UPDATE operators SET disabled_at = $1 WHERE id = $2 AND disabled_at IS NULL",
        )
        .bind(now)
        .bind(id)
        .execute(&mut **tx)
        .await?
        .rows_affected();
        if done != 1 {
            return Ok(false);
        }
        revoke_sessions_of(&mut tx, id, now).await?;
        tx.commit().await?;
        Ok(true)
    }

    /// Forgets an operator's authenticator (its secret, enrolment and last step) and ends
    /// its sessions, with the audit line: the next login enrols a new one.
    pub async fn reset_operator_totp(
        &self,
        id: i64,
        now: i64,
        audit: &AuditEntry<'_>,
    ) -> Result<(), StoreError> {
        let mut tx = self.audited(audit).await?;
        sqlx::query(
            "UPDATE operators SET totp_secret = NULL, totp_enrolled_at = NULL,
                totp_last_step = NULL
             WHERE id = $1",
        )
        .bind(id)
        .execute(&mut **tx)
        .await?;
        revoke_sessions_of(&mut tx, id, now).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Starts a session after the password, with the login's audit line.
    pub async fn create_operator_session(
        &self,
        s: &NewOperatorSession<'_>,
        audit: &AuditEntry<'_>,
    ) -> Result<(), StoreError> {
        let mut tx = self.audited(audit).await?;
        sqlx::query(
            "INSERT INTO operator_sessions (token_hash, operator_id, created_at, expires_at, ip)
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(s.token_hash)
        .bind(s.operator_id)
        .bind(s.now)
        .bind(s.expires_at)
        .bind(s.ip)
        .execute(&mut **tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// The live session of this token, if its operator is not disabled.
    pub async fn operator_session(
        &self,
        token_hash: &str,
        now: i64,
    ) -> Result<Option<OperatorSession>, StoreError> {
        let columns = crate::columns_of("o", OPERATOR_COLUMNS);
        let sql = format!(
            "SELECT {columns}, s.created_at AS session_created_at,
                s.expires_at AS session_expires_at, s.second_factor_at
             FROM operator_sessions s JOIN operators o ON o.id = s.operator_id
             WHERE s.token_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > $2
               AND o.disabled_at IS NULL"
        );
        let row: Option<SessionRow> = sqlx::query_as(&sql)
            .bind(token_hash)
            .bind(now)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|r| OperatorSession {
            operator: r.operator,
            created_at: r.session_created_at,
            expires_at: r.session_expires_at,
            second_factor_at: r.second_factor_at,
        }))
    }

    /// Moves a live session's deadline to `expires_at`, unless it already ends after
    /// `unless_after` (another request moved it moments ago).
    pub async fn slide_operator_session(
        &self,
        token_hash: &str,
        expires_at: i64,
        unless_after: i64,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE operator_sessions SET expires_at = $1
             WHERE token_hash = $2 AND revoked_at IS NULL AND expires_at <= $3",
        )
        .bind(expires_at)
        .bind(token_hash)
        .bind(unless_after)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Ends a session (a logout), with its audit line.
    pub async fn revoke_operator_session(
        &self,
        token_hash: &str,
        now: i64,
        audit: &AuditEntry<'_>,
    ) -> Result<(), StoreError> {
        let mut tx = self.audited(audit).await?;
        sqlx::query(
            "UPDATE operator_sessions SET revoked_at = $1
             WHERE token_hash = $2 AND revoked_at IS NULL",
        )
        .bind(now)
        .bind(token_hash)
        .execute(&mut **tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Every operator's TOTP secret as stored: (operator id, secret).
    pub async fn totp_secrets(&self) -> Result<Vec<(i64, String)>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT id, totp_secret FROM operators WHERE totp_secret IS NOT NULL ORDER BY id",
        )
        .fetch_all(&self.pool)
        .await?)
    }

    /// Stores `new` in place of the operator's secret, if it is still `old`.
    pub async fn replace_totp_secret(
        &self,
        operator_id: i64,
        old: &str,
        new: &str,
    ) -> Result<bool, StoreError> {
        let done =
            sqlx::query("UPDATE operators SET totp_secret = $1 WHERE id = $2 AND totp_secret = $3")
                .bind(new)
                .bind(operator_id)
                .bind(old)
                .execute(&self.pool)
                .await?
                .rows_affected();
        Ok(done == 1)
    }

    /// The secret of an enrolment in progress: `secret` when none was kept yet (two
    /// starts at once agree on one), `None` when the operator is enrolled already.
    pub async fn start_totp_enrollment(
        &self,
        operator_id: i64,
        secret: &str,
    ) -> Result<Option<String>, StoreError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "UPDATE operators SET totp_secret = $1
             WHERE id = $2 AND totp_secret IS NULL AND totp_enrolled_at IS NULL",
        )
        .bind(secret)
        .bind(operator_id)
        .execute(&mut *tx)
        .await?;
        let kept: Option<Option<String>> = sqlx::query_scalar(
            "SELECT totp_secret FROM operators WHERE id = $1 AND totp_enrolled_at IS NULL",
        )
        .bind(operator_id)
        .fetch_optional(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(kept.flatten())
    }

    /// Accepts a right code once: its step must be later than any accepted before, so a
    /// replayed code, or one code sent twice at once, passes at most once. Marks the
    /// session as past its second factor, enrols the operator on its first code, and
    /// writes the audit line, all in one transaction. False (nothing written) when the
    /// step was used, the secret changed or the operator was disabled meanwhile.
    pub async fn pass_second_factor(
        &self,
        f: &SecondFactor<'_>,
        audit: &AuditEntry<'_>,
    ) -> Result<bool, StoreError> {
        let mut tx = self.audited(audit).await?;
        let done = sqlx::query(
            "UPDATE operators SET totp_last_step = $1,
                totp_enrolled_at = COALESCE(totp_enrolled_at, $2)
             WHERE id = $3 AND totp_secret = $4 AND disabled_at IS NULL
               AND (totp_last_step IS NULL OR totp_last_step < $5)",
        )
        .bind(f.step)
        .bind(f.now)
        .bind(f.operator_id)
        .bind(f.secret)
        .bind(f.step)
        .execute(&mut **tx)
        .await?
        .rows_affected();
        if done != 1 {
            return Ok(false);
        }
        sqlx::query(
            "UPDATE operator_sessions SET second_factor_at = $1
             WHERE token_hash = $2 AND operator_id = $3 AND revoked_at IS NULL",
        )
        .bind(f.now)
        .bind(f.token_hash)
        .bind(f.operator_id)
        .execute(&mut **tx)
        .await?;
        tx.commit().await?;
        Ok(true)
    }
}

async fn revoke_sessions_of(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    operator_id: i64,
    now: i64,
) -> Result<(), StoreError> {
    sqlx::query(
        "UPDATE operator_sessions SET revoked_at = $1
         WHERE operator_id = $2 AND revoked_at IS NULL",
    )
    .bind(now)
    .bind(operator_id)
    .execute(&mut **tx)
    .await?;
    Ok(())
}
