use sqlx::FromRow;

use crate::consents::{record_consents, Consent};
use crate::push::forget_devices;
use crate::rooms::kept_apart_from;
use crate::{columns_of, is_unique_violation, Backend, Store, StoreError};

/// An account as stored.
#[derive(Debug, Clone, FromRow)]
pub struct User {
    pub id: i64,
    pub username: String,
    pub password_hash: String,
    pub phone: String,
    pub gender: String,
    pub birthdate: String,
    pub nickname: Option<String>,
    pub nickname_set_at: Option<i64>,
    pub real_name: Option<String>,
    pub status: String,
    pub created_at: i64,
}

/// What registration stores.
#[derive(Debug)]
pub struct NewUser<'a> {
    pub username: &'a str,
    pub password_hash: &'a str,
    pub phone: &'a str,
    pub gender: &'a str,
    pub birthdate: &'a str,
    /// The optional notification consent of the terms (알림 수신 동의).
    pub alarm_consent: bool,
    /// Every terms answer given at sign-up, recorded with the account.
    pub consents: &'a [Consent<'a>],
    pub now: i64,
}

/// A login session; only the hash of its token is stored.
#[derive(Debug)]
pub struct NewSession<'a> {
    pub token_hash: &'a str,
    pub user_id: i64,
    pub now: i64,
    pub expires_at: i64,
    pub ip: &'a str,
    pub user_agent: &'a str,
}

/// The user `u` of the live session `s` whose token hash is `$1` at `$2` (ms).
const LIVE_SESSION: &str = "FROM sessions s JOIN users u ON u.id = s.user_id
     WHERE s.token_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > $2
       AND u.status = 'active'";

pub(crate) const USER_COLUMNS: &str =
    "id, username, password_hash, phone, gender, birthdate, nickname, \
     nickname_set_at, real_name, status, created_at";

