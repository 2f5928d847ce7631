//! One suite, every engine: memory, one Redis server (`TEST_REDIS_URL`, default
//! `redis://127.0.0.1:6379`) and a Redis Cluster (`TEST_REDIS_CLUSTER_URL`, default
//! `redis-cluster://127.0.0.1:7101`, which `scripts/redis-cluster` starts). A missing
//! server fails the suite: it never skips.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use std::collections::{HashMap, HashSet};

use futures_util::future::try_join_all;

use telepathy_engine::is_stream_id;
use telepathy_engine::{
    bus, ArchiveMark, ArchiveShare, Backlog, Engine, EngineError, Farewell, Gone, Inbound, Inbox,
    JoinOutcome, Kind, Member, MemoryEngine, MessageFrame, Received, RedisEngine, Room, SocketAt,
};

async fn redis() -> Arc<dyn Engine> {
    connect(&redis_url()).await
}

async fn cluster() -> Arc<dyn Engine> {
    connect(&cluster_url()).await
}

async fn connect(url: &str) -> Arc<dyn Engine> {
    connect_as(url, &format!("test:{}:", rand::random::<u64>())).await
}

/// Two nodes of one deployment: each its own engine over the same store.
async fn two(url: &str) -> [Arc<dyn Engine>; 2] {
    let prefix = format!("test:{}:", rand::random::<u64>());
    [
        connect_as(url, &prefix).await,
        connect_as(url, &prefix).await,
    ]
}

