//! One suite, both engines. The Redis half needs a real server (`TEST_REDIS_URL`, default
//! `redis://127.0.0.1:6379`) and fails when there is none: it never skips.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use std::collections::{HashMap, HashSet};

use telepathy_engine::{Engine, JoinOutcome, Member, MemoryEngine, RedisEngine, Room};

async fn redis() -> Arc<dyn Engine> {
    let url = std::env::var("TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let prefix = format!("test:{}:", rand::random::<u64>());
    let engine = tokio::time::timeout(Duration::from_secs(10), RedisEngine::connect(&url, &prefix))
        .await
        .unwrap_or_else(|_| panic!("no Redis answered at {url} within 10 s"))
        .unwrap_or_else(|e| panic!("cannot connect to Redis at {url}: {e}"));
    Arc::new(engine)
}

fn memory() -> Arc<dyn Engine> {
    Arc::new(MemoryEngine::new())
}

macro_rules! both {
    ($($name:ident),* $(,)?) => {
        mod on_memory {
            $(#[tokio::test] async fn $name() { super::$name(super::memory()).await; })*
        }
        mod on_redis {
            $(#[tokio::test] async fn $name() { super::$name(super::redis().await).await; })*
        }
    };
}

both!(
    pings,
    counts_up_to_the_limit,
    keys_are_independent,
    window_expires,
    clear_forgets,
    concurrent_hits_count_each_once,
    clock_is_close_to_now,
    same_word_same_round_matches,
    other_words_and_rounds_do_not_match,
    a_user_waits_in_one_queue,
    a_user_sits_in_one_room,
    cancel_takes_the_user_out,
    expired_rounds_release_their_waiters_once,
    ending_a_room_frees_both_once,
    streams_keep_order_and_resume,
    archive_bookkeeping,
    the_bus_reaches_subscribers,
    presence_counts_users_on_live_nodes,
    hundreds_join_one_word_at_once,
    open_rooms_and_away_times,
);

fn member(id: i64) -> Member {
    Member {
        user_id: id,
        username: format!("user{id}"),
        nickname: format!("닉{id}"),
    }
}

async fn join(engine: &Arc<dyn Engine>, round: i64, word: &str, id: i64) -> JoinOutcome {
    engine
        .join(round, word, &member(id), &format!("room-{id}"), 1_000)
        .await
        .unwrap()
}

fn matched(outcome: JoinOutcome) -> Room {
    match outcome {
        JoinOutcome::Matched(room) => room,
        other => panic!("expected a match, got {other:?}"),
    }
}

async fn pings(engine: Arc<dyn Engine>) {
    engine.ping().await.unwrap();
}

async fn counts_up_to_the_limit(engine: Arc<dyn Engine>) {
    let w = Duration::from_secs(60);
    for expected in 1..=3 {
        let hit = engine.hit("a", 3, w).await.unwrap();
        assert!(hit.allowed, "hit {expected} is within the limit");
        assert_eq!(hit.count, expected);
        assert!(hit.retry_after <= w && hit.retry_after > Duration::from_secs(50));
    }
    let hit = engine.hit("a", 3, w).await.unwrap();
    assert!(!hit.allowed);
    assert_eq!(hit.count, 4);
}

async fn keys_are_independent(engine: Arc<dyn Engine>) {
    let w = Duration::from_secs(60);
    assert!(engine.hit("x", 1, w).await.unwrap().allowed);
    assert!(!engine.hit("x", 1, w).await.unwrap().allowed);
    assert!(engine.hit("y", 1, w).await.unwrap().allowed);
}

async fn window_expires(engine: Arc<dyn Engine>) {
    let w = Duration::from_millis(300);
    assert!(engine.hit("w", 1, w).await.unwrap().allowed);
    assert!(!engine.hit("w", 1, w).await.unwrap().allowed);
    tokio::time::sleep(Duration::from_millis(450)).await;
    let hit = engine.hit("w", 1, w).await.unwrap();
    assert!(hit.allowed, "a new window starts after the old one ends");
    assert_eq!(hit.count, 1);
}

async fn clear_forgets(engine: Arc<dyn Engine>) {
    let w = Duration::from_secs(60);
    engine.hit("c", 1, w).await.unwrap();
    engine.clear("c").await.unwrap();
    assert_eq!(engine.hit("c", 1, w).await.unwrap().count, 1);
}

async fn concurrent_hits_count_each_once(engine: Arc<dyn Engine>) {
    let w = Duration::from_secs(60);
    let tasks: Vec<_> = (0..200)
        .map(|_| {
            let engine = engine.clone();
            tokio::spawn(async move { engine.hit("many", 50, w).await.unwrap() })
        })
        .collect();
    let mut allowed = 0;
    let mut counts = Vec::new();
    for t in tasks {
        let hit = t.await.unwrap();
        allowed += usize::from(hit.allowed);
        counts.push(hit.count);
    }
    counts.sort_unstable();
    assert_eq!(
        counts,
        (1..=200).collect::<Vec<u32>>(),
        "every hit got its own count"
    );
    assert_eq!(allowed, 50);
}

async fn clock_is_close_to_now(engine: Arc<dyn Engine>) {
    let local = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let shared = engine.now_ms().await.unwrap();
    assert!(
        (shared - local).abs() < 2_000,
        "shared {shared} vs local {local}"
    );
}

async fn same_word_same_round_matches(engine: Arc<dyn Engine>) {
    assert_eq!(join(&engine, 7, "봄", 1).await, JoinOutcome::Waiting);
    let room = matched(join(&engine, 7, "봄", 2).await);
    assert_eq!(room.id, "room-2");
    assert_eq!((room.word.as_str(), room.round), ("봄", 7));
    assert_eq!(room.members, [member(1), member(2)], "the waiter first");
    assert_eq!(room.partner_of(1), Some(&member(2)));
    assert_eq!(room.ended_ms, None);
    assert_eq!(engine.room_of(1).await.unwrap(), Some(room.clone()));
    assert_eq!(engine.room_of(2).await.unwrap(), Some(room.clone()));
    assert_eq!(engine.room("room-2").await.unwrap(), Some(room));
    assert_eq!(
        join(&engine, 7, "봄", 3).await,
        JoinOutcome::Waiting,
        "the third waits for a fourth"
    );
    matched(join(&engine, 7, "봄", 4).await);
}

async fn other_words_and_rounds_do_not_match(engine: Arc<dyn Engine>) {
    assert_eq!(join(&engine, 7, "봄", 1).await, JoinOutcome::Waiting);
    assert_eq!(join(&engine, 7, "여름", 2).await, JoinOutcome::Waiting);
    assert_eq!(join(&engine, 8, "봄", 3).await, JoinOutcome::Waiting);
    assert_eq!(engine.room_of(1).await.unwrap(), None);
}

async fn a_user_waits_in_one_queue(engine: Arc<dyn Engine>) {
    assert_eq!(join(&engine, 7, "봄", 1).await, JoinOutcome::Waiting);
    assert_eq!(
        join(&engine, 7, "봄", 1).await,
        JoinOutcome::Waiting,
        "joining twice is harmless"
    );
    assert_eq!(
        join(&engine, 7, "여름", 1).await,
        JoinOutcome::Waiting,
        "a new word moves the wait"
    );
    assert_eq!(
        join(&engine, 7, "봄", 2).await,
        JoinOutcome::Waiting,
        "nobody is left on the old word"
    );
    let room = matched(join(&engine, 7, "여름", 3).await);
    assert_eq!(room.members, [member(1), member(3)]);
}

async fn a_user_sits_in_one_room(engine: Arc<dyn Engine>) {
    join(&engine, 7, "봄", 1).await;
    let room = matched(join(&engine, 7, "봄", 2).await);
    assert_eq!(
        join(&engine, 7, "여름", 1).await,
        JoinOutcome::AlreadyInRoom(room.id.clone())
    );
    assert_eq!(
        join(&engine, 8, "봄", 2).await,
        JoinOutcome::AlreadyInRoom(room.id)
    );
}

async fn cancel_takes_the_user_out(engine: Arc<dyn Engine>) {
    join(&engine, 7, "봄", 1).await;
    assert!(engine.cancel_wait(1).await.unwrap());
    assert!(!engine.cancel_wait(1).await.unwrap());
    assert_eq!(join(&engine, 7, "봄", 2).await, JoinOutcome::Waiting);
}

async fn expired_rounds_release_their_waiters_once(engine: Arc<dyn Engine>) {
    join(&engine, 7, "봄", 1).await;
    join(&engine, 7, "여름", 2).await;
    join(&engine, 8, "봄", 3).await;
    let mut users = engine.expire_round(7).await.unwrap();
    users.sort_unstable();
    assert_eq!(users, [1, 2]);
    assert!(
        engine.expire_round(7).await.unwrap().is_empty(),
        "one node gets them"
    );
    assert_eq!(
        join(&engine, 7, "봄", 4).await,
        JoinOutcome::Waiting,
        "nobody waits on round 7"
    );
    let room = matched(join(&engine, 8, "봄", 1).await);
    assert_eq!(room.members, [member(3), member(1)]);
}

async fn ending_a_room_frees_both_once(engine: Arc<dyn Engine>) {
    join(&engine, 7, "봄", 1).await;
    let room = matched(join(&engine, 7, "봄", 2).await);
    let ended = engine
        .end_room(&room.id, 5_000)
        .await
        .unwrap()
        .expect("this call ends it");
    assert_eq!(ended.ended_ms, Some(5_000));
    assert_eq!(engine.end_room(&room.id, 6_000).await.unwrap(), None);
    assert_eq!(engine.end_room("no-such-room", 6_000).await.unwrap(), None);
    assert_eq!(engine.room_of(1).await.unwrap(), None);
    assert_eq!(engine.room_of(2).await.unwrap(), None);
    assert_eq!(
        engine.room(&room.id).await.unwrap().unwrap().ended_ms,
        Some(5_000)
    );
    assert_eq!(join(&engine, 8, "봄", 1).await, JoinOutcome::Waiting);
    matched(join(&engine, 8, "봄", 2).await);
}

async fn streams_keep_order_and_resume(engine: Arc<dyn Engine>) {
    let mut ids = Vec::new();
    for i in 0..5 {
        ids.push(engine.append("r1", &format!("m{i}")).await.unwrap());
    }
    engine.append("r2", "other room").await.unwrap();
    let all = engine.read_after("r1", None, 100).await.unwrap();
    assert_eq!(
        all.iter().map(|e| e.data.as_str()).collect::<Vec<_>>(),
        ["m0", "m1", "m2", "m3", "m4"]
    );
    assert_eq!(all.iter().map(|e| e.id.clone()).collect::<Vec<_>>(), ids);
    let rest = engine.read_after("r1", Some(&ids[1]), 100).await.unwrap();
    assert_eq!(
        rest.iter().map(|e| e.data.as_str()).collect::<Vec<_>>(),
        ["m2", "m3", "m4"]
    );
    assert_eq!(
        engine
            .read_after("r1", Some(&ids[1]), 2)
            .await
            .unwrap()
            .len(),
        2
    );
    assert!(engine
        .read_after("r1", Some(&ids[4]), 100)
        .await
        .unwrap()
        .is_empty());
    assert!(engine
        .read_after("nothing", None, 100)
        .await
        .unwrap()
        .is_empty());
}

async fn archive_bookkeeping(engine: Arc<dyn Engine>) {
    let id = engine.append("r1", "hello").await.unwrap();
    assert!(engine
        .rooms_to_archive()
        .await
        .unwrap()
        .contains(&"r1".to_owned()));
    assert_eq!(engine.archived_upto("r1").await.unwrap(), None);
    engine.set_archived("r1", &id, false).await.unwrap();
    assert_eq!(engine.archived_upto("r1").await.unwrap(), Some(id.clone()));
    engine.set_archived("r1", &id, true).await.unwrap();
    assert!(!engine
        .rooms_to_archive()
        .await
        .unwrap()
        .contains(&"r1".to_owned()));
    assert!(engine.read_after("r1", None, 10).await.unwrap().is_empty());
}

async fn the_bus_reaches_subscribers(engine: Arc<dyn Engine>) {
    let mut rx = engine.subscribe();
    engine.publish("{\"hello\":1}").await.unwrap();
    let got = tokio::time::timeout(Duration::from_secs(5), rx.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(got, "{\"hello\":1}");
}

async fn presence_counts_users_on_live_nodes(engine: Arc<dyn Engine>) {
    let now = 1_000_000;
    engine.beat("n1", &[1, 2], now).await.unwrap();
    engine.beat("n2", &[2, 3], now).await.unwrap();
    assert_eq!(
        engine.online_count(now).await.unwrap(),
        3,
        "users, not sockets"
    );
    assert!(engine.is_online(3, now).await.unwrap());
    assert!(!engine.is_online(4, now).await.unwrap());
    engine.leave("n2").await.unwrap();
    assert_eq!(engine.online_count(now).await.unwrap(), 2);
    assert!(!engine.is_online(3, now).await.unwrap());
    engine.beat("n3", &[7], now).await.unwrap();
    // n1 stops beating; only n3 keeps going.
    engine.beat("n3", &[7, 8], now + 9_000).await.unwrap();
    assert_eq!(engine.online_count(now + 9_000).await.unwrap(), 4);
    assert_eq!(
        engine.online_count(now + 11_000).await.unwrap(),
        2,
        "a silent node drops out"
    );
}

async fn hundreds_join_one_word_at_once(engine: Arc<dyn Engine>) {
    let n = 301;
    let tasks: Vec<_> = (1..=n)
        .map(|id| {
            let engine = engine.clone();
            tokio::spawn(async move { (id, join(&engine, 9, "별", id).await) })
        })
        .collect();
    let mut rooms: HashMap<String, Room> = HashMap::new();
    let mut waiting = 0;
    for t in tasks {
        match t.await.unwrap() {
            (_, JoinOutcome::Waiting) => waiting += 1,
            (_, JoinOutcome::Matched(room)) => {
                assert!(rooms.insert(room.id.clone(), room).is_none());
            }
            (id, other) => panic!("user {id}: {other:?}"),
        }
    }
    assert_eq!(rooms.len(), 150);
    assert_eq!(
        waiting, 151,
        "every match was announced to its joiner; one is left waiting"
    );
    let mut seated = HashSet::new();
    for room in rooms.values() {
        for m in &room.members {
            assert!(
                seated.insert(m.user_id),
                "user {} is in two rooms",
                m.user_id
            );
            assert_eq!(
                engine.room_of(m.user_id).await.unwrap().map(|r| r.id),
                Some(room.id.clone())
            );
        }
    }
    assert_eq!(seated.len(), 300);
    let odd_one: Vec<i64> = (1..=n).filter(|id| !seated.contains(id)).collect();
    assert_eq!(odd_one.len(), 1);
    assert_eq!(
        engine.expire_round(9).await.unwrap(),
        odd_one,
        "the odd one out was left waiting"
    );
}

async fn open_rooms_and_away_times(engine: Arc<dyn Engine>) {
    join(&engine, 7, "봄", 1).await;
    let first = matched(join(&engine, 7, "봄", 2).await);
    join(&engine, 7, "여름", 3).await;
    let second = matched(join(&engine, 7, "여름", 4).await);
    let mut open: Vec<String> = engine
        .open_rooms()
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.id)
        .collect();
    open.sort();
    let mut expected = vec![first.id.clone(), second.id.clone()];
    expected.sort();
    assert_eq!(open, expected);
    engine.end_room(&first.id, 9_000).await.unwrap();
    let open: Vec<String> = engine
        .open_rooms()
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.id)
        .collect();
    assert_eq!(open, [second.id]);

    assert_eq!(engine.note_away(3, 1_000).await.unwrap(), 1_000);
    assert_eq!(
        engine.note_away(3, 5_000).await.unwrap(),
        1_000,
        "the first note wins"
    );
    engine.clear_away(3).await.unwrap();
    assert_eq!(engine.note_away(3, 6_000).await.unwrap(), 6_000);
}
