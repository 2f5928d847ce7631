//! Durable state in SQL, on SQLite (the embedded mode) or PostgreSQL (a cluster).
//!
//! One code path serves both through sqlx's `Any` driver: queries use `$N` parameters in
//! order and portable SQL. The dialect differences live in the two migration folders
//! (`migrations/sqlite`, `migrations/postgres`) and in [`Backend`]; nowhere else.
//! Times are Unix milliseconds (UTC) stored as BIGINT.

mod accounts;
mod again;
mod codes;
mod comments;
mod consents;
mod console;
mod megaphones;
mod operators;
mod push;
mod rooms;
mod safety;
mod seed;
pub mod testing;
mod wordsets;

use std::str::FromStr;
use std::time::Duration;

use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::AnyPool;

pub use accounts::{NewSession, NewUser, User};
pub use again::{AgainPair, AnsweredInvite, InviteOutcome, NewInvite, OpenInvite};
pub use codes::{IdentityCheck, PhoneCode};
pub use comments::{Comment, NewComment, ReviewedComment};
pub use consents::{Consent, ConsentRow};
pub use console::{AuditRow, ConsoleCounts, ReportQueue, ReportRow, Resolution, SanctionRow};
pub use megaphones::{CardOrder, Grant, MegaphoneMessage, NewCardOrder, Spent};
pub use operators::{NewOperatorSession, Operator, OperatorSession, SecondFactor};
pub use push::{BatchCounts, NewPushSubscription, Opening, PushTarget, Subscribed};
pub use rooms::{ArchivedMessage, HistoryItem, MatchSide, RoomRecord, TopWord};
pub use safety::{AuditEntry, NewReport, NewSanction, Sanction};
pub use seed::{SeedOutcome, SeedUser, SeededUser, SEEDED_PASSWORD_HASH, SEEDED_USER_AGENT};
pub use wordsets::{
    ApprovedWordset, ConfirmOutcome, Confirmation, Deposit, DepositOutcome, NewDeposit,
    NewTransfer, NewWordset, Review, SubmitOutcome, Transfer, TransferRow, Wordset, WordsetRow,
};

/// Which SQL server is behind the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

impl Backend {
    /// The backend a database URL names, if we support it.
    pub fn of_url(url: &str) -> Option<Self> {
        if url.starts_with("sqlite:") {
            Some(Self::Sqlite)
        } else if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            Some(Self::Postgres)
        } else {
            None
        }
    }
}

