//! `telepathy seed --users N --out FILE [--url URL]...`: load-test accounts straight into the
//! store of this configuration (users `lt1`…`ltN` with nicknames `n1`…`nN`, a password hash
//! that never verifies, and one fresh session each), and the sessions file the load
//! generators read (`loadtest`, and `driver.js --sessions`). No argon2, no SMS: seeding
//! 100,000 users takes seconds.
//!
//! Existing `lt<i>` users are reused (with a new session); a user whose phone belongs to
//! another account is left out and counted. Runs only in demo mode, since whoever holds the
//! file can act as these users.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context};
use rand::RngCore;
use serde::Serialize;
use telepathy_domain::limits::SESSION_TTL;
use telepathy_store::{SeedUser, Store};

use crate::accounts::sessions::{digest, COOKIE};

use super::setup::{configure, open_store};

/// The most users one call seeds.
pub const MAX_USERS: usize = 200_000;

/// What `telepathy seed --help` says of the command.
pub const ABOUT: &str =
    "Makes load-test users lt1..ltN (nickname n<i>, phone 010 + 8 digits, no usable password)
with one session each in the configured database (DATABASE_URL; demo mode only) and
writes their cookies to FILE: {\"version\": 1, \"sessions\": [...]}. --url (repeatable)
fills each session's url round-robin; without it the urls are null.";

/// The command line of `seed`.
#[derive(Debug, Clone, PartialEq, Eq, clap::Args)]
pub struct Args {
    /// How many users to make: lt1..ltN, at most 200000
    #[arg(long, value_name = "N", value_parser = user_count)]
    pub users: usize,
    /// The sessions file to write
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// A node's origin for the sessions' url, round-robin (repeatable)
    #[arg(long = "url", value_name = "URL", value_parser = origin)]
    pub urls: Vec<String>,
}

fn user_count(raw: &str) -> Result<usize, String> {
    let users = raw
        .parse::<usize>()
        .map_err(|_| format!("`{raw}` is not a whole number"))?;
    if !(1..=MAX_USERS).contains(&users) {
        return Err(format!("must be between 1 and {MAX_USERS}"));
    }
    Ok(users)
}

fn origin(raw: &str) -> Result<String, String> {
    let url = raw.trim_end_matches('/').to_owned();
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err(format!(
            "`{url}` is not an origin like http://127.0.0.1:8080"
        ));
    }
    Ok(url)
}

