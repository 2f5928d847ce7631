//! Cross-node coordination. Everything that more than one node must agree on goes through
//! the [`Engine`] trait: the shared clock, rate-limit counters, match queues, rooms and
//! their message streams, presence, and the event bus between nodes.
//!
//! Two implementations: [`RedisEngine`] for a cluster (only this crate talks to Redis) and
//! [`MemoryEngine`] for the single embedded node. One conformance suite runs against both.

pub mod bus;
mod memory;
mod redis;

use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

pub use bus::{Inbound, Kind};
pub use memory::MemoryEngine;
pub use redis::RedisEngine;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_ids_are_two_decimal_numbers() {
        for id in [
            "0-0",
            "1700000000000-3",
            "18446744073709551615-18446744073709551615",
        ] {
            assert!(is_stream_id(id), "{id}");
        }
        for id in [
            "",
            "abc",
            "+",
            "-",
            "1-",
            "-1",
            "1-2-3",
            "1.5-0",
            " 1-0",
            "18446744073709551616-0",
            "１-0",
        ] {
            assert!(!is_stream_id(id), "{id}");
        }
    }

    #[test]
    fn archive_shares_split_hex_ids_evenly() {
        let digits = "0123456789abcdef";
        for parts in [1, 2, 4, 8, 16] {
            let mut counts = vec![0; parts as usize];
            for c in digits.chars() {
                let id = format!("0f{c}");
                let holding: Vec<u32> = (0..parts)
                    .filter(|&part| ArchiveShare { part, parts }.holds(&id))
                    .collect();
                assert_eq!(holding.len(), 1, "{id} of {parts}: {holding:?}");
                counts[holding[0] as usize] += 1;
            }
            assert!(counts.iter().all(|&n| n == 16 / parts), "{counts:?}");
        }
        assert!(ArchiveShare::ALL.holds(""));
        assert_eq!(
            ArchiveShare::of_turn(6, 4),
            ArchiveShare { part: 2, parts: 4 }
        );
    }
}

/// A failure to reach or use the shared coordination store.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("redis: {0}")]
    Redis(#[from] fred::error::Error),
    #[error("unexpected reply from redis: {0}")]
    Protocol(String),
    /// The node instance was given up for dead; it must start over as a new instance.
    #[error("this node instance was given up for dead")]
    Dropped,
}

impl EngineError {
    /// Whether the engine could not be reached in time (Redis down, restarting or
    /// swamped), as opposed to a fault of ours: the caller may try again shortly.
    pub fn is_outage(&self) -> bool {
        use fred::error::ErrorKind as K;
        match self {
            Self::Redis(e) => matches!(
                e.kind(),
                K::IO | K::Timeout | K::Canceled | K::Backpressure | K::Routing | K::Cluster
            ),
            Self::Protocol(_) | Self::Dropped => false,
        }
    }
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
    /// The only name a partner ever learns: never the login ID, so a stranger cannot aim
    /// login attempts or password-reset messages at the account.
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

/// What a room's stream holds for the archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Backlog {
    pub room_id: String,
    /// The room, `None` when the engine no longer has it.
    pub room: Option<Room>,
    /// The last message archived before, if any.
    pub archived: Option<String>,
    /// The messages after it, oldest first.
    pub entries: Vec<StreamEntry>,
}

/// Which rooms of the archive's list a turn reads: those whose id falls in `part` of
/// `parts`. Taking the parts in turn, each room is read once every `parts` turns with the
/// messages of all of them, instead of at every turn with a few: a room read costs Redis
/// the same whether it brings one message or forty.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArchiveShare {
    pub part: u32,
    pub parts: u32,
}

impl ArchiveShare {
    /// Every room.
    pub const ALL: Self = Self { part: 0, parts: 1 };

    /// The share of turn `turn` when the rooms are read in `parts` parts.
    pub fn of_turn(turn: u64, parts: u32) -> Self {
        let parts = parts.max(1);
        Self {
            part: u32::try_from(turn % u64::from(parts)).unwrap_or(0),
            parts,
        }
    }

