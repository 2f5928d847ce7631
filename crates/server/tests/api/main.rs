//! API tests: every test runs three times: on SQLite with the memory engine, on PostgreSQL
//! with one Redis server, and on PostgreSQL with a Redis Cluster.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod helpers;
#[path = "../support/ws_client.rs"]
mod ws_client;

mod admin;
mod again;
mod comments;
mod identity;
mod login;
mod misc;
mod password;
mod payments;
mod profile;
mod push;
mod realtime;
mod safety;
mod signup;
mod wordsets;

/// Runs each named `async fn(TestApp)` of the calling module on the three setups.
#[macro_export]
macro_rules! both {
    ($($name:ident),* $(,)?) => {
        mod on_sqlite {
            $(#[tokio::test] async fn $name() {
                super::$name($crate::helpers::spawn_app(telepathy_store::Backend::Sqlite).await).await;
            })*
        }
        mod on_postgres_and_redis {
            $(#[tokio::test] async fn $name() {
                super::$name($crate::helpers::spawn_app(telepathy_store::Backend::Postgres).await).await;
            })*
        }
        mod on_postgres_and_redis_cluster {
            $(#[tokio::test] async fn $name() {
                $crate::helpers::ON_CLUSTER.scope(true, async {
                    super::$name($crate::helpers::spawn_app(telepathy_store::Backend::Postgres).await).await;
                }).await;
            })*
        }
    };
}
