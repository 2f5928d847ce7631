//! What PostgreSQL spends on a round's start: 5,000 new rooms written through
//! `record_matches` in the recorder's batches, and the CPU of the server's processes that
//! served them, read from /proc (so the server must run on this machine). Run by hand:
//!
//! ```text
//! cargo test -p telepathy-store --test record_cost -- --ignored --nocapture
//! ```
//!
//! `RECORD_COST_BATCH` sets the rooms per call (100 unless told; the recorder hands over
//! up to 500 at once, written in statements of 100).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use sqlx::Connection as _;
use telepathy_store::testing::{fresh_url, postgres_url};
use telepathy_store::{Backend, MatchSide, RoomRecord, SeedUser, Store};

const ROOMS: usize = 5_000;
const APP: &str = "tp-record-cost";
/// Clock ticks a second of /proc's utime and stime.
const CLK_TCK: u64 = 100;

/// CPU a process has used: (utime + stime in ticks, time on a CPU in ns).
fn cpu_of(pid: u32) -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command's name, which is in parentheses and may hold spaces.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    // utime and stime are fields 14 and 15 of stat, the state (field 3) being rest's first.
    let ticks = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    let schedstat = std::fs::read_to_string(format!("/proc/{pid}/schedstat")).ok()?;
    let ns = schedstat.split(' ').next()?.parse().ok()?;
    Some((ticks, ns))
}

/// Every process named `postgres` on this machine.
fn postgres_pids() -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .is_ok_and(|c| c.trim_end() == "postgres")
        })
        .collect()
}

/// The summed CPU of `pids`, those still running.
fn cpu_sum(pids: &[u32]) -> (u64, u64) {
    pids.iter()
        .filter_map(|pid| cpu_of(*pid))
        .fold((0, 0), |(t, n), (dt, dn)| (t + dt, n + dn))
}

/// The server processes serving this test's store (by its application name).
async fn our_backends(admin: &mut sqlx::AnyConnection) -> Vec<u32> {
    let pids: Vec<i32> =
        sqlx::query_scalar("SELECT pid FROM pg_stat_activity WHERE application_name = $1")
            .bind(APP)
            .fetch_all(&mut *admin)
            .await
            .unwrap();
    pids.into_iter().map(|p| p as u32).collect()
}

fn random_room_id(rng: &mut impl rand::Rng) -> String {
    (0..16)
        .map(|_| format!("{:02x}", rng.gen::<u8>()))
        .collect()
}

#[tokio::test]
#[ignore = "a measurement, run by hand"]
async fn postgres_cpu_of_recording_a_round_s_rooms() {
    let batch_size: usize = std::env::var("RECORD_COST_BATCH")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100);
    let url = format!(
        "{}&application_name={APP}",
        fresh_url(Backend::Postgres).await
    );
    let store = Store::connect(&url).await.unwrap();
    let mut admin = sqlx::AnyConnection::connect(&postgres_url()).await.unwrap();

    // Two users a room, each in one room of the round.
    let names: Vec<(String, String, String, String)> = (0..2 * ROOMS)
        .map(|i| {
            (
                format!("cost{i}"),
                format!("010{i:08}"),
                format!("닉네임{i}"),
                format!("token{i}"),
            )
        })
        .collect();
    let seeds: Vec<SeedUser<'_>> = names
        .iter()
        .map(|(username, phone, nickname, token_hash)| SeedUser {
            username,
            phone,
            nickname,
            token_hash,
        })
        .collect();
    let seeded = store
        .seed_load_users(&seeds, 1_000, 10_000_000)
        .await
        .unwrap();
    let users: Vec<(i64, String)> = seeded
        .users
        .into_iter()
        .map(|u| {
            let u = u.unwrap();
            (u.id, u.nickname.unwrap())
        })
        .collect();

    let mut rng = rand::thread_rng();
    let words = [
        "봄",
        "여름",
        "가을",
        "겨울",
        "바다",
        "노을",
        "고양이",
        "커피",
    ];
    let round_start = 1_800_000_000_000_i64;
    let make = |rng: &mut rand::rngs::ThreadRng, i: usize| RoomRecord {
        id: random_room_id(rng),
        word: words[i % words.len()].into(),
        round: 42,
        user_a: users[2 * i].0,
        user_b: users[2 * i + 1].0,
        created_at: round_start + i as i64,
        ended_at: None,
    };
    let sides = |room: &RoomRecord, i: usize| {
        [
            MatchSide {
                user_id: room.user_a,
                nickname: &users[2 * i].1,
            },
            MatchSide {
                user_id: room.user_b,
                nickname: &users[2 * i + 1].1,
            },
        ]
    };

    // A warm connection, its statements prepared, as the recorder's would be mid-evening.
    let warm: Vec<RoomRecord> = (0..batch_size).map(|i| make(&mut rng, i)).collect();
    let batch: Vec<_> = warm
        .iter()
        .enumerate()
        .map(|(i, r)| (r, sides(r, i)))
        .collect();
    store.record_matches(&batch).await.unwrap();

    let rooms: Vec<RoomRecord> = (0..ROOMS).map(|i| make(&mut rng, i)).collect();
    let ours = our_backends(&mut admin).await;
    let all = postgres_pids();
    let (ours_before, all_before) = (cpu_sum(&ours), cpu_sum(&all));
    let started = std::time::Instant::now();
    for (n, chunk) in rooms.chunks(batch_size).enumerate() {
        let batch: Vec<_> = chunk
            .iter()
            .enumerate()
            .map(|(i, r)| (r, sides(r, n * batch_size + i)))
            .collect();
        let written = store.record_matches(&batch).await.unwrap();
        assert!(written.refused.is_empty());
    }
    let wall = started.elapsed();
    let (ours_after, all_after) = (cpu_sum(&ours), cpu_sum(&all));
    let ours_later = our_backends(&mut admin).await;
    assert_eq!(
        ours, ours_later,
        "the same connections served the whole run"
    );

    let per_room_ticks = |before: (u64, u64), after: (u64, u64)| {
        (after.0 - before.0) as f64 * 1e6 / CLK_TCK as f64 / ROOMS as f64
    };
    let per_room_ns =
        |before: (u64, u64), after: (u64, u64)| (after.1 - before.1) as f64 / 1e3 / ROOMS as f64;
    println!(
        "{ROOMS} rooms in {} calls of {batch_size}, {wall:?}; PostgreSQL CPU per room: \
         this store's backends ({} of them) {:.1} µs by utime+stime, {:.1} µs by schedstat; \
         all postgres processes {:.1} µs by utime+stime, {:.1} µs by schedstat",
        ROOMS.div_ceil(batch_size),
        ours.len(),
        per_room_ticks(ours_before, ours_after),
        per_room_ns(ours_before, ours_after),
        per_room_ticks(all_before, all_after),
        per_room_ns(all_before, all_after),
    );

    // Each member sees the room once, with the other's nickname.
    let history = store.word_history(users[0].0, 10).await.unwrap();
    assert_eq!(history.len(), 2, "the warm-up's room and the round's");
    assert_eq!(history[0].partner_nickname, users[1].1);
    store.close().await;
}