    /// Whether the turn reads `room_id`: the value of its last character as a hex digit
    /// (room ids are hex; its code otherwise), modulo `parts`.
    pub fn holds(self, room_id: &str) -> bool {
        let Some(last) = room_id.chars().next_back() else {
            return self.part == 0;
        };
        let value = last.to_digit(16).unwrap_or(u32::from(last));
        value % self.parts.max(1) == self.part
    }
}

/// How far the archive got in a room.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArchiveMark<'a> {
    pub room_id: &'a str,
    /// The last message stored.
    pub upto: &'a str,
    /// The room is finished: it leaves the archive's list and its stream is dropped.
    pub done: bool,
    /// Nothing more can come to the room (it ended, and the turn read all it had): turns
    /// before this time pass it by, instead of reading it again for nothing while its
    /// stream is kept for members who resume late.
    pub rest_until: Option<i64>,
}

/// What a node's inbox yields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Received {
    Event(Inbound),
    /// The inbox overflowed or the bus connection dropped: events for this node may have
    /// been lost. Every socket of the node must resync (close, so its client reconnects
    /// and resumes).
    Gap,
}

/// The events addressed to one node (or to every node), in the order they were sent.
pub struct Inbox {
    kind: InboxKind,
}

enum InboxKind {
    Memory(broadcast::Receiver<Inbound>),
    Redis(Box<redis::RedisInbox>),
}

impl Inbox {
    /// The next event; `None` once the engine is gone.
    pub async fn recv(&mut self) -> Option<Received> {
        match &mut self.kind {
            InboxKind::Memory(rx) => match rx.recv().await {
                Ok(event) => Some(Received::Event(event)),
                Err(broadcast::error::RecvError::Lagged(_)) => Some(Received::Gap),
                Err(broadcast::error::RecvError::Closed) => None,
            },
            InboxKind::Redis(rx) => rx.recv().await,
        }
    }
}

/// What a node learns from its heartbeat.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Heartbeat {
    /// Distinct users connected to live nodes.
    pub online: u64,
    /// The node had been given up for dead (silent for longer than [`PRESENCE_TTL`]) and
    /// its users dropped: events for them were not routed here meanwhile, so its sockets
    /// must resync. Never true for a node's first beat.
    pub was_dropped: bool,
}

/// A socket as the engine records it: the node instance that holds it, and its number
/// there.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SocketAt {
    pub instance: String,
    pub socket: u64,
}

/// A user who left every node while sitting in a room.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gone {
    pub user_id: i64,
    pub room_id: String,
}