/// The sessions file, in the format of the load drivers.
#[derive(Debug, Serialize)]
pub struct SessionsFile {
    pub version: u32,
    pub sessions: Vec<SessionEntry>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionEntry {
    pub url: Option<String>,
    pub username: String,
    /// Seeded users have no password.
    pub password: Option<String>,
    pub phone: String,
    pub nickname: Option<String>,
    /// A string, as driver.js compares ids as strings.
    pub user_id: String,
    /// `tp_session=<token>`, ready for a Cookie header.
    pub cookie: String,
}

/// Users seeded and the ones that could not be.
#[derive(Debug)]
pub struct Seeded {
    pub file: SessionsFile,
    pub created: u64,
    /// Usernames left out: their phone belongs to another account.
    pub skipped: Vec<String>,
}

/// `telepathy seed …`.
pub async fn run(args: Args) -> anyhow::Result<()> {
    let config = configure()?;
    if !config.demo {
        bail!(
            "seed makes accounts that anyone holding the sessions file can use; it runs only \
             against a demo deployment (TELEPATHY_DEMO=true)"
        );
    }
    let started = Instant::now();
    let store = open_store(&config).await?;
    let now = chrono::Utc::now().timestamp_millis();
    let seeded = seed(&store, args.users, &args.urls, now).await;
    store.close().await;
    let seeded = seeded?;
    write_file(&args.out, &seeded.file)?;
    eprintln!(
        "telepathy seed: {} sessions ({} users new, {} reused) in {:.1} s → {}",
        seeded.file.sessions.len(),
        seeded.created,
        seeded.file.sessions.len() as u64 - seeded.created,
        started.elapsed().as_secs_f64(),
        args.out.display()
    );
    if !seeded.skipped.is_empty() {
        bail!(
            "{} users could not be made, their phone belongs to another account (first: {}); \
             the file holds the others",
            seeded.skipped.len(),
            seeded.skipped[0]
        );
    }
    Ok(())
}

/// Seeds users `lt1..=ltN` with a fresh session each, starting at `now` (Unix ms).
pub async fn seed(
    store: &Store,
    users: usize,
    urls: &[String],
    now: i64,
) -> anyhow::Result<Seeded> {
    struct Wanted {
        username: String,
        phone: String,
        nickname: String,
        token: String,
        token_hash: String,
    }
    let mut wanted = Vec::with_capacity(users);
    for i in 1..=users {
        let mut bytes = [0u8; 32];
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        let token = hex::encode(bytes);
        wanted.push(Wanted {
            username: format!("lt{i}"),
            phone: format!("010{i:08}"),
            nickname: format!("n{i}"),
            token_hash: digest(&token),
            token,
        });
    }
    let rows: Vec<SeedUser<'_>> = wanted
        .iter()
        .map(|w| SeedUser {
            username: &w.username,
            phone: &w.phone,
            nickname: &w.nickname,
            token_hash: &w.token_hash,
        })
        .collect();
    let ttl_ms = i64::try_from(SESSION_TTL.as_millis()).unwrap_or(i64::MAX);
    let outcome = store
        .seed_load_users(&rows, now, now.saturating_add(ttl_ms))
        .await
        .context("seeding users and sessions")?;
    let mut sessions = Vec::with_capacity(users);
    let mut skipped = Vec::new();
    for (w, stored) in wanted.iter().zip(outcome.users) {
        let Some(stored) = stored else {
            skipped.push(w.username.clone());
            continue;
        };
        let url = (!urls.is_empty()).then(|| urls[sessions.len() % urls.len()].clone());
        sessions.push(SessionEntry {
            url,
            username: stored.username,
            password: None,
            phone: stored.phone,
            nickname: stored.nickname,
            user_id: stored.id.to_string(),
            cookie: format!("{COOKIE}={}", w.token),
        });
    }
    Ok(Seeded {
        file: SessionsFile {
            version: 1,
            sessions,
        },
        created: outcome.created,
        skipped,
    })
}

/// Writes the file whole or not at all (a temporary file renamed into place).
fn write_file(path: &Path, file: &SessionsFile) -> anyhow::Result<()> {
    let json = serde_json::to_vec(file)?;
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, json).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use telepathy_store::testing::fresh_store;
    use telepathy_store::Backend;

    #[tokio::test]
    async fn seeds_sessions_that_log_in() {
        let store = fresh_store(Backend::Sqlite).await;
        let now = chrono::Utc::now().timestamp_millis();
        let urls = ["http://a".to_owned(), "http://b".to_owned()];
        let seeded = seed(&store, 3, &urls, now).await.unwrap();
        assert_eq!(seeded.created, 3);
        assert!(seeded.skipped.is_empty());
        let s = &seeded.file.sessions;
        assert_eq!(s.len(), 3);
        assert_eq!(s[0].url.as_deref(), Some("http://a"));
        assert_eq!(s[1].url.as_deref(), Some("http://b"));
        assert_eq!(s[2].username, "lt3");
        assert_eq!(s[2].nickname.as_deref(), Some("n3"));
        assert_eq!(s[2].phone, "01000000003");
        for entry in s {
            let token = entry.cookie.strip_prefix("tp_session=").unwrap();
            let user = store
                .session_user(&digest(token), now)
                .await
                .unwrap()
                .unwrap();
            assert_eq!(user.id.to_string(), entry.user_id);
        }
        // A rerun reuses the users with new sessions.
        let again = seed(&store, 4, &[], now).await.unwrap();
        assert_eq!(again.created, 1);
        assert_eq!(again.file.sessions[0].user_id, s[0].user_id);
        assert_ne!(again.file.sessions[0].cookie, s[0].cookie);
        assert!(again.file.sessions[0].url.is_none());

        let json = serde_json::to_value(&again.file).unwrap();
        assert_eq!(json["version"], 1);
        let first = &json["sessions"][0];
        assert!(first["userId"].is_string());
        assert!(first["password"].is_null());
        assert!(first["url"].is_null());
    }
}
