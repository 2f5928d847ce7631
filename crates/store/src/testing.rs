//! Fresh, isolated stores for tests of this crate and the crates above it.
//!
//! PostgreSQL comes from `TEST_DATABASE_URL` (default `postgres://postgres@127.0.0.1:5432/test`):
//! each store gets a schema of its own. A missing server is a failure, never a skip.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::{Backend, Store};

static NEXT: AtomicU64 = AtomicU64::new(0);
static SWEPT: std::sync::Once = std::sync::Once::new();

fn unique_name() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default();
    format!(
        "tp_{secs}_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// The admin URL of the test PostgreSQL server.
pub fn postgres_url() -> String {
    std::env::var("TEST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_owned())
}

/// A database URL of a fresh, empty store of `backend`.
pub async fn fresh_url(backend: Backend) -> String {
    let name = unique_name();
    match backend {
        Backend::Sqlite => {
            let dir = std::env::temp_dir().join("telepathy-tests");
            let _ = std::fs::create_dir_all(&dir);
            format!("sqlite://{}", dir.join(format!("{name}.db")).display())
        }
        Backend::Postgres => {
            let admin = postgres_url();
            sqlx::any::install_default_drivers();
            let pool = sqlx::AnyPool::connect(&admin)
                .await
                .unwrap_or_else(|e| panic!("PostgreSQL at {admin} is needed by this test: {e}"));
            sweep_old_schemas(&pool).await;
            sqlx::query(&format!("CREATE SCHEMA {name}"))
                .execute(&pool)
                .await
                .unwrap_or_else(|e| panic!("create schema {name}: {e}"));
            pool.close().await;
            let sep = if admin.contains('?') { '&' } else { '?' };
            format!("{admin}{sep}options=-c%20search_path%3D{name}")
        }
    }
}

/// A fresh store of `backend`, migrated.
pub async fn fresh_store(backend: Backend) -> Store {
    let url = fresh_url(backend).await;
    Store::connect(&url)
        .await
        .unwrap_or_else(|e| panic!("connect {url}: {e}"))
}

/// Drops schemas that earlier test runs left more than an hour ago.
async fn sweep_old_schemas(pool: &sqlx::AnyPool) {
    let mut first = false;
    SWEPT.call_once(|| first = true);
    if !first {
        return;
    }
    let cutoff = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default()
        .saturating_sub(3600);
    let names: Vec<String> =
        sqlx::query_scalar("SELECT nspname::text FROM pg_namespace WHERE nspname LIKE 'tp\\_%'")
            .fetch_all(pool)
            .await
            .unwrap_or_default();
    for name in names {
        let secs = name.split('_').nth(1).and_then(|s| s.parse::<u64>().ok());
        if secs.is_some_and(|s| s < cutoff) {
            let _ = sqlx::query(&format!("DROP SCHEMA IF EXISTS {name} CASCADE"))
                .execute(pool)
                .await;
        }
    }
}

/// A write lock on the `sessions` table of the store at `url`, held by a connection of its
/// own until dropped (a long migration, a stuck transaction): new sessions wait for it.
pub struct SessionsLocked {
    _conn: sqlx::AnyConnection,
}

/// Takes the write lock of [`SessionsLocked`].
pub async fn lock_sessions(url: &str) -> SessionsLocked {
    sqlx::any::install_default_drivers();
    let backend = Backend::of_url(url).unwrap_or_else(|| panic!("not a store URL: {url}"));
    let mut conn = <sqlx::AnyConnection as sqlx::Connection>::connect(url)
        .await
        .unwrap_or_else(|e| panic!("connect {url}: {e}"));
    let statements: &[&str] = match backend {
        // Readers go on under WAL; every writer waits.
        Backend::Sqlite => &["BEGIN EXCLUSIVE"],
        Backend::Postgres => &["BEGIN", "LOCK TABLE sessions IN ACCESS EXCLUSIVE MODE"],
    };
    for sql in statements {
        sqlx::query(sql)
            .execute(&mut conn)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    SessionsLocked { _conn: conn }
}