/// What the nodes share.
#[async_trait]
pub trait Engine: Send + Sync + 'static {
    /// A short name for logs and health answers: `memory` or `redis`.
    fn name(&self) -> &'static str;

    /// Whether the shared store answers (over Redis: and the bus is subscribed, so that
    /// the node hears events).
    async fn ping(&self) -> Result<(), EngineError>;

    /// Whether the node hears the bus now. While it does not (over Redis: the subscriber is
    /// subscribing again after a reconnection), new sockets must wait: events published
    /// meanwhile are lost to this node.
    fn bus_ready(&self) -> bool {
        true
    }

    /// Where a resume whose last id is of `last_ms` (Unix ms) starts instead, when a hole
    /// in this node's bus is recent and the id lies inside it: a socket may have been
    /// handed a message and not an older one there (a channel went deaf while others of
    /// its server were heard), so the resume starts before the hole (the client drops by
    /// id what it has twice). None otherwise (and always on one process).
    fn resume_from(&self, last_ms: i64) -> Option<i64> {
        let _ = last_ms;
        None
    }

    /// The shared clock, in Unix milliseconds: every node reads the same time from it.
    async fn now_ms(&self) -> Result<i64, EngineError>;

    /// Counts one event under `key` in a fixed window of length `window` that starts at the
    /// key's first event. Allowed while the count is at most `limit`.
    async fn hit(&self, key: &str, limit: u32, window: Duration) -> Result<Hit, EngineError>;

    /// Takes up to `amount` of what is left of `limit` under `key`, a count in a fixed
    /// window of length `window` that starts at the key's first take (like [`Engine::hit`]),
    /// and answers how much it took: `amount` while enough is left, less at the limit, 0
    /// once it is reached. For an allowance shared by the nodes in parts: each takes a part
    /// at a time and spends it without asking again, so no node ever spends more than
    /// `limit` in all, whatever they do at once.
    async fn take(
        &self,
        key: &str,
        amount: u32,
        limit: u32,
        window: Duration,
    ) -> Result<u32, EngineError>;

    /// Gives back `amount` of what was taken under `key` by [`Engine::take`] and not spent,
    /// for other nodes to take. Nothing once the window has ended.
    async fn give_back(&self, key: &str, amount: u32) -> Result<(), EngineError>;

    /// Takes back one event counted under `key` by [`Engine::hit`], for an event that did
    /// not happen after all (a refused request, a failed send). Does nothing when nothing
    /// is counted; a count taken back to zero ends its window, so the next hit starts a
    /// fresh one.
    async fn refund(&self, key: &str) -> Result<(), EngineError>;

    /// Forgets the counter under `key`.
    async fn clear(&self, key: &str) -> Result<(), EngineError>;

    /// Takes the next turn on air, `length` long, for a broadcast shown to everyone in
    /// turn: it starts at `now_ms`, or when the last turn taken ends if that is later.
    /// Answers the start, or `None` (nothing taken) when it would be more than `max_wait`
    /// after `now_ms`. Turns never overlap, whichever node takes them.
    async fn take_air(
        &self,
        now_ms: i64,
        length: Duration,
        max_wait: Duration,
    ) -> Result<Option<i64>, EngineError>;

    /// Takes a partner waiting on `(round, word)` or queues `member`. A user waits in at
    /// most one queue (joining another moves them) and sits in at most one room.
    /// `room_id` names the room if a match is made. A user who waits now is sent
    /// `waiting` in the same step; the members of a new room are told of it (a
    /// [`bus::MATCHED`] event) in the step that makes the room, so a room never exists
    /// with a member who was not told.
    /// `apart` are the users `member` must never be matched with (blocks either way): a
    /// waiter among them is passed over and keeps its place, and while `member` waits,
    /// joiners among them pass it over too.
    #[allow(clippy::too_many_arguments)]
    async fn join(
        &self,
        round: i64,
        word: &str,
        member: &Member,
        apart: &[i64],
        room_id: &str,
        now_ms: i64,
        waiting: &str,
    ) -> Result<JoinOutcome, EngineError>;

    /// How many users picked each of `words` in `round` (answered in the same order): each
    /// user whose join reached a word's queue (to wait, or to be matched at once), counted
    /// once per word. Counts are kept for a few rounds after theirs.
    async fn picks(&self, round: i64, words: &[&str]) -> Result<Vec<u64>, EngineError>;

    /// Seats `members` together in a new room of `word`, if neither sits in a room: a
    /// meeting the two asked for, not a queue's match. Whatever either waited for ends.
    /// Both are told of the room (a [`bus::MATCHED`] event, `asked`) in the step that
    /// makes the room, as in a join. `None`, and nothing changed, when either sits in a
    /// room.
    async fn seat_pair(
        &self,
        round: i64,
        word: &str,
        members: [&Member; 2],
        room_id: &str,
        now_ms: i64,
    ) -> Result<Option<Room>, EngineError>;

    /// Takes the user out of the queue they wait in; false when they waited nowhere.
    async fn cancel_wait(&self, user_id: i64) -> Result<bool, EngineError>;

    /// Ends every wait of `round` and sends `frame` to the users who were waiting, whom it
    /// answers. Idempotent: of several nodes calling it, one gets the users.
    async fn expire_round(&self, round: i64, frame: &str) -> Result<Vec<i64>, EngineError>;

    /// The open room the user sits in.
    async fn room_of(&self, user_id: i64) -> Result<Option<Room>, EngineError>;

    /// A room by id, open or recently ended.
    async fn room(&self, room_id: &str) -> Result<Option<Room>, EngineError>;

    /// Ends an open room, tells both members in the same step (`farewell`, after every
    /// message the room took), and frees them; with `member`, only if that user sits in
    /// it. `Some(room)` only for the call that ended it: no other call tells anyone.
    async fn end_room(
        &self,
        room_id: &str,
        member: Option<i64>,
        now_ms: i64,
        farewell: &Farewell<'_>,
    ) -> Result<Option<Room>, EngineError>;

    /// A chat message, in one step: if the room is open and `sender` sits in it, appends
    /// `data` to the room's stream and delivers `frame` (with `ID` replaced by the new
    /// stream id) to both members. Answers the id, or `None` when refused. `room` is the
    /// caller's record of the room (its members never change; whether it is still open,
    /// the engine says).
    ///
    /// `client_id` makes a retry safe: a message of `sender` in this room with the same
    /// client id was appended already (a send whose answer was lost, say in a Redis
    /// outage), so nothing is appended and only the sender is sent `frame` again, with the
    /// first id, even when the room has ended since.
    async fn send(
        &self,
        room: &Room,
        sender: i64,
        client_id: Option<&str>,
        data: &str,
        frame: &MessageFrame<'_>,
    ) -> Result<Option<String>, EngineError>;

    /// Tells the partner of `sender` `frame`, a notice that is not stored (typing), if the
    /// room is still open. `room` is the caller's record of the room, which vouches that
    /// `sender` sits in it (as for [`Engine::send`]). The notice is on its way when this
    /// returns, in order with the sender's messages of the room that follow; the answer
    /// says later whether it went (false: the room had ended, or `sender` is no member),
    /// and may be dropped unread.
    fn relay(&self, room: &Room, sender: i64, frame: &str) -> Relayed;

    /// Messages of the room after `after` (all when `None`), oldest first, at most `limit`.
    async fn read_after(
        &self,
        room_id: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<StreamEntry>, EngineError>;

    /// The archive's work of a turn: every room of `share` on the archive list (from its
    /// match on, until the archive finishes it) with its messages beyond the archive's
    /// mark, at most `per_room` of each, but for rooms resting past `now_ms` (see
    /// [`ArchiveMark::rest_until`]). A turn holds at most about `budget` messages: the
    /// rooms that do not fit wait for a later turn, which starts elsewhere in the list.
    async fn archive_backlog(
        &self,
        share: ArchiveShare,
        per_room: usize,
        budget: usize,
        now_ms: i64,
    ) -> Result<Vec<Backlog>, EngineError>;

    /// The last archived message id of a room.
    async fn archived_upto(&self, room_id: &str) -> Result<Option<String>, EngineError>;

    /// Moves the archive's marks; a room `done` leaves the list, and its stream goes.
    async fn mark_archived(&self, marks: &[ArchiveMark<'_>]) -> Result<(), EngineError>;

    /// Starts receiving the events addressed to node instance `instance` and those sent
    /// to every node, until the `Inbox` is dropped (a node that starts over takes another
    /// for its new instance). Call before the instance's first heartbeat.
    async fn inbox(&self, instance: &str) -> Result<Inbox, EngineError>;

    /// Sends `frame` to every socket of the users `to`, on whichever nodes hold them.
    /// Users connected nowhere get nothing (what matters is in the room streams).
    async fn deliver(&self, to: &[i64], frame: &str) -> Result<(), EngineError>;

    /// Sends `frame` to every socket of every node.
    async fn broadcast(&self, frame: &str) -> Result<(), EngineError>;

    /// A socket of `user_id`, `socket` (unique on the instance), opened on node instance
    /// `instance`: from now on events for the user are routed there too. Kept per socket,
    /// so attaches and detaches of several sockets commute, and saying one twice (after
    /// its answer was lost) changes nothing. [`EngineError::Dropped`] when the instance is
    /// not live.
    ///
    /// Answers the user's sockets beyond the newest `keep`, oldest first (in the order
    /// they were attached, on whichever instance), for the caller to close: they stay
    /// recorded until each is detached, so an attach meanwhile names them again.
    async fn attach(
        &self,
        instance: &str,
        user_id: i64,
        socket: u64,
        keep: usize,
    ) -> Result<Vec<SocketAt>, EngineError>;

    /// The socket `socket` of `user_id` on `instance` closed. With the user's last socket
    /// anywhere, the user is no longer online, stops waiting for a match, and is noted away
    /// since `now_ms` (see [`Engine::gone_before`]). Safe to say again until it is
    /// answered. Nothing for an instance given up for dead.
    async fn detach(
        &self,
        instance: &str,
        user_id: i64,
        socket: u64,
        now_ms: i64,
    ) -> Result<(), EngineError>;

    /// The node instance is alive (`first`: it starts now). Instances silent for longer
    /// than [`PRESENCE_TTL`] are given up for dead: their users are detached as of their
    /// last beat. An instance given up for dead is not revived: it hears so and must
    /// start over under a new name.
    async fn heartbeat(
        &self,
        instance: &str,
        now_ms: i64,
        first: bool,
    ) -> Result<Heartbeat, EngineError>;

    /// A node instance leaving on purpose: its users are detached at once.
    async fn leave(&self, instance: &str, now_ms: i64) -> Result<(), EngineError>;

    /// Distinct users connected to live nodes.
    async fn online_count(&self) -> Result<u64, EngineError>;

    /// Users who have been connected nowhere since before `cutoff_ms` while sitting in a
    /// room, each answered once; users away that long outside a room are forgotten.
    async fn gone_before(&self, cutoff_ms: i64) -> Result<Vec<Gone>, EngineError>;
}

/// What the members of a room are told in the step that ends it (see
/// [`Engine::end_room`]): `frame`, except that the member `aside` names, if one, is told
/// its own frame instead.
#[derive(Debug, Clone, Copy)]
pub struct Farewell<'a> {
    pub frame: &'a str,
    pub aside: Option<(i64, &'a str)>,
}

impl Farewell<'_> {
    /// The frame `user` is told.
    pub fn to(&self, user: i64) -> &str {
        match self.aside {
            Some((u, frame)) if u == user => frame,
            _ => self.frame,
        }
    }
}

/// Whether a notice went (see [`Engine::relay`]).
pub type Relayed = futures_util::future::BoxFuture<'static, Result<bool, EngineError>>;

/// A chat message frame around its stream id, which only the engine knows when it
/// appends: the delivered text is `head` + id + `tail`.
#[derive(Debug, Clone, Copy)]
pub struct MessageFrame<'a> {
    pub head: &'a str,
    pub tail: &'a str,
}

