//! Migrations over rows written before them, on SQLite and on PostgreSQL: a store made by
//! the migrations up to one version, filled as the code of that version filled it, then
//! brought up to date by `Store::connect`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use sqlx::Connection as _;
use telepathy_store::testing::fresh_url;
use telepathy_store::{Backend, Store};

/// A fresh database at `url` migrated up to `version` (included), and a connection to it.
async fn migrated_up_to(backend: Backend, url: &str, version: u32) -> sqlx::AnyConnection {
    let folder = match backend {
        Backend::Sqlite => "sqlite",
        Backend::Postgres => "postgres",
    };
    let all = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("migrations")
        .join(folder);
    let some = std::env::temp_dir().join("telepathy-tests").join(format!(
        "migrations-{folder}-{version}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&some).unwrap();
    for entry in std::fs::read_dir(&all).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        let number: u32 = name.split('_').next().unwrap().parse().unwrap();
        if number <= version {
            std::fs::copy(&path, some.join(&name)).unwrap();
        }
    }
    sqlx::any::install_default_drivers();
    let url = match backend {
        Backend::Sqlite => format!("{url}?mode=rwc"),
        Backend::Postgres => url.to_owned(),
    };
    let mut conn = sqlx::AnyConnection::connect(&url).await.unwrap();
    let migrator = sqlx::migrate::Migrator::new(some.as_path()).await.unwrap();
    migrator.run(&mut conn).await.unwrap();
    let _ = std::fs::remove_dir_all(&some);
    conn
}

async fn run(conn: &mut sqlx::AnyConnection, sql: &str) {
    sqlx::query(sql)
        .execute(&mut *conn)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
}

/// Rooms kept each member's line in `word_history`; after 0015 the room holds both
/// nicknames and the history reads the same from it.
async fn word_history_moves_into_the_rooms(backend: Backend) {
    let url = fresh_url(backend).await;
    let mut old = migrated_up_to(backend, &url, 14).await;
    let mut ids = Vec::new();
    for (name, phone) in [("moon", "01011112222"), ("star", "01033334444")] {
        let id: i64 = sqlx::query_scalar(&format!(
            "INSERT INTO users (username, password_hash, phone, gender, birthdate, nickname,
                                nickname_set_at, status, created_at)
             VALUES ('{name}', 'h', '{phone}', '여성', '2000-01-01', '{name}-now', 1, 'active', 1)
             RETURNING id"
        ))
        .fetch_one(&mut old)
        .await
        .unwrap();
        ids.push(id);
    }
    let (a, b) = (ids[0], ids[1]);
    // r1 and r2 with both members' lines, r2 under nicknames since changed; r3 without.
    for (room, at) in [("r1", 10_000), ("r2", 20_000), ("r3", 30_000)] {
        run(
            &mut old,
            &format!(
                "INSERT INTO rooms (id, word, round, user_a, user_b, created_at)
                 VALUES ('{room}', '봄', 9, {a}, {b}, {at})"
            ),
        )
        .await;
    }
    for (room, at, na, nb) in [("r1", 10_000, "달", "별"), ("r2", 20_000, "달빛", "별빛")] {
        run(
            &mut old,
            &format!(
                "INSERT INTO word_history (user_id, room_id, word, partner_id, partner_nickname,
                                           connected_at)
                 VALUES ({a}, '{room}', '봄', {b}, '{nb}', {at}),
                        ({b}, '{room}', '봄', {a}, '{na}', {at})"
            ),
        )
        .await;
    }
    old.close().await.unwrap();

    let store = Store::connect(&url).await.unwrap();
    let lines = |user| {
        let store = store.clone();
        async move {
            store
                .word_history(user, 50)
                .await
                .unwrap()
                .into_iter()
                .map(|h| (h.room_id, h.partner_nickname, h.connected_at, h.word))
                .collect::<Vec<_>>()
        }
    };
    let line = |room: &str, nickname: &str, at: i64| {
        (room.to_owned(), nickname.to_owned(), at, "봄".to_owned())
    };
    assert_eq!(
        lines(a).await,
        [
            line("r3", "", 30_000),
            line("r2", "별빛", 20_000),
            line("r1", "별", 10_000)
        ],
        "a's lines name b as of each match; a room without lines names no one"
    );
    assert_eq!(
        lines(b).await,
        [
            line("r3", "", 30_000),
            line("r2", "달빛", 20_000),
            line("r1", "달", 10_000)
        ]
    );
    assert_eq!(store.word_history_total(a).await.unwrap(), 3);
    assert_eq!(store.word_history_total(b).await.unwrap(), 3);
    assert!(
        store
            .execute_raw_for_tests("SELECT 1 FROM word_history")
            .await
            .is_err(),
        "the history table is gone"
    );
    store.close().await;
}

#[tokio::test]
async fn word_history_moves_into_the_rooms_on_sqlite() {
    word_history_moves_into_the_rooms(Backend::Sqlite).await;
}

#[tokio::test]
async fn word_history_moves_into_the_rooms_on_postgres() {
    word_history_moves_into_the_rooms(Backend::Postgres).await;
}
