//! One suite, both engines. The Redis half needs a real server (`TEST_REDIS_URL`, default
//! `redis://127.0.0.1:6379`) and fails when there is none: it never skips.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use telepathy_engine::{Engine, MemoryEngine, RedisEngine};

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
);

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
