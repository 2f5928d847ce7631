//! Accounts for load tests, made in bulk by `telepathy seed`: users with a nickname (so they
//! can play at once), a password hash that never verifies, and one session each. Multi-row
//! INSERTs in chunks inside one transaction, portable to SQLite and PostgreSQL.

use std::collections::HashMap;

use sqlx::FromRow;

use crate::{Store, StoreError};

/// The password hash of seeded users: not a PHC string, so no password ever matches it.
pub const SEEDED_PASSWORD_HASH: &str = "seeded-no-login";
/// The user agent of seeded sessions, to tell them apart in the table.
pub const SEEDED_USER_AGENT: &str = "telepathy seed";
const SEEDED_GENDER: &str = "남성";
const SEEDED_BIRTHDATE: &str = "1995-05-05";
/// Rows per INSERT: 3 bound values each for users, 2 for sessions; far below the parameter
/// limits of both servers (SQLite 32,766, PostgreSQL 65,535).
const CHUNK: usize = 1000;

/// One load-test user to make (or reuse) and the hash of its new session token.
#[derive(Debug, Clone)]
pub struct SeedUser<'a> {
    pub username: &'a str,
    pub phone: &'a str,
    pub nickname: &'a str,
    pub token_hash: &'a str,
}

/// A seeded user as stored. The phone and nickname are those of the row, which for a user
/// that already existed may differ from the ones asked for.
#[derive(Debug, Clone, PartialEq, Eq, FromRow)]
pub struct SeededUser {
    pub id: i64,
    pub username: String,
    pub phone: String,
    pub nickname: Option<String>,
}

/// What [`Store::seed_load_users`] did.
#[derive(Debug, Clone)]
pub struct SeedOutcome {
    /// One entry per input user, in input order: the stored user, or `None` when it could
    /// not be made (its phone belongs to another active account).
    pub users: Vec<Option<SeededUser>>,
    /// Users inserted by this call; the others existed already and were reused.
    pub created: u64,
}