fn redis_url() -> String {
    std::env::var("TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
}

fn cluster_url() -> String {
    std::env::var("TEST_REDIS_CLUSTER_URL")
        .unwrap_or_else(|_| "redis-cluster://127.0.0.1:7101".into())
}

async fn connect_as(url: &str, prefix: &str) -> Arc<dyn Engine> {
    let engine = tokio::time::timeout(Duration::from_secs(10), RedisEngine::connect(url, prefix))
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
        mod on_cluster {
            $(#[tokio::test] async fn $name() { super::$name(super::cluster().await).await; })*
        }
    };
}

/// Tests of two nodes, each with an engine of its own (on memory, one engine twice).
macro_rules! two_nodes {
    ($($name:ident),* $(,)?) => {
        mod two_on_memory {
            $(#[tokio::test] async fn $name() {
                let engine = super::memory();
                super::$name([engine.clone(), engine]).await;
            })*
        }
        mod two_on_redis {
            $(#[tokio::test] async fn $name() { super::$name(super::two(&super::redis_url()).await).await; })*
        }
        mod two_on_cluster {
            $(#[tokio::test] async fn $name() { super::$name(super::two(&super::cluster_url()).await).await; })*
        }
    };
}

two_nodes!(notices_follow_the_partner_s_sockets_and_keep_order_with_messages);

both!(
    pings,
    counts_up_to_the_limit,
    keys_are_independent,
    window_expires,
    clear_forgets,
    concurrent_hits_count_each_once,
    refund_takes_back_one_hit,
    concurrent_refunds_take_back_each_once,
    takes_share_an_allowance_in_parts,
    concurrent_takes_never_grant_past_the_limit,
    takes_end_with_their_window,
    what_is_given_back_may_be_taken_again,
    clock_is_close_to_now,
    turns_on_air_never_overlap_nor_wait_past_the_limit,
    same_word_same_round_matches,
    matched_frames_are_the_rooms_own,
    other_words_and_rounds_do_not_match,
    users_kept_apart_are_never_matched,
    a_user_waits_in_one_queue,
    a_user_sits_in_one_room,
    cancel_takes_the_user_out,
    expired_rounds_release_their_waiters_once,
    picks_count_each_user_once_per_word_and_outlive_the_round,
    a_pair_is_seated_together_and_told_never_while_either_sits_in_a_room,
    a_pair_seated_while_one_is_matched_from_a_queue_sits_once,
    ending_a_room_frees_both_once,
    streams_keep_order_and_resume,
    only_members_of_open_rooms_send,
    archive_bookkeeping,
    archive_turns_reach_every_room,
    archive_shares_divide_the_rooms,
    events_reach_the_nodes_that_hold_their_users,
    an_inbox_that_falls_behind_says_so,
    presence_counts_users_on_live_nodes,
    a_silent_node_is_given_up_and_must_start_over,
    every_node_s_beat_tells_an_online_count_at_most_a_beat_old,
    users_gone_past_a_cutoff_are_answered_once,
    a_user_who_leaves_every_node_stops_waiting,
    an_attach_names_the_oldest_sockets_beyond_those_kept,
    hundreds_join_one_word_at_once,
    a_retried_message_is_appended_once_and_echoed_with_its_id,
    many_senders_at_once_are_delivered_whole_and_in_order,
);

/// More sockets than any test opens for one user.
const KEEP_ALL: usize = 100;

fn member(id: i64) -> Member {
    Member {
        user_id: id,
        nickname: format!("닉{id}"),
    }
}

async fn join(engine: &Arc<dyn Engine>, round: i64, word: &str, id: i64) -> JoinOutcome {
    join_apart(engine, round, word, id, &[]).await
}

async fn join_apart(
    engine: &Arc<dyn Engine>,
    round: i64,
    word: &str,
    id: i64,
    apart: &[i64],
) -> JoinOutcome {
    engine
        .join(
            round,
            word,
            &member(id),
            apart,
            &format!("room-{id}"),
            1_000,
            &format!("waiting {id}"),
        )
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

async fn refund_takes_back_one_hit(engine: Arc<dyn Engine>) {
    let w = Duration::from_secs(60);
    assert_eq!(engine.hit("r", 2, w).await.unwrap().count, 1);
    assert_eq!(engine.hit("r", 2, w).await.unwrap().count, 2);
    engine.refund("r").await.unwrap();
    let hit = engine.hit("r", 2, w).await.unwrap();
    assert!(hit.allowed, "the refunded event no longer counts");
    assert_eq!(hit.count, 2);
    engine.refund("nothing").await.unwrap();
    assert_eq!(
        engine.hit("nothing", 1, w).await.unwrap().count,
        1,
        "a refund of nothing counted stays nothing"
    );

    // A count taken back to zero ends its window: the next hit starts a fresh one.
    let short = Duration::from_millis(400);
    engine.hit("z", 1, short).await.unwrap();
    tokio::time::sleep(Duration::from_millis(250)).await;
    engine.refund("z").await.unwrap();
    let hit = engine.hit("z", 1, short).await.unwrap();
    assert_eq!(hit.count, 1);
    assert!(hit.retry_after > Duration::from_millis(250), "{hit:?}");

    // After its window ended, a refund does not reach into the next one.
    engine.hit("e", 5, short).await.unwrap();
    engine.hit("e", 5, short).await.unwrap();
    tokio::time::sleep(Duration::from_millis(550)).await;
    engine.refund("e").await.unwrap();
    assert_eq!(engine.hit("e", 5, short).await.unwrap().count, 1);
}

async fn concurrent_refunds_take_back_each_once(engine: Arc<dyn Engine>) {
    let w = Duration::from_secs(60);
    for _ in 0..60 {
        engine.hit("back", 100, w).await.unwrap();
    }
    let tasks: Vec<_> = (0..50)
        .map(|_| {
            let engine = engine.clone();
            tokio::spawn(async move { engine.refund("back").await.unwrap() })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    assert_eq!(engine.hit("back", 100, w).await.unwrap().count, 11);
}

async fn takes_share_an_allowance_in_parts(engine: Arc<dyn Engine>) {
    let w = Duration::from_secs(60);
    assert_eq!(engine.take("t", 20, 40, w).await.unwrap(), 20);
    assert_eq!(engine.take("t", 20, 40, w).await.unwrap(), 20);
    assert_eq!(engine.take("t", 20, 40, w).await.unwrap(), 0, "all taken");
    assert_eq!(engine.take("t", 1, 40, w).await.unwrap(), 0);
    assert_eq!(
        engine.take("u", 20, 40, w).await.unwrap(),
        20,
        "keys are independent"
    );
    assert_eq!(engine.take("p", 3, 5, w).await.unwrap(), 3);
    assert_eq!(
        engine.take("p", 3, 5, w).await.unwrap(),
        2,
        "what is left, at the limit"
    );
    assert_eq!(engine.take("p", 3, 5, w).await.unwrap(), 0);
    assert_eq!(
        engine.take("p", 3, 9, w).await.unwrap(),
        3,
        "refused takes counted nothing"
    );
}

async fn concurrent_takes_never_grant_past_the_limit(engine: Arc<dyn Engine>) {
    let w = Duration::from_secs(60);
    let tasks: Vec<_> = (0..60)
        .map(|_| {
            let engine = engine.clone();
            tokio::spawn(async move { engine.take("shared", 7, 100, w).await.unwrap() })
        })
        .collect();
    let mut taken = Vec::new();
    for t in tasks {
        taken.push(t.await.unwrap());
    }
    assert_eq!(taken.iter().sum::<u32>(), 100, "{taken:?}");
    assert!(taken.iter().all(|&t| t <= 7), "{taken:?}");
    assert_eq!(
        taken.iter().filter(|&&t| t != 7 && t != 0).count(),
        1,
        "one take got the rest: {taken:?}"
    );
}

async fn takes_end_with_their_window(engine: Arc<dyn Engine>) {
    let w = Duration::from_millis(300);
    assert_eq!(engine.take("tw", 2, 2, w).await.unwrap(), 2);
    assert_eq!(engine.take("tw", 2, 2, w).await.unwrap(), 0);
    tokio::time::sleep(Duration::from_millis(450)).await;
    assert_eq!(
        engine.take("tw", 2, 2, w).await.unwrap(),
        2,
        "a new window starts after the old one ends"
    );
}

async fn what_is_given_back_may_be_taken_again(engine: Arc<dyn Engine>) {
    let w = Duration::from_secs(60);
    assert_eq!(engine.take("g", 20, 40, w).await.unwrap(), 20);
    assert_eq!(engine.take("g", 20, 40, w).await.unwrap(), 20);
    engine.give_back("g", 15).await.unwrap();
    assert_eq!(engine.take("g", 20, 40, w).await.unwrap(), 15);
    assert_eq!(engine.take("g", 20, 40, w).await.unwrap(), 0);
    engine.give_back("g", 100).await.unwrap();
    assert_eq!(
        engine.take("g", 50, 40, w).await.unwrap(),
        40,
        "never more than was taken"
    );
    engine.give_back("none", 5).await.unwrap();
    assert_eq!(
        engine.take("none", 1, 1, w).await.unwrap(),
        1,
        "nothing taken, nothing given"
    );
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

async fn turns_on_air_never_overlap_nor_wait_past_the_limit(engine: Arc<dyn Engine>) {
    const NOW: i64 = 1_700_000_000_000;
    let (turn, wait) = (Duration::from_secs(5), Duration::from_secs(60));
    // Twenty at once: each its own turn, back to back, as far as a minute ahead.
    let takes = (0..20).map(|_| {
        let engine = engine.clone();
        tokio::spawn(async move { engine.take_air(NOW, turn, wait).await.unwrap() })
    });
    let mut starts = Vec::new();
    let mut refused = 0;
    for take in takes {
        match take.await.unwrap() {
            Some(start) => starts.push(start),
            None => refused += 1,
        }
    }
    starts.sort_unstable();
    let expected: Vec<i64> = (0..=12).map(|i| NOW + i * 5_000).collect();
    assert_eq!(
        starts, expected,
        "no two turns overlap; the last starts a minute ahead"
    );
    assert_eq!(refused, 7, "refused past the minute, taking nothing");
    // Ten seconds on, the next turn is still the one after the last taken.
    assert_eq!(
        engine.take_air(NOW + 10_000, turn, wait).await.unwrap(),
        Some(NOW + 65_000)
    );
    // Once the air is free, a turn starts at once.
    assert_eq!(
        engine.take_air(NOW + 80_000, turn, wait).await.unwrap(),
        Some(NOW + 80_000)
    );
    // A clock set an hour back (the demo's) finds the air free, not taken for an hour.
    assert_eq!(
        engine.take_air(NOW - 3_600_000, turn, wait).await.unwrap(),
        Some(NOW - 3_600_000)
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

/// Each member's node is told of a new room exactly as it was made, whatever the nicknames
/// hold (one engine writes the waiter's part of the event after the fact, in Lua).
async fn matched_frames_are_the_rooms_own(engine: Arc<dyn Engine>) {
    let now = 1_000_000;
    let mut n1 = node(&engine, "n1", now).await;
    let mut n2 = node(&engine, "n2", now).await;
    n1.hold(&engine, 11).await;
    n2.hold(&engine, 12).await;
    let names = [
        r#"따옴"표\\/|"nickname":"x|,11,}"#,
        "닉 %1 $& \\u0001 끝\"}\n-7",
    ];
    let mut outcomes = Vec::new();
    for (id, name) in [11, 12].into_iter().zip(names) {
        let me = Member {
            user_id: id,
            nickname: name.to_owned(),
        };
        let outcome = engine
            .join(9, "별 \"}", &me, &[], &format!("room-{id}"), now, "waiting")
            .await
            .unwrap();
        outcomes.push(outcome);
    }
    assert_eq!(outcomes[0], JoinOutcome::Waiting);
    assert_eq!(next(&mut n1).await, event(&[11], "waiting"));
    let room = matched(outcomes.remove(1));
    let got: Vec<&str> = room.members.iter().map(|m| m.nickname.as_str()).collect();
    assert_eq!(got, names, "the waiter first, each with their own nickname");
    assert_eq!(engine.room("room-12").await.unwrap(), Some(room.clone()));
    for (n, user) in [(&mut n1, 11), (&mut n2, 12)] {
        let told = next(n).await;
        assert_eq!(told.to, [user]);
        let Kind::Matched(body) = told.kind() else {
            panic!("told of the room, not {told:?}")
        };
        assert!(!body.asked, "a queue's match");
        assert_eq!(body.room(), room, "the room as it was made");
    }
    quiet(&mut n1).await;
    quiet(&mut n2).await;
}

/// A block keeps two users apart whoever joins first and whoever holds the block; a
/// waiter passed over keeps its place for the next joiner.
async fn users_kept_apart_are_never_matched(engine: Arc<dyn Engine>) {
    // 1 blocked 2: 1 waits, 2 joins (knowing it is kept apart from 1) and waits behind.
    assert_eq!(
        join_apart(&engine, 7, "봄", 1, &[2]).await,
        JoinOutcome::Waiting
    );
    assert_eq!(
        join_apart(&engine, 7, "봄", 2, &[1]).await,
        JoinOutcome::Waiting
    );
    // 3 is free: it takes the first waiter, 1; then 4 takes 2.
    let room = matched(join(&engine, 7, "봄", 3).await);
    assert_eq!(room.members, [member(1), member(3)]);
    let room = matched(join(&engine, 7, "봄", 4).await);
    assert_eq!(room.members, [member(2), member(4)]);

    // Only the waiter's list knows: 5 waits apart from 6, and 6 joins with no list.
    assert_eq!(
        join_apart(&engine, 8, "봄", 5, &[6]).await,
        JoinOutcome::Waiting
    );
    assert_eq!(join(&engine, 8, "봄", 6).await, JoinOutcome::Waiting);
    // Only the joiner's list knows: 8 waits, 9 joins apart from 8 and waits, 10 takes 8.
    assert_eq!(join(&engine, 9, "봄", 8).await, JoinOutcome::Waiting);
    assert_eq!(
        join_apart(&engine, 9, "봄", 9, &[8]).await,
        JoinOutcome::Waiting
    );
    let room = matched(join(&engine, 9, "봄", 10).await);
    assert_eq!(
        room.members,
        [member(8), member(10)],
        "the passed-over waiter kept its place"
    );
    let room = matched(join(&engine, 9, "봄", 11).await);
    assert_eq!(room.members, [member(9), member(11)]);
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
    let mut users = engine.expire_round(7, "over").await.unwrap();
    users.sort_unstable();
    assert_eq!(users, [1, 2]);
    assert!(
        engine.expire_round(7, "over").await.unwrap().is_empty(),
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

async fn picks_count_each_user_once_per_word_and_outlive_the_round(engine: Arc<dyn Engine>) {
    let words = ["봄", "여름", "가을", "겨울"];
    join(&engine, 7, "봄", 1).await;
    join(&engine, 7, "봄", 1).await;
    matched(join(&engine, 7, "봄", 2).await);
    join(&engine, 7, "여름", 3).await;
    join(&engine, 7, "가을", 3).await;
    join(&engine, 7, "봄", 1).await;
    join(&engine, 8, "봄", 4).await;
    assert_eq!(
        engine.picks(7, &words).await.unwrap(),
        [2, 1, 1, 0],
        "a second join of the same word, and a join from a room, count nothing more"
    );
    engine.expire_round(7, "over").await.unwrap();
    assert_eq!(engine.picks(7, &words).await.unwrap(), [2, 1, 1, 0]);
    assert_eq!(engine.picks(8, &words).await.unwrap(), [1, 0, 0, 0]);
    assert_eq!(engine.picks(9, &["봄"]).await.unwrap(), [0]);
}

async fn ending_a_room_frees_both_once(engine: Arc<dyn Engine>) {
    join(&engine, 7, "봄", 1).await;
    let room = matched(join(&engine, 7, "봄", 2).await);
    assert_eq!(
        engine
            .end_room(&room.id, Some(3), 5_000, &BYE)
            .await
            .unwrap(),
        None,
        "only a member may end it"
    );
    let ended = engine
        .end_room(&room.id, Some(2), 5_000, &BYE)
        .await
        .unwrap()
        .expect("this call ends it");
    assert_eq!(ended.ended_ms, Some(5_000));
    assert_eq!(ended.members, room.members);
    assert_eq!(
        engine.end_room(&room.id, None, 6_000, &BYE).await.unwrap(),
        None
    );
    assert_eq!(
        engine
            .end_room("no-such-room", None, 6_000, &BYE)
            .await
            .unwrap(),
        None
    );
    assert_eq!(engine.room_of(1).await.unwrap(), None);
    assert_eq!(engine.room_of(2).await.unwrap(), None);
    assert_eq!(
        engine.room(&room.id).await.unwrap().unwrap().ended_ms,
        Some(5_000)
    );
    assert_eq!(join(&engine, 8, "봄", 1).await, JoinOutcome::Waiting);
    matched(join(&engine, 8, "봄", 2).await);
}

/// A room of users `a` and `b`, made through the queue.
async fn room_of_two(engine: &Arc<dyn Engine>, a: i64, b: i64) -> Room {
    join(engine, 7, "봄", a).await;
    matched(join(engine, 7, "봄", b).await)
}

const BYE: Farewell<'static> = Farewell {
    frame: "bye",
    aside: None,
};

const FRAME: MessageFrame<'static> = MessageFrame {
    head: "<",
    tail: ">",
};

async fn send(engine: &Arc<dyn Engine>, room: &Room, from: i64, data: &str) -> Option<String> {
    engine.send(room, from, None, data, &FRAME).await.unwrap()
}

async fn streams_keep_order_and_resume(engine: Arc<dyn Engine>) {
    let r1 = room_of_two(&engine, 1, 2).await;
    let r2 = room_of_two(&engine, 3, 4).await;
    let mut ids = Vec::new();
    for i in 0..5 {
        ids.push(
            send(&engine, &r1, 1 + i % 2, &format!("m{i}"))
                .await
                .unwrap(),
        );
    }
    send(&engine, &r2, 3, "other room").await.unwrap();
    let r1 = r1.id.as_str();
    let all = engine.read_after(r1, None, 100).await.unwrap();
    assert_eq!(
        all.iter().map(|e| e.data.as_str()).collect::<Vec<_>>(),
        ["m0", "m1", "m2", "m3", "m4"]
    );
    assert_eq!(all.iter().map(|e| e.id.clone()).collect::<Vec<_>>(), ids);
    let rest = engine.read_after(r1, Some(&ids[1]), 100).await.unwrap();
    assert_eq!(
        rest.iter().map(|e| e.data.as_str()).collect::<Vec<_>>(),
        ["m2", "m3", "m4"]
    );
    assert_eq!(
        engine.read_after(r1, Some(&ids[1]), 2).await.unwrap().len(),
        2
    );
    assert!(engine
        .read_after(r1, Some(&ids[4]), 100)
        .await
        .unwrap()
        .is_empty());
    assert!(engine
        .read_after("nothing", None, 100)
        .await
        .unwrap()
        .is_empty());
}

async fn only_members_of_open_rooms_send(engine: Arc<dyn Engine>) {
    let room = room_of_two(&engine, 1, 2).await;
    join(&engine, 7, "봄", 3).await;
    assert_eq!(send(&engine, &room, 3, "stranger").await, None);
    let nowhere = Room {
        id: "no-such-room".into(),
        ..room.clone()
    };
    assert_eq!(send(&engine, &nowhere, 1, "nowhere").await, None);
    assert!(engine.relay(&room, 1, "typing").await.unwrap());
    assert!(!engine.relay(&room, 3, "typing").await.unwrap());
    engine.end_room(&room.id, None, 9_000, &BYE).await.unwrap();
    assert_eq!(send(&engine, &room, 1, "too late").await, None);
    assert!(!engine.relay(&room, 1, "typing").await.unwrap());
    assert!(engine
        .read_after(&room.id, None, 10)
        .await
        .unwrap()
        .is_empty());

    // A room that ends after its messages keeps them, readable, and takes no more; nor
    // once the archive has finished it and its stream is gone.
    assert!(engine.cancel_wait(3).await.unwrap());
    let room = room_of_two(&engine, 4, 5).await;
    let first = send(&engine, &room, 4, "before").await.unwrap();
    engine
        .end_room(&room.id, Some(5), 9_000, &BYE)
        .await
        .unwrap();
    assert_eq!(send(&engine, &room, 5, "after").await, None);
    let kept = engine.read_after(&room.id, None, 10).await.unwrap();
    assert_eq!(
        kept.iter()
            .map(|e| (e.id.as_str(), e.data.as_str()))
            .collect::<Vec<_>>(),
        [(first.as_str(), "before")]
    );
    let done = ArchiveMark {
        room_id: &room.id,
        upto: &first,
        done: true,
        rest_until: None,
    };
    engine.mark_archived(&[done]).await.unwrap();
    assert_eq!(send(&engine, &room, 4, "later still").await, None);
    assert!(engine
        .read_after(&room.id, None, 10)
        .await
        .unwrap()
        .is_empty());
}

async fn archive_bookkeeping(engine: Arc<dyn Engine>) {
    let room = room_of_two(&engine, 1, 2).await;
    let backlog_of = |engine: Arc<dyn Engine>, id: String, per_room: usize| async move {
        engine
            .archive_backlog(ArchiveShare::ALL, per_room, 100_000, 0)
            .await
            .unwrap()
            .into_iter()
            .find(|b| b.room_id == id)
    };
    let listed = backlog_of(engine.clone(), room.id.clone(), 10)
        .await
        .expect("a new room is listed even before its first message");
    assert!(listed.entries.is_empty());
    assert_eq!(listed.archived, None);
    assert_eq!(listed.room, Some(room.clone()));

    let first = send(&engine, &room, 1, "hello").await.unwrap();
    let second = send(&engine, &room, 2, "again").await.unwrap();
    let listed = backlog_of(engine.clone(), room.id.clone(), 1)
        .await
        .unwrap();
    let ids = |b: &Backlog| b.entries.iter().map(|e| e.id.clone()).collect::<Vec<_>>();
    assert_eq!(
        ids(&listed),
        std::slice::from_ref(&first),
        "at most `per_room` of a room"
    );
    assert_eq!(listed.entries[0].data, "hello");
    let mark = ArchiveMark {
        room_id: &room.id,
        upto: &first,
        done: false,
        rest_until: None,
    };
    engine.mark_archived(&[mark]).await.unwrap();
    assert_eq!(
        engine.archived_upto(&room.id).await.unwrap(),
        Some(first.clone())
    );
    let listed = backlog_of(engine.clone(), room.id.clone(), 10)
        .await
        .unwrap();
    assert_eq!(
        ids(&listed),
        std::slice::from_ref(&second),
        "only what is past the mark"
    );
    assert_eq!(listed.archived, Some(first));

    // A room that rests is passed by until its rest is over, its mark moved all the same.
    let rest = ArchiveMark {
        room_id: &room.id,
        upto: &second,
        done: false,
        rest_until: Some(5_000),
    };
    engine.mark_archived(&[rest]).await.unwrap();
    let listed_at = |now_ms: i64| {
        let engine = engine.clone();
        let id = room.id.clone();
        async move {
            engine
                .archive_backlog(ArchiveShare::ALL, 10, 100_000, now_ms)
                .await
                .unwrap()
                .into_iter()
                .any(|b| b.room_id == id)
        }
    };
    assert!(!listed_at(4_999).await, "a resting room is passed by");
    assert!(
        listed_at(5_000).await,
        "and listed again when its rest is over"
    );
    assert_eq!(
        engine.archived_upto(&room.id).await.unwrap(),
        Some(second.clone())
    );

    let mark = ArchiveMark {
        room_id: &room.id,
        upto: &second,
        done: true,
        rest_until: None,
    };
    engine.mark_archived(&[mark]).await.unwrap();
    assert!(backlog_of(engine.clone(), room.id.clone(), 10)
        .await
        .is_none());
    assert!(
        !listed_at(i64::MAX).await,
        "a finished room leaves its rest too"
    );
    assert!(engine
        .read_after(&room.id, None, 10)
        .await
        .unwrap()
        .is_empty());
}

/// A turn that cannot hold every room's messages leaves some for later turns, which
/// start elsewhere: no room waits forever behind busier ones.
async fn archive_turns_reach_every_room(engine: Arc<dyn Engine>) {
    let mut rooms = Vec::new();
    for k in 0..6 {
        let room = room_of_two(&engine, 10 + 2 * k, 11 + 2 * k).await;
        for i in 0..3 {
            send(&engine, &room, 10 + 2 * k, &format!("m{i}"))
                .await
                .unwrap();
        }
        rooms.push(room.id);
    }
    let mut seen = HashSet::new();
    for _ in 0..(2 * rooms.len() + 24) {
        let turn = engine
            .archive_backlog(ArchiveShare::ALL, 10, 1, 0)
            .await
            .unwrap();
        let carried: usize = turn.iter().map(|b| b.entries.len()).sum();
        assert!(carried <= 3 * 24, "a small budget holds little: {carried}");
        seen.extend(
            turn.into_iter()
                .filter(|b| !b.entries.is_empty())
                .map(|b| b.room_id),
        );
    }
    for room in &rooms {
        assert!(seen.contains(room), "room {room} never had its turn");
    }
}

/// The parts of a share divide the archive's list: a turn reads a room exactly when
/// `ArchiveShare::holds` says so, so taking the parts in turn reads every room once.
async fn archive_shares_divide_the_rooms(engine: Arc<dyn Engine>) {
    let mut rooms = Vec::new();
    for k in 0..8 {
        rooms.push(room_of_two(&engine, 200 + k, 40 + k).await.id);
    }
    for part in 0..4 {
        let share = ArchiveShare { part, parts: 4 };
        let read: HashSet<String> = engine
            .archive_backlog(share, 10, 100_000, 0)
            .await
            .unwrap()
            .into_iter()
            .map(|b| b.room_id)
            .collect();
        for room in &rooms {
            assert_eq!(
                read.contains(room),
                share.holds(room),
                "room {room} in part {part} of 4"
            );
        }
        assert!(
            rooms.iter().any(|r| read.contains(r)),
            "part {part} read none"
        );
    }
}

/// A live node instance listening for the events of the users it holds. An inbox may
/// bring events for users held elsewhere (over Redis every node hears every partition):
/// like a node's hub, `next` and `quiet` keep only what is for the users held here.
struct Node {
    name: &'static str,
    inbox: Inbox,
    holds: HashSet<i64>,
}

impl Node {
    /// A socket of `user` opens on this node.
    async fn hold(&mut self, engine: &Arc<dyn Engine>, user: i64) {
        engine
            .attach(self.name, user, user as u64, KEEP_ALL)
            .await
            .unwrap();
        self.holds.insert(user);
    }

    /// The next event for this node's users, narrowed to them.
    async fn mine(&mut self, timeout: Duration) -> Option<Inbound> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let got = tokio::time::timeout_at(deadline, self.inbox.recv())
                .await
                .ok()?;
            match got {
                Some(Received::Event(mut event)) => {
                    if event.to.is_empty() {
                        return Some(event);
                    }
                    event.to.retain(|u| self.holds.contains(u));
                    if !event.to.is_empty() {
                        return Some(event);
                    }
                }
                other => panic!("expected an event, got {other:?}"),
            }
        }
    }
}

async fn node(engine: &Arc<dyn Engine>, name: &'static str, now: i64) -> Node {
    let inbox = engine.inbox(name).await.unwrap();
    let beat = engine.heartbeat(name, now, true).await.unwrap();
    assert!(!beat.was_dropped);
    Node {
        name,
        inbox,
        holds: HashSet::new(),
    }
}

async fn next(node: &mut Node) -> Inbound {
    node.mine(Duration::from_secs(5))
        .await
        .unwrap_or_else(|| panic!("expected an event for {}", node.name))
}

/// Nothing more arrives for the node's users within a short while.
async fn quiet(node: &mut Node) {
    if let Some(got) = node.mine(Duration::from_millis(300)).await {
        panic!("expected nothing, got {got:?}");
    }
}

fn event(to: &[i64], frame: &str) -> Inbound {
    Inbound {
        to: to.to_vec(),
        frame: frame.to_owned(),
    }
}

/// What a node holding `to` of a new room's members is told of it.
fn told_of(room: &Room, asked: bool, to: &[i64]) -> Inbound {
    event(to, &bus::matched(room, asked))
}

/// A node that reads its inbox too slowly is told that it missed events (so it resyncs its
/// sockets), never handed what is left as if nothing were missing.
async fn an_inbox_that_falls_behind_says_so(engine: Arc<dyn Engine>) {
    let mut slow = node(&engine, "slow", 1_000_000).await;
    slow.hold(&engine, 1).await;
    // More than the inbox holds (65,536), sent while nobody reads.
    for _ in 0..70 {
        try_join_all((0..1_000).map(|_| engine.deliver(&[1], "x")))
            .await
            .unwrap();
    }
    engine.deliver(&[1], "last").await.unwrap();
    // Let the subscriber take in everything published.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let first = tokio::time::timeout(Duration::from_secs(5), slow.inbox.recv()).await;
    assert!(
        matches!(first, Ok(Some(Received::Gap))),
        "expected a gap, got {first:?}"
    );
    // After the gap, what is still held arrives, and new events too.
    loop {
        if next(&mut slow).await.frame == "last" {
            break;
        }
    }
    engine.deliver(&[1], "after").await.unwrap();
    assert_eq!(next(&mut slow).await, event(&[1], "after"));
}

async fn events_reach_the_nodes_that_hold_their_users(engine: Arc<dyn Engine>) {
    let now = 1_000_000;
    let mut n1 = node(&engine, "n1", now).await;
    let mut n2 = node(&engine, "n2", now).await;
    n1.hold(&engine, 1).await;
    n2.hold(&engine, 2).await;
    n2.hold(&engine, 3).await;
    n1.hold(&engine, 3).await;

    engine.deliver(&[1], "for 1").await.unwrap();
    assert_eq!(next(&mut n1).await, event(&[1], "for 1"));
    engine.deliver(&[2, 3, 9], "for 2 and 3").await.unwrap();
    // Each user once on each node that holds them (users of different partitions may
    // come in events of their own).
    let mut told = Vec::new();
    while told.len() < 2 {
        let got = next(&mut n2).await;
        assert_eq!(got.frame, "for 2 and 3");
        told.extend(got.to);
    }
    told.sort_unstable();
    assert_eq!(told, [2, 3], "once per user");
    assert_eq!(next(&mut n1).await, event(&[3], "for 2 and 3"));
    engine.broadcast("everyone").await.unwrap();
    assert_eq!(next(&mut n1).await, event(&[], "everyone"));
    assert_eq!(next(&mut n2).await, event(&[], "everyone"));

    // A chat message goes to both members, its id put between head and tail.
    join(&engine, 7, "봄", 1).await;
    assert_eq!(next(&mut n1).await, event(&[1], "waiting 1"));
    let room = matched(join(&engine, 7, "봄", 2).await);
    assert_eq!(next(&mut n1).await, told_of(&room, false, &[1]));
    assert_eq!(next(&mut n2).await, told_of(&room, false, &[2]));
    let id = send(&engine, &room, 2, "hi").await.unwrap();
    assert_eq!(next(&mut n1).await, event(&[1], &format!("<{id}>")));
    assert_eq!(next(&mut n2).await, event(&[2], &format!("<{id}>")));
    engine.relay(&room, 1, "typing").await.unwrap();
    assert_eq!(next(&mut n2).await, event(&[2], "typing"));
    quiet(&mut n1).await;

    // The step that ends a room tells its members, after its last message, one of them
    // a frame of their own.
    let last = send(&engine, &room, 1, "bye").await.unwrap();
    let farewell = Farewell {
        frame: "ended",
        aside: Some((1, "ended for 1")),
    };
    engine
        .end_room(&room.id, Some(1), now, &farewell)
        .await
        .unwrap()
        .expect("this call ends it");
    assert_eq!(next(&mut n1).await, event(&[1], &format!("<{last}>")));
    assert_eq!(next(&mut n1).await, event(&[1], "ended for 1"));
    assert_eq!(next(&mut n2).await, event(&[2], &format!("<{last}>")));
    assert_eq!(next(&mut n2).await, event(&[2], "ended"));
    // Only the call that ends it tells anyone.
    assert_eq!(
        engine
            .end_room(&room.id, None, now, &farewell)
            .await
            .unwrap(),
        None
    );
    quiet(&mut n1).await;
    quiet(&mut n2).await;

    // A waiter hears so in the same step as the join; waiters of an expired round hear
    // that where they are.
    join(&engine, 8, "여름", 3).await;
    assert_eq!(next(&mut n1).await, event(&[3], "waiting 3"));
    assert_eq!(next(&mut n2).await, event(&[3], "waiting 3"));
    engine.expire_round(8, "expired").await.unwrap();
    assert_eq!(next(&mut n1).await, event(&[3], "expired"));
    assert_eq!(next(&mut n2).await, event(&[3], "expired"));

    // A detached user gets nothing more on that node.
    engine.detach("n1", 3, 3, now).await.unwrap();
    n1.holds.remove(&3);
    engine.deliver(&[3], "after").await.unwrap();
    assert_eq!(next(&mut n2).await, event(&[3], "after"));
    quiet(&mut n1).await;
}

async fn presence_counts_users_on_live_nodes(engine: Arc<dyn Engine>) {
    let now = 1_000_000;
    let _n1 = node(&engine, "n1", now).await;
    let _n2 = node(&engine, "n2", now).await;
    for (n, u, socket) in [
        ("n1", 1, 1),
        ("n1", 2, 2),
        ("n1", 2, 3),
        ("n2", 2, 4),
        ("n2", 3, 5),
    ] {
        engine.attach(n, u, socket, KEEP_ALL).await.unwrap();
    }
    assert_eq!(
        engine.online_count().await.unwrap(),
        3,
        "users, not sockets"
    );
    engine.detach("n1", 2, 2, now).await.unwrap();
    engine.detach("n2", 2, 4, now).await.unwrap();
    assert_eq!(
        engine.online_count().await.unwrap(),
        3,
        "user 2 still has a socket on n1"
    );
    engine.detach("n1", 2, 2, now).await.unwrap();
    assert_eq!(
        engine.online_count().await.unwrap(),
        3,
        "a detach said twice counts once"
    );
    engine.attach("n1", 2, 3, KEEP_ALL).await.unwrap();
    assert_eq!(
        engine.online_count().await.unwrap(),
        3,
        "and so does an attach"
    );
    engine.detach("n1", 2, 3, now).await.unwrap();
    assert_eq!(engine.online_count().await.unwrap(), 2);
    engine.leave("n2", now).await.unwrap();
    assert_eq!(
        engine.online_count().await.unwrap(),
        1,
        "n2's user 3 went with it"
    );
    assert_eq!(
        engine
            .heartbeat("n1", now + 1_000, false)
            .await
            .unwrap()
            .online,
        1
    );
    assert!(
        matches!(
            engine.attach("n2", 4, 6, KEEP_ALL).await,
            Err(EngineError::Dropped)
        ),
        "a node that left takes no sockets"
    );
    engine.detach("n2", 3, 5, now).await.unwrap();
    assert_eq!(engine.online_count().await.unwrap(), 1, "and owes nothing");
}

/// The nodes may share one count of who is online (Redis counts it once for all of them
/// every period, shorter than a beat), so a beat may tell the count of a moment before;
/// never of more than a beat before, on any node.
async fn every_node_s_beat_tells_an_online_count_at_most_a_beat_old(engine: Arc<dyn Engine>) {
    let now = 1_000_000;
    let _n1 = node(&engine, "n1", now).await;
    let _n2 = node(&engine, "n2", now + 100).await;
    engine.attach("n1", 1, 1, KEEP_ALL).await.unwrap();
    engine.attach("n2", 2, 2, KEEP_ALL).await.unwrap();
    let beat = 2_000;
    for (n, at, online) in [("n1", now + beat, 2), ("n2", now + 100 + beat, 2)] {
        let told = engine.heartbeat(n, at, false).await.unwrap();
        assert_eq!(told.online, online, "{n}'s beat at {at}");
    }
    engine.detach("n2", 2, 2, now + 2_200).await.unwrap();
    for (n, at, online) in [
        ("n2", now + 100 + 2 * beat, 1),
        ("n1", now + 2 * beat + 200, 1),
    ] {
        let told = engine.heartbeat(n, at, false).await.unwrap();
        assert_eq!(told.online, online, "{n}'s beat at {at}");
    }
}

async fn a_silent_node_is_given_up_and_must_start_over(engine: Arc<dyn Engine>) {
    let now = 1_000_000;
    let _n1 = node(&engine, "n1", now).await;
    let _n2 = node(&engine, "n2", now).await;
    engine.attach("n1", 1, 1, KEEP_ALL).await.unwrap();
    engine.attach("n2", 2, 1, KEEP_ALL).await.unwrap();
    // n2 goes silent; n1 keeps beating.
    assert_eq!(
        engine
            .heartbeat("n1", now + 9_000, false)
            .await
            .unwrap()
            .online,
        2
    );
    let beat = engine.heartbeat("n1", now + 11_000, false).await.unwrap();
    assert_eq!(beat.online, 1, "a silent node drops out");
    assert!(!beat.was_dropped);
    let late = engine.heartbeat("n2", now + 12_000, false).await.unwrap();
    assert!(late.was_dropped, "n2 hears it was given up");
    assert!(matches!(
        engine.attach("n2", 5, 2, KEEP_ALL).await,
        Err(EngineError::Dropped)
    ));
    // It starts over under a new name.
    let _n2b = node(&engine, "n2b", now + 12_000).await;
    engine.attach("n2b", 2, 1, KEEP_ALL).await.unwrap();
    assert_eq!(engine.online_count().await.unwrap(), 2);
    // n2's users were noted away as of its last beat.
    engine.detach("n1", 1, 1, now + 13_000).await.unwrap();
    assert_eq!(engine.online_count().await.unwrap(), 1);
}

async fn users_gone_past_a_cutoff_are_answered_once(engine: Arc<dyn Engine>) {
    let now = 1_000_000;
    let _n1 = node(&engine, "n1", now).await;
    for u in [1, 2, 3] {
        engine.attach("n1", u, u as u64, KEEP_ALL).await.unwrap();
    }
    let room = room_of_two(&engine, 1, 2).await;
    engine.detach("n1", 1, 1, now + 1_000).await.unwrap();
    engine.detach("n1", 3, 3, now + 1_000).await.unwrap();
    assert!(engine.gone_before(now).await.unwrap().is_empty());
    assert_eq!(
        engine.gone_before(now + 1_000).await.unwrap(),
        [Gone {
            user_id: 1,
            room_id: room.id.clone()
        }],
        "user 3 sat in no room"
    );
    assert!(engine.gone_before(now + 5_000).await.unwrap().is_empty());
    // Away, back within the grace period: nothing to answer.
    engine.detach("n1", 2, 2, now + 2_000).await.unwrap();
    engine.attach("n1", 2, 4, KEEP_ALL).await.unwrap();
    assert!(engine.gone_before(now + 5_000).await.unwrap().is_empty());
}

async fn a_user_who_leaves_every_node_stops_waiting(engine: Arc<dyn Engine>) {
    let now = 1_000_000;
    let _n1 = node(&engine, "n1", now).await;
    engine.attach("n1", 1, 1, KEEP_ALL).await.unwrap();
    assert_eq!(join(&engine, 7, "봄", 1).await, JoinOutcome::Waiting);
    engine.detach("n1", 1, 1, now).await.unwrap();
    assert_eq!(
        join(&engine, 7, "봄", 2).await,
        JoinOutcome::Waiting,
        "nobody is paired with a user who is gone"
    );
}

async fn an_attach_names_the_oldest_sockets_beyond_those_kept(engine: Arc<dyn Engine>) {
    let _n1 = node(&engine, "n1", 1_000).await;
    let _n2 = node(&engine, "n2", 1_000).await;
    let at = |instance: &str, socket: u64| SocketAt {
        instance: instance.to_owned(),
        socket,
    };
    let attach = |instance: &'static str, socket: u64| {
        let engine = engine.clone();
        async move { engine.attach(instance, 7, socket, 2).await.unwrap() }
    };
    assert_eq!(attach("n1", 9).await, []);
    assert_eq!(attach("n2", 1).await, []);
    assert_eq!(attach("n1", 10).await, [at("n1", 9)], "by age, not by name");
    assert_eq!(
        attach("n1", 10).await,
        [at("n1", 9)],
        "said twice, it keeps its place"
    );
    assert_eq!(
        attach("n2", 2).await,
        [at("n1", 9), at("n2", 1)],
        "named until detached"
    );
    engine.detach("n1", 7, 9, 1_000).await.unwrap();
    engine.detach("n2", 7, 1, 1_000).await.unwrap();
    assert_eq!(engine.attach("n2", 8, 1, 2).await.unwrap(), [], "per user");
    engine.detach("n1", 7, 10, 1_000).await.unwrap();
    engine.detach("n2", 7, 2, 1_000).await.unwrap();
    assert_eq!(engine.online_count().await.unwrap(), 1);
    assert_eq!(attach("n2", 3).await, [], "all gone, it starts over");
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
        engine.expire_round(9, "over").await.unwrap(),
        odd_one,
        "the odd one out was left waiting"
    );
}

/// A send whose answer was lost (an outage, a dropped socket) is retried with its client id:
/// the message is appended once, the partner hears it once, and the sender is echoed the
/// first id again, even after the room ended. Client ids are the sender's own.
async fn a_retried_message_is_appended_once_and_echoed_with_its_id(engine: Arc<dyn Engine>) {
    let now = 1_000_000;
    let (mut n1, mut n2, room) = matched_on_two_nodes(&engine, &engine, now).await;
    let sent = |from: i64, cid: &'static str, data: &'static str| {
        let engine = engine.clone();
        let room = room.clone();
        async move {
            engine
                .send(&room, from, Some(cid), data, &FRAME)
                .await
                .unwrap()
        }
    };

    let id = sent(1, "c1", "first").await.unwrap();
    assert!(is_stream_id(&id), "{id}");
    assert_eq!(next(&mut n1).await, event(&[1], &format!("<{id}>")));
    assert_eq!(next(&mut n2).await, event(&[2], &format!("<{id}>")));
    // The retry: the sender alone is echoed the same id; nothing is appended.
    assert_eq!(sent(1, "c1", "first").await, Some(id.clone()));
    assert_eq!(next(&mut n1).await, event(&[1], &format!("<{id}>")));
    quiet(&mut n2).await;
    // The partner's client id is theirs: the same string is another message.
    let other = sent(2, "c1", "reply").await.unwrap();
    assert_ne!(other, id);
    assert_eq!(next(&mut n1).await, event(&[1], &format!("<{other}>")));
    assert_eq!(next(&mut n2).await, event(&[2], &format!("<{other}>")));
    let stored = engine.read_after(&room.id, None, 10).await.unwrap();
    assert_eq!(
        stored.iter().map(|e| e.data.as_str()).collect::<Vec<_>>(),
        ["first", "reply"]
    );

    // After the room ended, a retry is still told its id; a new message is refused.
    engine.end_room(&room.id, None, now, &BYE).await.unwrap();
    assert_eq!(next(&mut n1).await, event(&[1], "bye"));
    assert_eq!(next(&mut n2).await, event(&[2], "bye"));
    assert_eq!(sent(1, "c1", "first").await, Some(id.clone()));
    assert_eq!(next(&mut n1).await, event(&[1], &format!("<{id}>")));
    assert_eq!(sent(1, "c2", "late").await, None);
    // Nobody else can learn a member's ids.
    assert_eq!(sent(3, "c1", "first").await, None);
    quiet(&mut n1).await;
    quiet(&mut n2).await;
}

/// Many rooms sending at once (on Redis they share script calls): every message reaches
/// both members once, each sender's in the order sent, and each room's stream holds them
/// in that order.
async fn many_senders_at_once_are_delivered_whole_and_in_order(engine: Arc<dyn Engine>) {
    const ROOMS: i64 = 20;
    const EACH: usize = 15;
    let now = 1_000_000;
    let mut n1 = node(&engine, "n1", now).await;
    let mut n2 = node(&engine, "n2", now).await;
    let mut rooms = Vec::new();
    for k in 0..ROOMS {
        let (a, b) = (100 + 2 * k, 101 + 2 * k);
        n1.hold(&engine, a).await;
        if k % 2 == 0 {
            n1.hold(&engine, b).await;
        } else {
            n2.hold(&engine, b).await;
        }
        rooms.push((room_of_two(&engine, a, b).await, a));
    }
    let tasks: Vec<_> = rooms
        .iter()
        .cloned()
        .map(|(room, from)| {
            let engine = engine.clone();
            tokio::spawn(async move {
                let mut ids = Vec::new();
                for i in 0..EACH {
                    // Shaped as the service's (a stream id, a newline, JSON).
                    let frame = MessageFrame {
                        head: "<",
                        tail: ">\n{\"m\":\"a\\nb\"}",
                    };
                    let data = format!("{}:{i}", room.id);
                    ids.push(
                        engine
                            .send(&room, from, None, &data, &frame)
                            .await
                            .unwrap()
                            .unwrap(),
                    );
                }
                ids
            })
        })
        .collect();
    let mut sent: HashMap<String, Vec<String>> = HashMap::new();
    for ((room, _), task) in rooms.iter().zip(tasks) {
        sent.insert(room.id.clone(), task.await.unwrap());
    }
    // n1 holds every sender and half the partners; n2 the other half.
    let mut got: HashMap<i64, Vec<String>> = HashMap::new();
    let expected_n1 = ROOMS as usize * EACH + (ROOMS as usize / 2) * EACH;
    let expected_n2 = (ROOMS as usize / 2) * EACH;
    for (node, expected) in [(&mut n1, expected_n1), (&mut n2, expected_n2)] {
        let mut events = 0;
        while events < expected {
            let event = next(node).await;
            // `matched` and waiting frames of the setup come first.
            if !event.frame.starts_with('<') {
                continue;
            }
            for user in event.to {
                got.entry(user).or_default().push(event.frame.clone());
                events += 1;
            }
        }
        quiet(node).await;
    }
    for (room, from) in &rooms {
        let ids: Vec<String> = sent[&room.id]
            .iter()
            .map(|id| format!("<{id}>\n{{\"m\":\"a\\nb\"}}"))
            .collect();
        assert_eq!(got[from], ids, "the sender's own, in order");
        let partner = from + 1;
        assert_eq!(got[&partner], ids, "the partner's, in order");
        let stored = engine.read_after(&room.id, None, 100).await.unwrap();
        assert_eq!(
            stored.iter().map(|e| e.data.clone()).collect::<Vec<_>>(),
            (0..EACH)
                .map(|i| format!("{}:{i}", room.id))
                .collect::<Vec<_>>()
        );
    }
}

async fn seat_pair(engine: &Arc<dyn Engine>, a: i64, b: i64, room_id: &str) -> Option<Room> {
    engine
        .seat_pair(9, "바다", [&member(a), &member(b)], room_id, 2_000)
        .await
        .unwrap()
}

async fn a_pair_is_seated_together_and_told_never_while_either_sits_in_a_room(
    engine: Arc<dyn Engine>,
) {
    let now = 1_000_000;
    let mut n1 = node(&engine, "n1", now).await;
    let mut n2 = node(&engine, "n2", now).await;
    n1.hold(&engine, 1).await;
    n2.hold(&engine, 2).await;
    n1.hold(&engine, 3).await;
    n2.hold(&engine, 4).await;

    // Whatever either waited for ends: nobody is matched with them from their queue.
    join(&engine, 7, "봄", 1).await;
    assert_eq!(next(&mut n1).await, event(&[1], "waiting 1"));
    let room = seat_pair(&engine, 1, 2, "again-1")
        .await
        .expect("both were free");
    assert_eq!(
        (room.id.as_str(), room.word.as_str(), room.round),
        ("again-1", "바다", 9)
    );
    assert_eq!(room.members, [member(1), member(2)]);
    assert_eq!(next(&mut n1).await, told_of(&room, true, &[1]));
    assert_eq!(next(&mut n2).await, told_of(&room, true, &[2]));
    for user in [1, 2] {
        assert_eq!(engine.room_of(user).await.unwrap(), Some(room.clone()));
    }
    assert_eq!(join(&engine, 7, "봄", 3).await, JoinOutcome::Waiting);
    assert_eq!(next(&mut n1).await, event(&[3], "waiting 3"));

    // Never while either sits in a room, whichever side; the free one is left as it was.
    assert_eq!(seat_pair(&engine, 3, 2, "again-2").await, None);
    assert_eq!(seat_pair(&engine, 1, 4, "again-3").await, None);
    assert_eq!(engine.room_of(3).await.unwrap(), None);
    assert_eq!(engine.room_of(4).await.unwrap(), None);
    let waited = matched(join(&engine, 7, "봄", 4).await);
    assert_eq!(
        waited.members,
        [member(3), member(4)],
        "the one refused still waits where it waited"
    );
    assert_eq!(next(&mut n1).await, told_of(&waited, false, &[3]));
    assert_eq!(next(&mut n2).await, told_of(&waited, false, &[4]));
    quiet(&mut n1).await;
    quiet(&mut n2).await;

    // Once their room has ended, the two may be seated again.
    let farewell = Farewell {
        frame: "ended",
        aside: None,
    };
    engine
        .end_room(&room.id, Some(1), 3_000, &farewell)
        .await
        .unwrap()
        .expect("ended");
    assert!(seat_pair(&engine, 2, 1, "again-4").await.is_some());
}

async fn a_pair_seated_while_one_is_matched_from_a_queue_sits_once(engine: Arc<dyn Engine>) {
    for i in 0..30 {
        let (a, b, waiter) = (100 + 3 * i, 101 + 3 * i, 102 + 3 * i);
        let word = format!("봄{i}");
        join(&engine, 7, &word, waiter).await;
        let room_id = format!("again-{i}");
        let (seated, joined) = tokio::join!(
            seat_pair(&engine, a, b, &room_id),
            join(&engine, 7, &word, b)
        );
        let rooms = [
            engine.room_of(a).await.unwrap(),
            engine.room_of(b).await.unwrap(),
            engine.room_of(waiter).await.unwrap(),
        ];
        match (seated, joined) {
            (Some(room), JoinOutcome::AlreadyInRoom(_) | JoinOutcome::Waiting) => {
                assert_eq!(rooms[0].as_ref(), Some(&room));
                assert_eq!(rooms[1].as_ref(), Some(&room));
                assert_eq!(
                    rooms[2], None,
                    "the waiter was not matched with a seated user"
                );
            }
            (None, JoinOutcome::Matched(room)) => {
                assert_eq!(rooms[0], None, "nothing changed for the other of the pair");
                assert_eq!(rooms[1].as_ref(), Some(&room));
                assert_eq!(rooms[2].as_ref(), Some(&room));
            }
            other => panic!("round {i}: {other:?}, rooms {rooms:?}"),
        }
    }
}

/// Users 1 and 2 in a room, each told of it on a node of their own: `n1` (of engine `a`)
/// holds user 1, `n2` (of `b`) user 2.
async fn matched_on_two_nodes(
    a: &Arc<dyn Engine>,
    b: &Arc<dyn Engine>,
    now: i64,
) -> (Node, Node, Room) {
    let mut n1 = node(a, "n1", now).await;
    let mut n2 = node(b, "n2", now).await;
    n1.hold(a, 1).await;
    n2.hold(b, 2).await;
    join(a, 7, "봄", 1).await;
    assert_eq!(next(&mut n1).await, event(&[1], "waiting 1"));
    let room = matched(join(b, 7, "봄", 2).await);
    assert_eq!(next(&mut n1).await, told_of(&room, false, &[1]));
    assert_eq!(next(&mut n2).await, told_of(&room, false, &[2]));
    (n1, n2, room)
}

/// A notice (typing) goes to every socket of the partner, wherever they open one, in order
/// with the sender's messages, and nowhere once the room has ended, whichever node ends it.
async fn notices_follow_the_partner_s_sockets_and_keep_order_with_messages(
    [a, b]: [Arc<dyn Engine>; 2],
) {
    let now = 1_000_000;
    let (mut n1, mut n2, room) = matched_on_two_nodes(&a, &b, now).await;

    // Each message between two notices, none waited for before the message is sent.
    for i in 0..20 {
        let typing = a.relay(&room, 1, &format!("typing {i}"));
        let id = send(&a, &room, 1, &format!("m{i}")).await.unwrap();
        let stop = a.relay(&room, 1, &format!("stop {i}"));
        assert!(typing.await.unwrap() && stop.await.unwrap());
        assert_eq!(next(&mut n2).await, event(&[2], &format!("typing {i}")));
        assert_eq!(next(&mut n2).await, event(&[2], &format!("<{id}>")));
        assert_eq!(next(&mut n2).await, event(&[2], &format!("stop {i}")));
        assert_eq!(next(&mut n1).await, event(&[1], &format!("<{id}>")));
        if i == 0 {
            // Time for a sender's node that keeps a copy of where the partner's sockets
            // are to read it.
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    quiet(&mut n1).await;

    // The partner opens another socket on a third node: notices reach it too (a node that
    // keeps a copy of where the partner's sockets are has heard of it by now).
    let mut n3 = node(&b, "n3", now).await;
    n3.hold(&b, 2).await;
    quiet(&mut n1).await;
    assert!(a.relay(&room, 1, "typing again").await.unwrap());
    assert_eq!(next(&mut n2).await, event(&[2], "typing again"));
    assert_eq!(next(&mut n3).await, event(&[2], "typing again"));

    // The other node ends the room: a node that has heard so sends no notice.
    b.end_room(&room.id, None, now, &BYE)
        .await
        .unwrap()
        .expect("this call ends it");
    assert_eq!(next(&mut n1).await, event(&[1], "bye"));
    assert!(!a.relay(&room, 1, "too late").await.unwrap());
    assert_eq!(next(&mut n2).await, event(&[2], "bye"));
    assert_eq!(next(&mut n3).await, event(&[2], "bye"));
    quiet(&mut n2).await;
    quiet(&mut n3).await;
}
