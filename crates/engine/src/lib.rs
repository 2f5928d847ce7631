//! Cross-node coordination. Everything that more than one node must agree on goes through
//! the [`Engine`] trait: rate-limit counters now; round clock, match queues, presence and
//! room streams as the core loop grows.
//!
//! Two implementations: [`RedisEngine`] for a cluster (only this crate talks to Redis) and
//! [`MemoryEngine`] for the single embedded node. One conformance suite runs against both.

mod memory;
mod redis;

use std::time::Duration;

use async_trait::async_trait;

pub use memory::MemoryEngine;
pub use redis::RedisEngine;

/// A failure to reach or use the shared coordination store.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("redis: {0}")]
    Redis(#[from] fred::error::Error),
    #[error("unexpected reply from redis: {0}")]
    Protocol(String),
}

/// The result of counting one event against a limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    /// Whether this event is within the limit.
    pub allowed: bool,
    /// Events counted in the current window, this one included.
    pub count: u32,
    /// Time until the window ends.
    pub retry_after: Duration,
}

/// What the nodes share.
#[async_trait]
pub trait Engine: Send + Sync + 'static {
    /// A short name for logs and health answers: `memory` or `redis`.
    fn name(&self) -> &'static str;

    /// Whether the shared store answers.
    async fn ping(&self) -> Result<(), EngineError>;

    /// Counts one event under `key` in a fixed window of length `window` that starts at the
    /// key's first event. Allowed while the count is at most `limit`.
    async fn hit(&self, key: &str, limit: u32, window: Duration) -> Result<Hit, EngineError>;

    /// Forgets the counter under `key`.
    async fn clear(&self, key: &str) -> Result<(), EngineError>;
}

fn duration_ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1)
}