/// A failure of the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("unsupported database URL (expected sqlite:// or postgres://)")]
    UnsupportedUrl,
    #[error("the username belongs to an active account")]
    UsernameTaken,
    #[error("the phone belongs to an active account")]
    PhoneInUse,
    #[error("the nickname belongs to another active account")]
    NicknameTaken,
    #[error("an operator has this username")]
    OperatorExists,
    #[error("the report was resolved already")]
    ReportClosed,
    #[error("no free depositor code was found for a new transfer")]
    NoFreeDepositor,
    #[error("database: {0}")]
    Sql(#[from] sqlx::Error),
    #[error("migration: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("creating the data folder: {0}")]
    Io(#[from] std::io::Error),
}

impl StoreError {
    /// Whether the database could not be reached or did not answer in time (down,
    /// restarting, out of connections, or a lock held too long), as opposed to a fault
    /// of ours: the caller may try again shortly.
    pub fn is_outage(&self) -> bool {
        match self {
            Self::Sql(e) => is_outage(e),
            _ => false,
        }
    }
}

impl StoreError {
    /// Whether the database refused a value it cannot hold (a NUL byte in a text, say):
    /// the input's fault, not ours.
    pub fn is_bad_input(&self) -> bool {
        // PostgreSQL's SQLSTATE class 22, data exceptions.
        matches!(self, Self::Sql(sqlx::Error::Database(db))
            if db.code().is_some_and(|c| c.len() == 5 && c.starts_with("22")))
    }
}

/// What a batch write did. A batch is written in one transaction; when the database
/// refuses it for anything but an outage, each item is written alone, so that one bad row
/// (a text PostgreSQL cannot hold, a missing parent row) stops only itself.
#[derive(Debug, Default)]
pub struct Batch {
    /// Rows written, as the statements count them (rows that were there already are not).
    pub stored: u64,
    /// The items the database refused, by their place in the batch, with its answer.
    pub refused: Vec<(usize, StoreError)>,
}

impl Batch {
    fn whole(stored: u64) -> Self {
        Self {
            stored,
            refused: Vec::new(),
        }
    }
}

/// Writes each item of `items` alone with `write`, collecting the items the database
/// refuses; an outage stops the whole (nothing can be told apart then).
async fn isolate<'a, T, F, Fut>(items: &'a [T], write: F) -> Result<Batch, StoreError>
where
    F: Fn(&'a [T]) -> Fut,
    Fut: std::future::Future<Output = Result<u64, StoreError>>,
{
    let mut batch = Batch::default();
    for (i, item) in items.iter().enumerate() {
        match write(std::slice::from_ref(item)).await {
            Ok(n) => batch.stored += n,
            Err(e) if e.is_outage() => return Err(e),
            Err(e) => batch.refused.push((i, e)),
        }
    }
    Ok(batch)
}

/// How long a call waits for a connection from the pool, or for a lock held by another
/// transaction, before it fails as an outage.
pub const WAIT: Duration = Duration::from_secs(2);
/// How long a store's start waits for the migrations' lock, held by another node or test
/// bringing the same database up to date.
const MIGRATION_WAIT: Duration = Duration::from_secs(60);

/// The repositories over one connection pool.
#[derive(Clone)]
pub struct Store {
    pool: AnyPool,
    backend: Backend,
}

impl Store {
    /// Connects, creating a SQLite file and its folder when missing, and brings the schema
    /// up to date.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        sqlx::any::install_default_drivers();
        let backend = Backend::of_url(url).ok_or(StoreError::UnsupportedUrl)?;
        let url = match backend {
            Backend::Sqlite => prepare_sqlite_url(url)?,
            Backend::Postgres => url.to_owned(),
        };
        let options = AnyConnectOptions::from_str(&url)?;
        let pool = AnyPoolOptions::new()
            .max_connections(match backend {
                Backend::Sqlite => 4,
                Backend::Postgres => 16,
            })
            .acquire_timeout(WAIT)
            .after_connect(move |conn, _| {
                Box::pin(async move {
                    if backend == Backend::Sqlite {
                        // WAL lets readers proceed during a write; the busy timeout makes a
                        // second writer wait instead of failing.
                        sqlx::query("PRAGMA journal_mode = WAL")
                            .execute(&mut *conn)
                            .await?;
                        sqlx::query(&format!("PRAGMA busy_timeout = {}", WAIT.as_millis()))
                            .execute(&mut *conn)
                            .await?;
                        sqlx::query("PRAGMA foreign_keys = ON")
                            .execute(&mut *conn)
                            .await?;
                    } else {
                        // A statement waiting on a lock fails after `WAIT` rather than
                        // holding its caller (and a pooled connection) indefinitely.
                        sqlx::query(&format!("SET lock_timeout = {}", WAIT.as_millis()))
                            .execute(&mut *conn)
                            .await?;
                    }
                    Ok(())
                })
            })
            .connect_with(options)
            .await?;
        // On a connection of its own, which waits longer for a lock than a request would:
        // nodes starting together take turns under the migrations' lock (one per database),
        // and the last of them may wait for every other's turn.
        let mut conn = pool.acquire().await?;
        if backend == Backend::Postgres {
            let wait = MIGRATION_WAIT.as_millis();
            sqlx::query(&format!("SET lock_timeout = {wait}"))
                .execute(&mut *conn)
                .await?;
        }
        let migrated = match backend {
            Backend::Sqlite => sqlx::migrate!("./migrations/sqlite").run(&mut *conn).await,
            Backend::Postgres => {
                sqlx::migrate!("./migrations/postgres")
                    .run(&mut *conn)
                    .await
            }
        };
        // Not back to the pool with the longer wait.
        let _ = sqlx::Connection::close(conn.detach()).await;
        migrated?;
        Ok(Self { pool, backend })
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Whether the database answers.
    pub async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    pub async fn close(&self) {
        self.pool.close().await;
    }
}

/// Makes sure the file's folder exists and that SQLite may create the file.
fn prepare_sqlite_url(url: &str) -> Result<String, StoreError> {
    let rest = url
        .trim_start_matches("sqlite://")
        .trim_start_matches("sqlite:");
    let path = rest.split('?').next().unwrap_or_default();
    if path != ":memory:" && !path.is_empty() {
        if let Some(dir) = std::path::Path::new(path).parent() {
            if !dir.as_os_str().is_empty() {
                std::fs::create_dir_all(dir)?;
            }
        }
    }
    Ok(if url.contains("mode=") {
        url.to_owned()
    } else if url.contains('?') {
        format!("{url}&mode=rwc")
    } else {
        format!("{url}?mode=rwc")
    })
}

fn is_outage(e: &sqlx::Error) -> bool {
    use sqlx::Error as E;
    match e {
        E::Io(_) | E::Tls(_) | E::PoolTimedOut | E::PoolClosed | E::WorkerCrashed => true,
        E::Database(db) => match db.code() {
            // PostgreSQL's SQLSTATE: connection exceptions (08), the server shutting
            // down or starting (57P), a lock not granted within lock_timeout (55P03), a
            // cancelled statement (57014), too many connections (53300).
            Some(code) if code.len() == 5 => {
                code.starts_with("08")
                    || code.starts_with("57P")
                    || matches!(code.as_ref(), "55P03" | "57014" | "53300")
            }
            // SQLite's result codes, extended ones included: SQLITE_BUSY and SQLITE_LOCKED.
            Some(code) => code.parse::<u32>().is_ok_and(|c| matches!(c & 0xff, 5 | 6)),
            None => false,
        },
        _ => false,
    }
}

/// A list of columns (`"id, name"`) as columns of the table named `alias` in a query
/// (`"u.id, u.name"`).
fn columns_of(alias: &str, columns: &str) -> String {
    columns
        .split(',')
        .map(|c| format!("{alias}.{}", c.trim()))
        .collect::<Vec<_>>()
        .join(", ")
}

fn is_unique_violation(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(db) if db.is_unique_violation())
}