impl Store {
    /// Makes the active users `users` that do not exist yet (an existing active username is
    /// reused as it is, a missing nickname set), and starts one session per user with the
    /// given token hash, valid until `expires_at`. All in one transaction.
    pub async fn seed_load_users(
        &self,
        users: &[SeedUser<'_>],
        now: i64,
        expires_at: i64,
    ) -> Result<SeedOutcome, StoreError> {
        let mut tx = self.pool.begin().await?;
        // Fresh statistics, so that the look-ups of existing users below use the username
        // index even right after an earlier seed filled the table (valid on both servers).
        sqlx::query("ANALYZE users").execute(&mut *tx).await?;
        let mut created = 0;
        let mut out = Vec::with_capacity(users.len());
        for chunk in users.chunks(CHUNK) {
            // The constants are ours, not input: written into the statement, so that each
            // row binds only what differs.
            let row = format!(
                "(${{}}, '{SEEDED_PASSWORD_HASH}', ${{}}, '{SEEDED_GENDER}', '{SEEDED_BIRTHDATE}', \
                 ${{}}, {now}, 'active', {now})"
            );
            let values = numbered(&row, chunk.len(), 3);
            // No conflict target: an existing username or phone (both partial unique indexes)
            // skips the row on both servers. RETURNING gives the rows made.
            let sql = format!(
                "INSERT INTO users (username, password_hash, phone, gender, birthdate, nickname, \
                 nickname_set_at, status, created_at) VALUES {values} ON CONFLICT DO NOTHING \
                 RETURNING id, username, phone, nickname"
            );
            let mut insert = sqlx::query_as::<_, SeededUser>(&sql);
            for u in chunk {
                insert = insert.bind(u.username).bind(u.phone).bind(u.nickname);
            }
            let mut found: HashMap<String, SeededUser> = insert
                .fetch_all(&mut *tx)
                .await?
                .into_iter()
                .map(|u| (u.username.clone(), u))
                .collect();
            created += found.len() as u64;

            // The users that existed already.
            let existing: Vec<&str> = chunk
                .iter()
                .map(|u| u.username)
                .filter(|name| !found.contains_key(*name))
                .collect();
            if !existing.is_empty() {
                let list = numbered("${}", existing.len(), 1);
                let sql = format!(
                    "SELECT id, username, phone, nickname FROM users
                     WHERE status = 'active' AND username IN ({list})"
                );
                let mut select = sqlx::query_as::<_, SeededUser>(&sql);
                for name in existing {
                    select = select.bind(name);
                }
                for u in select.fetch_all(&mut *tx).await? {
                    found.insert(u.username.clone(), u);
                }
            }

            let mut sessions = Vec::with_capacity(chunk.len());
            for u in chunk {
                let Some(mut stored) = found.remove(u.username) else {
                    out.push(None);
                    continue;
                };
                if stored.nickname.is_none() {
                    sqlx::query(
                        "UPDATE users SET nickname = $1, nickname_set_at = $2 WHERE id = $3",
                    )
                    .bind(u.nickname)
                    .bind(now)
                    .bind(stored.id)
                    .execute(&mut *tx)
                    .await?;
                    stored.nickname = Some(u.nickname.to_owned());
                }
                sessions.push((u.token_hash, stored.id));
                out.push(Some(stored));
            }
            if sessions.is_empty() {
                continue;
            }
            let row =
                format!("(${{}}, ${{}}, {now}, {expires_at}, '127.0.0.1', '{SEEDED_USER_AGENT}')");
            let values = numbered(&row, sessions.len(), 2);
            let sql = format!(
                "INSERT INTO sessions (token_hash, user_id, created_at, expires_at, ip, user_agent)
                 VALUES {values}"
            );
            let mut insert = sqlx::query(&sql);
            for (hash, id) in sessions {
                insert = insert.bind(hash).bind(id);
            }
            insert.execute(&mut *tx).await?;
        }
        tx.commit().await?;
        Ok(SeedOutcome {
            users: out,
            created,
        })
    }
}

/// `rows` copies of `row` joined by commas, its `{}` holes numbered `$1, $2, …` in order;
/// `row` has `per_row` holes.
fn numbered(row: &str, rows: usize, per_row: usize) -> String {
    let mut out = String::with_capacity(rows * (row.len() + 8 * per_row));
    let mut n = 0;
    for r in 0..rows {
        if r > 0 {
            out.push_str(", ");
        }
        let mut parts = row.split("{}");
        if let Some(first) = parts.next() {
            out.push_str(first);
        }
        for part in parts {
            n += 1;
            out.push_str(&n.to_string());
            out.push_str(part);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::fresh_store;
    use crate::{Backend, NewUser};

    #[test]
    fn numbers_the_holes_in_order() {
        assert_eq!(numbered("(${}, ${}, 7)", 2, 2), "($1, $2, 7), ($3, $4, 7)");
        assert_eq!(numbered("${}", 3, 1), "$1, $2, $3");
        assert_eq!(numbered("${}", 0, 1), "");
    }

    struct Owned {
        username: String,
        phone: String,
        nickname: String,
        token_hash: String,
    }

    fn wanted(range: std::ops::Range<usize>) -> Vec<Owned> {
        range
            .map(|i| Owned {
                username: format!("lt{i}"),
                phone: format!("010{i:08}"),
                nickname: format!("n{i}"),
                token_hash: format!("hash-{i}-{}", rand::random::<u64>()),
            })
            .collect()
    }

    fn borrowed(users: &[Owned]) -> Vec<SeedUser<'_>> {
        users
            .iter()
            .map(|u| SeedUser {
                username: &u.username,
                phone: &u.phone,
                nickname: &u.nickname,
                token_hash: &u.token_hash,
            })
            .collect()
    }

    async fn seeds_reuses_and_skips(backend: Backend) {
        let store = fresh_store(backend).await;
        let now = 1_700_000_000_000;
        // Someone else already holds the phone of lt4.
        store
            .register_user_unchecked_for_test(&NewUser {
                username: "someone",
                password_hash: "x",
                phone: "01000000004",
                gender: "여성",
                birthdate: "2000-01-01",
                alarm_consent: false,
                consents: &[],
                now,
            })
            .await;

        let first = wanted(1..4);
        let outcome = store
            .seed_load_users(&borrowed(&first), now, now + 1000)
            .await
            .unwrap();
        assert_eq!(outcome.created, 3);
        let ids: Vec<i64> = outcome
            .users
            .iter()
            .map(|u| u.as_ref().unwrap().id)
            .collect();
        for (u, w) in outcome.users.iter().zip(&first) {
            let u = u.as_ref().unwrap();
            assert_eq!(u.username, w.username);
            assert_eq!(u.phone, w.phone);
            assert_eq!(u.nickname.as_deref(), Some(w.nickname.as_str()));
            let by_session = store
                .session_user(&w.token_hash, now)
                .await
                .unwrap()
                .unwrap();
            assert_eq!(by_session.id, u.id);
            assert_eq!(by_session.gender, "남성");
            assert_eq!(by_session.password_hash, SEEDED_PASSWORD_HASH);
            // Expired sessions do not count.
            assert!(store
                .session_user(&w.token_hash, now + 1000)
                .await
                .unwrap()
                .is_none());
        }

        // A rerun reuses lt1..lt3, makes lt5 and skips lt4 (phone taken); fresh sessions.
        let second = wanted(1..6);
        let outcome = store
            .seed_load_users(&borrowed(&second), now, now + 1000)
            .await
            .unwrap();
        assert_eq!(outcome.created, 1);
        assert_eq!(outcome.users.len(), 5);
        let again: Vec<i64> = outcome.users[..3]
            .iter()
            .map(|u| u.as_ref().unwrap().id)
            .collect();
        assert_eq!(again, ids);
        assert!(outcome.users[3].is_none());
        assert_eq!(outcome.users[4].as_ref().unwrap().username, "lt5");
        for w in [&second[0], &second[4]] {
            assert!(store
                .session_user(&w.token_hash, now)
                .await
                .unwrap()
                .is_some());
        }
        // The first run's sessions still work.
        assert!(store
            .session_user(&first[0].token_hash, now)
            .await
            .unwrap()
            .is_some());
    }

    #[tokio::test]
    async fn seeds_on_sqlite() {
        seeds_reuses_and_skips(Backend::Sqlite).await;
    }

    #[tokio::test]
    async fn seeds_on_postgres() {
        seeds_reuses_and_skips(Backend::Postgres).await;
    }

    #[tokio::test]
    async fn seeds_more_than_one_chunk() {
        let store = fresh_store(Backend::Sqlite).await;
        let many = wanted(0..(CHUNK + 7));
        let outcome = store.seed_load_users(&borrowed(&many), 1, 2).await.unwrap();
        assert_eq!(outcome.created, (CHUNK + 7) as u64);
        assert!(outcome.users.iter().all(Option::is_some));
        let last = many.last().unwrap();
        assert!(store
            .session_user(&last.token_hash, 1)
            .await
            .unwrap()
            .is_some());
    }

    impl Store {
        /// Inserts an account directly, without the phone verification.
        async fn register_user_unchecked_for_test(&self, u: &NewUser<'_>) {
            sqlx::query(
                "INSERT INTO users (username, password_hash, phone, gender, birthdate, status, created_at)
                 VALUES ($1, $2, $3, $4, $5, 'active', $6)",
            )
            .bind(u.username)
            .bind(u.password_hash)
            .bind(u.phone)
            .bind(u.gender)
            .bind(u.birthdate)
            .bind(u.now)
            .execute(&self.pool)
            .await
            .unwrap();
        }
    }
}
