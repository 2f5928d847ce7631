//! Cross-node coordination. Everything that more than one node must agree on goes through
//! the [`Engine`] trait: the shared clock, rate-limit counters, match queues, rooms and
//! their message streams, presence, and the event bus between nodes.
//!
//! Two implementations: [`RedisEngine`] for a cluster (only this crate talks to Redis) and
//! [`MemoryEngine`] for the single embedded node. One conformance suite runs against both.

mod memory;
mod redis;

use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

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

/// A user as the partner sees them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Member {
    pub user_id: i64,
    pub username: String,
    pub nickname: String,
}

/// A private room of two users who picked the same word in the same round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Room {
    /// Unguessable: 128 random bits chosen by the node that made the match.
    pub id: String,
    pub word: String,
    pub round: i64,
    /// The one who waited first, then the one who joined.
    pub members: [Member; 2],
    pub created_ms: i64,
    /// When the room ended; `None` while it is open.
    pub ended_ms: Option<i64>,
}

impl Room {
    /// The member who is not `user_id`.
    pub fn partner_of(&self, user_id: i64) -> Option<&Member> {
        match &self.members {
            [a, b] if a.user_id == user_id => Some(b),
            [a, b] if b.user_id == user_id => Some(a),
            _ => None,
        }
    }
}

/// What a join did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JoinOutcome {
    /// Nobody was waiting on this word: the user waits now.
    Waiting,
    /// A waiting partner was taken: both are in the new room.
    Matched(Room),
    /// The user already sits in a room and cannot join.
    AlreadyInRoom(String),
}

/// One message of a room's stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamEntry {
    /// Assigned by the engine; increasing within a room (`<ms>-<seq>`).
    pub id: String,
    pub data: String,
}

/// What the nodes share.
#[async_trait]
pub trait Engine: Send + Sync + 'static {
    /// A short name for logs and health answers: `memory` or `redis`.
    fn name(&self) -> &'static str;

    /// Whether the shared store answers.
    async fn ping(&self) -> Result<(), EngineError>;

    /// The shared clock, in Unix milliseconds: every node reads the same time from it.
    async fn now_ms(&self) -> Result<i64, EngineError>;

    /// Counts one event under `key` in a fixed window of length `window` that starts at the
    /// key's first event. Allowed while the count is at most `limit`.
    async fn hit(&self, key: &str, limit: u32, window: Duration) -> Result<Hit, EngineError>;

    /// Forgets the counter under `key`.
    async fn clear(&self, key: &str) -> Result<(), EngineError>;

    /// Atomically takes a partner waiting on `(round, word)` or queues `member`. A user waits
    /// in at most one queue (joining another moves them) and sits in at most one room.
    /// `room_id` names the room if a match is made.
    async fn join(
        &self,
        round: i64,
        word: &str,
        member: &Member,
        room_id: &str,
        now_ms: i64,
    ) -> Result<JoinOutcome, EngineError>;

    /// Takes the user out of the queue they wait in; false when they waited nowhere.
    async fn cancel_wait(&self, user_id: i64) -> Result<bool, EngineError>;

    /// Ends every wait of `round` and answers who was waiting. Idempotent: of several nodes
    /// calling it, one gets the users.
    async fn expire_round(&self, round: i64) -> Result<Vec<i64>, EngineError>;

    /// The open room the user sits in.
    async fn room_of(&self, user_id: i64) -> Result<Option<Room>, EngineError>;

    /// A room by id, open or recently ended.
    async fn room(&self, room_id: &str) -> Result<Option<Room>, EngineError>;

    /// Ends an open room and frees both members. `Some(room)` only for the call that ended it.
    async fn end_room(&self, room_id: &str, now_ms: i64) -> Result<Option<Room>, EngineError>;

    /// Appends a message to the room's stream; answers its id.
    async fn append(&self, room_id: &str, data: &str) -> Result<String, EngineError>;

    /// Messages of the room after `after` (all when `None`), oldest first, at most `limit`.
    async fn read_after(
        &self,
        room_id: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<StreamEntry>, EngineError>;

    /// Every open room, for the sweeper that ends rooms whose member stayed away.
    async fn open_rooms(&self) -> Result<Vec<Room>, EngineError>;

    /// Notes that `user_id` is not connected anywhere; answers since when (the first note
    /// wins, so the time survives from one sweep, and one node, to the next).
    async fn note_away(&self, user_id: i64, now_ms: i64) -> Result<i64, EngineError>;

    /// Forgets that `user_id` was away.
    async fn clear_away(&self, user_id: i64) -> Result<(), EngineError>;

    /// Rooms with messages that may not be archived yet.
    async fn rooms_to_archive(&self) -> Result<Vec<String>, EngineError>;

    /// The last archived message id of a room.
    async fn archived_upto(&self, room_id: &str) -> Result<Option<String>, EngineError>;

    /// Records that a room is archived up to `id`; with `done`, forgets the room's stream.
    async fn set_archived(&self, room_id: &str, id: &str, done: bool) -> Result<(), EngineError>;

    /// Sends an event to every node (each delivers it to its own sockets).
    async fn publish(&self, event: &str) -> Result<(), EngineError>;

    /// Events published by any node, this one included.
    fn subscribe(&self) -> broadcast::Receiver<String>;

    /// This node's connected users, refreshed every few seconds; a node that stops beating
    /// drops out of the count within [`PRESENCE_TTL`].
    async fn beat(&self, node_id: &str, users: &[i64], now_ms: i64) -> Result<(), EngineError>;

    /// A node leaving on purpose: its users are no longer online.
    async fn leave(&self, node_id: &str) -> Result<(), EngineError>;

    /// Distinct users online across all live nodes.
    async fn online_count(&self, now_ms: i64) -> Result<u64, EngineError>;

    /// Whether the user is connected to any live node.
    async fn is_online(&self, user_id: i64, now_ms: i64) -> Result<bool, EngineError>;
}

/// How long a node's presence lasts without a beat.
pub const PRESENCE_TTL: Duration = Duration::from_secs(10);

/// Messages kept per room stream (older ones are archived by then).
pub const STREAM_MAX: usize = 2000;

fn duration_ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1)
}

fn presence_ttl_ms() -> i64 {
    i64::try_from(PRESENCE_TTL.as_millis()).unwrap_or(10_000)
}