impl Store {
    /// Registers an account, spending the phone's fresh verification in the same
    /// transaction: without one verified since `verified_since`, nothing is stored and
    /// `Ok(None)` comes back.
    pub async fn register_user(
        &self,
        user: &NewUser<'_>,
        verified_since: i64,
    ) -> Result<Option<i64>, StoreError> {
        let mut tx = self.pool.begin().await?;
        let spent = sqlx::query(
            "UPDATE phone_codes SET consumed_at = $1 WHERE id = (
                 SELECT id FROM phone_codes
                 WHERE phone = $2 AND purpose = 'register' AND verified_at >= $3
                   AND consumed_at IS NULL
                 ORDER BY id DESC LIMIT 1)",
        )
        .bind(user.now)
        .bind(user.phone)
        .bind(verified_since)
        .execute(&mut *tx)
        .await?;
        if spent.rows_affected() != 1 {
            return Ok(None);
        }
        let inserted = sqlx::query_scalar::<_, i64>(
            "INSERT INTO users (username, password_hash, phone, gender, birthdate, status,
                 created_at, alarm_consent_at)
             VALUES ($1, $2, $3, $4, $5, 'active', $6, $7) RETURNING id",
        )
        .bind(user.username)
        .bind(user.password_hash)
        .bind(user.phone)
        .bind(user.gender)
        .bind(user.birthdate)
        .bind(user.now)
        .bind(user.alarm_consent.then_some(user.now))
        .fetch_one(&mut *tx)
        .await;
        match inserted {
            Ok(id) => {
                record_consents(&mut tx, id, user.consents, user.now).await?;
                tx.commit().await?;
                Ok(Some(id))
            }
            Err(e) if is_unique_violation(&e) => {
                drop(tx);
                if self.username_taken(user.username).await? {
                    Err(StoreError::UsernameTaken)
                } else {
                    Err(StoreError::PhoneInUse)
                }
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Whether an active account has this username.
    pub async fn username_taken(&self, username: &str) -> Result<bool, StoreError> {
        Ok(self.user_by_username(username).await?.is_some())
    }

    /// Whether an active account has this phone.
    pub async fn phone_in_use(&self, phone: &str) -> Result<bool, StoreError> {
        let n: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM users WHERE phone = $1 AND status = 'active'")
                .bind(phone)
                .fetch_one(&self.pool)
                .await?;
        Ok(n > 0)
    }

    /// The active account with this username.
    pub async fn user_by_username(&self, username: &str) -> Result<Option<User>, StoreError> {
        let sql =
            format!("SELECT {USER_COLUMNS} FROM users WHERE username = $1 AND status = 'active'");
        Ok(sqlx::query_as(&sql)
            .bind(username)
            .fetch_optional(&self.pool)
            .await?)
    }

    /// Any account, active or not, by id.
    pub async fn user_by_id(&self, id: i64) -> Result<Option<User>, StoreError> {
        let sql = format!("SELECT {USER_COLUMNS} FROM users WHERE id = $1");
        Ok(sqlx::query_as(&sql)
            .bind(id)
            .fetch_optional(&self.pool)
            .await?)
    }

    /// Sets the nickname and claims its key (`Nickname::key`); another active account
    /// holding the key refuses it with `NicknameTaken`.
    pub async fn set_nickname(
        &self,
        id: i64,
        nickname: &str,
        key: &str,
        now: i64,
    ) -> Result<(), StoreError> {
        let set = sqlx::query(
            "UPDATE users SET nickname = $1, nickname_key = $2, nickname_set_at = $3
             WHERE id = $4",
        )
        .bind(nickname)
        .bind(key)
        .bind(now)
        .bind(id)
        .execute(&self.pool)
        .await;
        match set {
            Ok(_) => Ok(()),
            Err(e) if is_unique_violation(&e) => Err(StoreError::NicknameTaken),
            Err(e) => Err(e.into()),
        }
    }

    /// Whether an active account other than `except` holds this nickname key.
    pub async fn nickname_taken(&self, key: &str, except: i64) -> Result<bool, StoreError> {
        let n: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM users
             WHERE nickname_key = $1 AND status = 'active' AND id <> $2",
        )
        .bind(key)
        .bind(except)
        .fetch_one(&self.pool)
        .await?;
        Ok(n > 0)
    }

    pub async fn set_password_hash(&self, id: i64, hash: &str) -> Result<(), StoreError> {
        sqlx::query("UPDATE users SET password_hash = $1 WHERE id = $2")
            .bind(hash)
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    pub async fn set_real_name(&self, id: i64, name: &str) -> Result<(), StoreError> {
        sqlx::query("UPDATE users SET real_name = $1 WHERE id = $2")
            .bind(name)
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Deactivates the account, ends all of its sessions and forgets its devices at once.
    /// The row stays for the retention period of the privacy policy.
    pub async fn withdraw_user(&self, id: i64, now: i64) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("UPDATE users SET status = 'withdrawn', withdrawn_at = $1 WHERE id = $2")
            .bind(now)
            .bind(id)
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "UPDATE sessions SET revoked_at = $1 WHERE user_id = $2 AND revoked_at IS NULL",
        )
        .bind(now)
        .bind(id)
        .execute(&mut *tx)
        .await?;
        forget_devices(&mut tx, id).await?;
        tx.commit().await?;
        Ok(())
    }

    pub async fn create_session(&self, s: &NewSession<'_>) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO sessions (token_hash, user_id, created_at, expires_at, ip, user_agent)
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(s.token_hash)
        .bind(s.user_id)
        .bind(s.now)
        .bind(s.expires_at)
        .bind(s.ip)
        .bind(s.user_agent)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The addresses `user_id`'s sessions began from since `since`, the latest first (at
    /// most 50): the networks its owner is known to use.
    pub async fn session_ips_since(
        &self,
        user_id: i64,
        since: i64,
    ) -> Result<Vec<String>, StoreError> {
        let rows: Vec<(String, i64)> = sqlx::query_as(
            "SELECT ip, MAX(created_at) AS latest FROM sessions
             WHERE user_id = $1 AND created_at >= $2
             GROUP BY ip ORDER BY latest DESC LIMIT 50",
        )
        .bind(user_id)
        .bind(since)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.into_iter().map(|(ip, _)| ip).collect())
    }

    /// The active account behind a live session.
    pub async fn session_user(
        &self,
        token_hash: &str,
        now: i64,
    ) -> Result<Option<User>, StoreError> {
        let columns = columns_of("u", USER_COLUMNS);
        let sql = format!("SELECT {columns} {LIVE_SESSION}");
        Ok(sqlx::query_as(&sql)
            .bind(token_hash)
            .bind(now)
            .fetch_optional(&self.pool)
            .await?)
    }

    /// [`Self::session_user`] and whom the user is kept apart from ([`Self::kept_apart`]),
    /// in one statement: a socket opens with both, and a crowd of sockets opening at
    /// once pays one round trip each instead of two.
    pub async fn session_user_apart(
        &self,
        token_hash: &str,
        now: i64,
    ) -> Result<Option<(User, Vec<i64>)>, StoreError> {
        #[derive(FromRow)]
        struct Row {
            #[sqlx(flatten)]
            user: User,
            apart: Option<String>,
        }
        let columns = columns_of("u", USER_COLUMNS);
        let list = match self.backend {
            Backend::Postgres => "string_agg(CAST(k.id AS TEXT), ',')",
            Backend::Sqlite => "group_concat(k.id, ',')",
        };
        let apart = kept_apart_from("u.id", "u.id");
        let sql =
            format!("SELECT {columns}, (SELECT {list} FROM ({apart}) k) AS apart {LIVE_SESSION}");
        let row: Option<Row> = sqlx::query_as(&sql)
            .bind(token_hash)
            .bind(now)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|r| {
            let apart = r.apart.unwrap_or_default();
            let ids = apart.split(',').filter_map(|id| id.parse().ok()).collect();
            (r.user, ids)
        }))
    }

    pub async fn revoke_session(&self, token_hash: &str, now: i64) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE sessions SET revoked_at = $1 WHERE token_hash = $2 AND revoked_at IS NULL",
        )
        .bind(now)
        .bind(token_hash)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Ends every session of the user but `keep` (the one making a password change).
    pub async fn revoke_user_sessions(
        &self,
        user_id: i64,
        keep: Option<&str>,
        now: i64,
    ) -> Result<u64, StoreError> {
        let done = sqlx::query(
            "UPDATE sessions SET revoked_at = $1
             WHERE user_id = $2 AND revoked_at IS NULL AND token_hash <> $3",
        )
        .bind(now)
        .bind(user_id)
        .bind(keep.unwrap_or(""))
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected())
    }
}