/// Whether `id` has the shape of a stream id (`<ms>-<seq>`, both decimal), as a client
/// sends back the last one it has: anything else names no position in a stream.
pub fn is_stream_id(id: &str) -> bool {
    id.split_once('-').is_some_and(|(ms, seq)| {
        let digits =
            |s: &str| !s.is_empty() && s.len() <= 20 && s.bytes().all(|b| b.is_ascii_digit());
        digits(ms) && digits(seq) && ms.parse::<u64>().is_ok() && seq.parse::<u64>().is_ok()
    })
}

/// A stream id `<ms>-<seq>` as a pair that orders like the stream.
pub fn parse_stream_id(id: &str) -> Option<(i64, u64)> {
    let (ms, seq) = id.split_once('-')?;
    Some((ms.parse().ok()?, seq.parse().ok()?))
}

/// This machine's clock, in Unix milliseconds.
fn wall_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or_default()
}

/// How long a node counts as alive after its last heartbeat.
pub const PRESENCE_TTL: Duration = Duration::from_secs(10);

/// Messages kept per room stream (older ones are archived by then).
pub const STREAM_MAX: usize = 2000;

fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

fn duration_ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1)
}

fn presence_ttl_ms() -> i64 {
    i64::try_from(PRESENCE_TTL.as_millis()).unwrap_or(10_000)
}
