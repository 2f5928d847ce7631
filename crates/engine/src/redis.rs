//! The engine over Redis: one server, or a Redis Cluster.
//!
//! **Layout.** The key space is cut into [`PARTITIONS`] partitions, each a hash tag
//! (`<prefix>{tag}`, the partition's anchor) whose slot lies in the middle of its
//! 1/[`PARTITIONS`] of the 16,384 slots, so a cluster whose masters own even slot ranges
//! owns even shares of the partitions. Every script runs in one partition (`#!lua`: a
//! cluster refuses any key outside the slot of its declared anchor). A user's records
//! (`u:`, `loc:`, and their entries in `online`, `away` and `nu:<instance>`) live in the
//! partition of the user id, beside the set of instances `live` there (an instance
//! registers in every partition at its first beat); a room's hash, stream and client ids in the partition of the
//! room id; a queue of (round, word) in the partition of `round:word`; the heartbeats of
//! the instances and the air of the megaphones in partition 0, touched every few seconds
//! and per megaphone, never per message or connect. Rate-limit counters are keyed by
//! their own name. What involves several partitions (a match, a round's expiry, a room's
//! end, an instance reaped) is a sequence of single-partition steps, each safe to repeat
//! or to stop after (see `join`).
//!
//! **Routing.** Each node instance listens on an inbox of its own in every partition,
//! `<anchor>in:<instance>` (`SSUBSCRIBE`: a message is handled by the master that owns
//! its channel and not copied to every master), and every node on partition 0's
//! `<anchor>bus`, for what is for everyone. A script publishes an event only on the
//! inboxes of the instances that hold a socket of one of its users, as
//! `"<user,user,…>\n<frame>"` naming those it holds: it finds them from the users'
//! sockets (`loc:<user>`, in the user's partition) or from a room's record of its
//! members' sockets (`room:<id>:w`, in the room's), which a socket of a seated member
//! writes when it attaches and takes back when it closes, and a match writes from the
//! members' sockets when it seats them. So adding a node adds no work to a message. Chat
//! messages are sent in batches, one script call per batch and server, whose events go out
//! together, one publish per instance, on the inboxes of the batch's first partition (see
//! `send_batches`).
//!
//! **Hearing.** A subscription can go silent without a word from fred: a master that owned
//! a channel's slot fails over or hands the slot to another master (Redis then pushes a
//! `sunsubscribe`, which fred drops). So each node publishes a probe on each of its inboxes each
//! [`PROBE_EVERY`] and checks that it hears its own; a channel that misses
//! [`PROBE_MISSES`] probes while the others are heard is a hole like a reconnection:
//! subscribed again, and every socket resumes, from before the hole for a while (a room's
//! later messages may have come on another channel; see [`Engine::resume_from`]).

mod scripts;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use fred::clients::SubscriberClient;
use fred::prelude::*;
use fred::types::config::Server;
use fred::types::scripts::Script;
use fred::types::{ConnectHandle, Message};
use futures_util::future::{join_all, try_join_all};
use tokio::sync::{broadcast, mpsc, oneshot};

use self::scripts::Scripts;
use crate::{
    decode_events, duration_ms, millis, presence_ttl_ms, wall_ms, ArchiveMark, ArchiveShare,
    Backlog, Engine, EngineError, Farewell, Gone, Heartbeat, Hit, Inbound, Inbox, InboxKind,
    JoinFrames, JoinOutcome, Member, MessageFrame, Received, Relayed, Room, SocketAt, StreamEntry,
    STREAM_MAX,
};

/// Partitions of the key space and channels of the bus. A multiple of 2, 3, 4, 6 and 8,
/// so clusters of that many masters with even slot ranges own even shares.
pub const PARTITIONS: usize = 24;
/// Events published while a node's listener is busy wait here; past this many the node
/// sees a gap and resyncs its sockets.
const INBOX_CAPACITY: usize = 1 << 16;
/// How long a call may wait for Redis (queued while it reconnects, or waiting for its
/// answer) before it fails as an outage, so that callers answer "try again" instead of
/// hanging until Redis returns.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(2);
/// Commands queued in the client beyond this fail at once (back-pressure) instead of
/// growing the queue without bound while Redis is away.
const COMMAND_QUEUE: usize = 100_000;
/// A user's record may name a room that was never made (the node making it stopped
/// between seating the pair and making the room): after this long, such a record is
/// cleared by the next join, which finds no room.
const ROOM_MAKING: i64 = 10_000;
/// How many waiters one join may find unusable (they left, or moved on) before it gives
/// up taking and waits itself.
const TAKE_TRIES: usize = 64;
/// How often a node publishes a probe on each of its inboxes.
const PROBE_EVERY: Duration = Duration::from_secs(1);
/// Probes published on a channel in a row and not heard back, while later ones were heard
/// on other channels, before the node takes the channel as deaf.
const PROBE_MISSES: usize = 3;
/// How far a master's clock (a stream id's time) may be behind a node's: a hole's floor
/// lies this much before the last probe heard.
const CLOCK_SLACK_MS: i64 = 1_000;
/// How long resumes start at a hole's floor: the sockets closed for it come back within
/// seconds, a client that could not (a phone asleep) within minutes.
const FLOOR_KEEP: Duration = Duration::from_secs(600);
/// Starts a probe on the bus (`~<engine>:<partition>:<seq>`); events start with a user id
/// or a newline.
const PROBE: char = '~';

/// The keys of a deployment: its prefix and the partitions' anchors.
struct Layout {
    anchors: Vec<String>,
    /// The channel of what is for every node (partition 0's).
    everyone: String,
}

impl Layout {
    fn new(prefix: &str) -> Result<Self, EngineError> {
        if prefix.contains(['{', '}']) {
            return Err(EngineError::Protocol(format!(
                "the key prefix {prefix:?} must not hold braces: they would name the hash slot"
            )));
        }
        let anchors: Vec<String> = (0..PARTITIONS)
            .map(|i| format!("{prefix}{{{}}}", tag(i)))
            .collect();
        let everyone = format!("{}bus", anchors[0]);
        Ok(Self { anchors, everyone })
    }

    /// The inboxes of node instance `instance`, one per partition.
    fn inboxes(&self, instance: &str) -> Vec<String> {
        self.anchors
            .iter()
            .map(|a| format!("{a}in:{instance}"))
            .collect()
    }

    fn anchor(&self, partition: usize) -> &str {
        &self.anchors[partition % PARTITIONS]
    }

    fn user(&self, user_id: i64) -> &str {
        self.anchor(user_partition(user_id))
    }

    fn of(&self, name: &str) -> &str {
        self.anchor(partition_of(name))
    }
}

/// The hash tag of partition `i`: the first of `i.0`, `i.1`, … whose slot lies in the
/// middle half of the partition's share of the slots.
fn tag(i: usize) -> String {
    const SLOTS: usize = 16_384;
    let low = (4 * i + 1) * SLOTS / (4 * PARTITIONS);
    let high = (4 * i + 3) * SLOTS / (4 * PARTITIONS);
    (0u32..)
        .map(|k| format!("{i}.{k}"))
        .find(|t| (low..high).contains(&usize::from(fred::util::redis_keyslot(t.as_bytes()))))
        .unwrap_or_else(|| i.to_string())
}

fn user_partition(user_id: i64) -> usize {
    usize::try_from(user_id.rem_euclid(PARTITIONS as i64)).unwrap_or(0)
}

/// The partition of a room or a queue, by its name.
fn partition_of(name: &str) -> usize {
    usize::from(fred::util::redis_keyslot(name.as_bytes())) % PARTITIONS
}

/// A node's inbox over Redis sharded pub/sub: fred hands every message of the
/// subscriber's channels (the instance's inboxes and the channel for everyone) to a
/// broadcast channel; a lagging reader or a reconnection is a gap.
pub(crate) struct RedisInbox {
    messages: broadcast::Receiver<Message>,
    /// Told when the subscriber reconnected: a hole begins (what was published while it
    /// was away is lost), and lasts until it has subscribed again (`resubscribed`).
    reconnects: broadcast::Receiver<Server>,
    /// Told when a channel was found deaf: a hole begins as with a reconnection.
    deafened: broadcast::Receiver<()>,
    resubscribed: broadcast::Receiver<()>,
    /// Where the probes this inbox hears are noted.
    probes: Arc<Probes>,
    bus: Bus,
    instance: String,
    /// How the inbox channels of this instance end (another instance's events may come
    /// on the same subscriber: they are not for this inbox).
    mine: String,
    /// Reconnections not yet followed by a new subscription: while any, every event is
    /// dropped (the node's sockets were closed, and new ones are refused).
    holes: usize,
    /// Events read from a message on the bus and not yet handed out.
    pending: std::collections::VecDeque<Inbound>,
}

impl RedisInbox {
    pub(crate) async fn recv(&mut self) -> Option<Received> {
        loop {
            tokio::select! {
                // The hole's edges before any event: no socket may be handed an event from
                // after a hole before it is told of the hole (its last id would pass over
                // what it missed). A hole is a gap where it begins (every socket resumes)
                // and where it ends (those that slipped in between resume again).
                biased;
                next = self.reconnects.recv() => match next {
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {
                        self.probes.hole(0..PARTITIONS);
                        self.holes += 1;
                        self.pending.clear();
                        return Some(Received::Gap);
                    }
                    Err(broadcast::error::RecvError::Closed) => return None,
                },
                next = self.deafened.recv() => match next {
                    Ok(()) | Err(broadcast::error::RecvError::Lagged(_)) => {
                        self.holes += 1;
                        self.pending.clear();
                        return Some(Received::Gap);
                    }
                    Err(broadcast::error::RecvError::Closed) => return None,
                },
                next = self.resubscribed.recv() => match next {
                    Ok(()) | Err(broadcast::error::RecvError::Lagged(_)) => {
                        self.probes.hole_ends();
                        self.holes = self.holes.saturating_sub(1);
                        return Some(Received::Gap);
                    }
                    Err(broadcast::error::RecvError::Closed) => return None,
                },
                () = std::future::ready(()), if !self.pending.is_empty() => {
                    if let Some(event) = self.pending.pop_front() {
                        return Some(Received::Event(event));
                    }
                }
                next = self.messages.recv() => match next {
                    Ok(message) if message.value.as_bytes().is_some_and(|b| b.first() == Some(&(PROBE as u8))) => {
                        if let Some(text) = message.value.as_str() {
                            self.probes.heard(&text);
                        }
                    }
                    Ok(_) if self.holes > 0 => {}
                    Ok(message) if !message.channel.ends_with(&*self.mine) && *message.channel != *self.bus.everyone => {}
                    Ok(message) => {
                        let read = message.value.as_str().is_some_and(|text| decode_events(&text, &mut self.pending));
                        if !read {
                            tracing::warn!(channel = %message.channel, "an unreadable event on the bus");
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        self.probes.hole(0..PARTITIONS);
                        return Some(Received::Gap);
                    }
                    Err(broadcast::error::RecvError::Closed) => return None,
                },
            }
        }
    }
}

fn unix_ms() -> u64 {
    u64::try_from(wall_ms()).unwrap_or(0)
}

/// What this engine's probes of the bus have heard (see "Hearing" above), and its recent
/// holes (see [`Engine::resume_from`]).
struct Probes {
    /// This engine's mark, random: a node hears only its own probes, but an instance that
    /// starts over may still hear its predecessor's.
    mine: String,
    /// The last probe heard on each partition's channel: a probe's number is the Unix
    /// milliseconds at which it was published, so everything published on the channel
    /// before then has been heard.
    heard: Vec<AtomicU64>,
    /// When listening began: the floor of a channel never heard.
    since: u64,
    /// Inboxes alive: only a node that listens can hear its probes.
    listening: AtomicUsize,
    /// The holes of the last [`FLOOR_KEEP`], if any.
    holes: std::sync::Mutex<Option<Holes>>,
}

/// The holes in a node's bus of the last [`FLOOR_KEEP`]: what may have been missed since
/// `floor` (Unix ms), until the latest edge (when the node closed its sockets).
struct Holes {
    floor: i64,
    edge_ms: i64,
    at: std::time::Instant,
}

impl Holes {
    fn edge(floor: i64) -> Self {
        Self {
            floor,
            edge_ms: wall_ms(),
            at: std::time::Instant::now(),
        }
    }
}

impl Probes {
    fn new() -> Self {
        Self {
            mine: format!("{:016x}", rand::random::<u64>()),
            heard: (0..PARTITIONS).map(|_| AtomicU64::new(0)).collect(),
            since: unix_ms(),
            listening: AtomicUsize::new(0),
            holes: std::sync::Mutex::new(None),
        }
    }

    /// A hole begins on the channels of `partitions`: what was published on them since
    /// their last probe heard may be lost, while later messages of the same rooms may
    /// have come on other channels.
    fn hole(&self, partitions: impl IntoIterator<Item = usize>) {
        let heard = partitions
            .into_iter()
            .filter_map(|p| self.heard.get(p))
            .map(|h| match h.load(Ordering::Relaxed) {
                0 => self.since,
                at => at,
            })
            .min()
            .unwrap_or(self.since);
        let floor = i64::try_from(heard).unwrap_or(i64::MAX) - CLOCK_SLACK_MS;
        let mut holes = self.holes.lock().unwrap_or_else(|e| e.into_inner());
        let floor = match &*holes {
            Some(kept) if kept.at.elapsed() < FLOOR_KEEP => kept.floor.min(floor),
            _ => floor,
        };
        *holes = Some(Holes::edge(floor));
    }

    /// A hole's last edge: the sockets are closed once more.
    fn hole_ends(&self) {
        let mut holes = self.holes.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(kept) = holes.as_mut() {
            *kept = Holes::edge(kept.floor);
        }
    }

    /// Where a resume whose last id is of `last_ms` starts instead: a recent hole's floor,
    /// when the id lies inside the hole (a client may hold it and not an older one). An
    /// id from after the hole's last edge came to a socket opened since, whose resume
    /// started at the floor already.
    fn resume_from(&self, last_ms: i64) -> Option<i64> {
        let holes = self.holes.lock().unwrap_or_else(|e| e.into_inner());
        holes
            .as_ref()
            .filter(|h| h.at.elapsed() < FLOOR_KEEP)
            .filter(|h| h.floor < last_ms && last_ms <= h.edge_ms + CLOCK_SLACK_MS)
            .map(|h| h.floor)
    }

    fn probe(&self, partition: usize, seq: u64) -> String {
        format!("{PROBE}{}:{partition}:{seq}", self.mine)
    }

    /// Notes a probe from the bus, if it is one of ours.
    fn heard(&self, text: &str) {
        let mut parts = text[PROBE.len_utf8()..].split(':');
        if parts.next() != Some(self.mine.as_str()) {
            return;
        }
        let partition = parts.next().and_then(|p| p.parse::<usize>().ok());
        let seq = parts.next().and_then(|q| q.parse::<u64>().ok());
        if let (Some(p), Some(seq)) = (partition, seq) {
            if let Some(heard) = self.heard.get(p) {
                heard.fetch_max(seq, Ordering::Relaxed);
            }
        }
    }
}

impl Drop for RedisInbox {
    fn drop(&mut self) {
        self.probes.listening.fetch_sub(1, Ordering::Relaxed);
        let bus = self.bus.clone();
        let instance = std::mem::take(&mut self.instance);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move { bus.leave(instance).await });
        }
    }
}

/// What keeps the bus whole: the subscriber, its channels, whether it is subscribed to
/// all of them, and the signals of a hole's edges.
#[derive(Clone)]
struct Bus {
    subscriber: SubscriberClient,
    /// The channel for everyone, and the inboxes of the instances listening, latest last
    /// (a node listens for one; it starts over as another, and tests run several).
    everyone: String,
    inboxes: Arc<std::sync::RwLock<Vec<Listening>>>,
    up: Arc<AtomicBool>,
    /// One repair at a time: after a reconnection, or for deaf channels.
    repairing: Arc<tokio::sync::Mutex<()>>,
    deafened: broadcast::Sender<()>,
    resubscribed: broadcast::Sender<()>,
    probes: Arc<Probes>,
}

/// The engine of a cluster: state shared through Redis (one server or a cluster).
pub struct RedisEngine {
    client: Client,
    subscriber: SubscriberClient,
    scripts: Scripts,
    time: Script,
    layout: Layout,
    prefix: String,
    bus: Bus,
    /// Turns of the archive taken here: each starts further down the partitions' lists.
    archive_turns: AtomicUsize,
    /// Chat messages and notices on their way to Redis.
    sends: Lanes,
}

/// One chat message or notice, waiting for its batch: its partition's anchor, and its part
/// of the call's arguments (room stream key, event prefix, stored data ('' for a notice),
/// frame tail, client id key or '' (for a notice, whom it is for); see `SEND`).
struct SendJob {
    anchor: String,
    args: [String; 5],
    answer: oneshot::Sender<Result<Option<String>, EngineError>>,
}

impl SendJob {
    /// The slot of the job's partition, which picks its lane.
    fn slot(&self) -> u16 {
        fred::util::redis_keyslot(self.anchor.as_bytes())
    }
}

/// Rooms of one partition whose streams the archive reads in one pipeline: the rooms of a
/// share of a partition at a few thousand users, and a reply of at most this many times
/// the archive's messages per room when it catches up.
const ARCHIVE_CHUNK: usize = 32;

/// Chat messages and notices (typing) go to Redis in batches, one lane per Redis server (a
/// cluster's master): the first of a batch waits for others, until [`SEND_DEPTH`] wait or
/// for at most [`SEND_LINGER`], and those queued while a batch is out go in the next. A
/// batch is one script call (see `SEND` in the scripts), so Redis starts Lua once for the
/// batch and publishes its events in one message per node, which each node reads in one
/// frame. A room's messages and notices keep their order (one lane, one batch after
/// another). A master that fails stalls only its own lane. Measured: see
/// loadtest/RESULTS.md.
const SEND_BATCH: usize = 256;
/// A call costs Redis and both nodes a fixed part beside its messages' own, so what a
/// message costs hangs on how deep its batch is: sent at once, one by one, a message of
/// the plain bench shape cost a third more than in batches of about eight. A batch this
/// deep goes at once; a shallower one waits out the linger.
const SEND_DEPTH: usize = 32;
/// Long enough for a lane under load to gather a few messages, short enough that a
/// message's median wait stays about a millisecond (the timer's grain).
const SEND_LINGER: Duration = Duration::from_millis(1);

struct Lanes {
    client: Client,
    script: Script,
    state: std::sync::Mutex<LaneState>,
}

/// How long a slot keeps the lane it was given before the cluster's routing is read again:
/// reading it clones fred's whole routing table, too much for every message. Were a slot
/// to move meanwhile, its messages still reach the right master (fred routes each call by
/// its slot), only in another server's batches for that long.
const LANE_REFRESH: Duration = Duration::from_secs(1);

#[derive(Default)]
struct LaneState {
    /// The lane of each slot in use (one per partition), since `read_at`.
    by_slot: HashMap<u16, mpsc::Sender<SendJob>>,
    read_at: Option<std::time::Instant>,
    by_server: HashMap<Option<Server>, mpsc::Sender<SendJob>>,
}

impl Lanes {
    /// The lane of the server that holds `slot` (one lane on a single server), started
    /// when first needed.
    fn lane(&self, slot: u16) -> mpsc::Sender<SendJob> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.read_at.is_none_or(|at| at.elapsed() > LANE_REFRESH) {
            state.by_slot.clear();
            state.read_at = Some(std::time::Instant::now());
        }
        if let Some(lane) = state.by_slot.get(&slot) {
            return lane.clone();
        }
        let server = self
            .client
            .cached_cluster_state()
            .and_then(|routing| routing.get_server(slot).cloned());
        let lane = state
            .by_server
            .entry(server)
            .or_insert_with(|| {
                let (lane, jobs) = mpsc::channel(COMMAND_QUEUE);
                tokio::spawn(send_batches(self.client.clone(), self.script.clone(), jobs));
                lane
            })
            .clone();
        state.by_slot.insert(slot, lane.clone());
        lane
    }
}

async fn send_batches(client: Client, script: Script, mut jobs: mpsc::Receiver<SendJob>) {
    let mut batch = Vec::with_capacity(SEND_BATCH);
    while jobs.recv_many(&mut batch, SEND_BATCH).await > 0 {
        let until = tokio::time::Instant::now() + SEND_LINGER;
        while batch.len() < SEND_DEPTH {
            let room = SEND_BATCH - batch.len();
            let more = jobs.recv_many(&mut batch, room);
            if !matches!(tokio::time::timeout_at(until, more).await, Ok(n) if n > 0) {
                break;
            }
        }
        let answers = send_call(&client, &script, &batch).await;
        let mut away = Vec::new();
        for (job, answer) in batch.drain(..).zip(answers) {
            match answer {
                Ok(Some(id)) if id.is_empty() => away.push(job),
                answer => {
                    let _ = job.answer.send(answer);
                }
            }
        }
        // Keys that were not on the batch's server (a slot moved since the lanes were
        // drawn): each such message is sent again alone, routed by its own slot.
        join_all(away.into_iter().map(|job| async {
            let answer = match send_call(&client, &script, std::slice::from_ref(&job))
                .await
                .pop()
            {
                Some(Ok(Some(id))) if id.is_empty() => Err(keys_away()),
                Some(answer) => answer,
                None => Err(keys_away()),
            };
            let _ = job.answer.send(answer);
        }))
        .await;
    }
}

/// One call of the send script for `jobs` (not empty), routed by the first's slot; an
/// answer per job.
async fn send_call(
    client: &Client,
    script: &Script,
    jobs: &[SendJob],
) -> Vec<Result<Option<String>, EngineError>> {
    let mut args = Vec::with_capacity(1 + jobs.len() * 5);
    args.push(STREAM_MAX.to_string());
    for job in jobs {
        args.extend(job.args.iter().cloned());
    }
    // After a Redis restart the script is gone: loaded again, and the call made again.
    let answers: Result<Vec<Option<String>>, _> = script
        .evalsha_with_reload(client, jobs[0].anchor.clone(), args)
        .await;
    match answers {
        Ok(answers) if answers.len() == jobs.len() => answers.into_iter().map(Ok).collect(),
        Ok(answers) => {
            let e = format!("{} answers to {} chat messages", answers.len(), jobs.len());
            jobs.iter()
                .map(|_| Err(EngineError::Protocol(e.clone())))
                .collect()
        }
        Err(e) => jobs
            .iter()
            .map(|_| Err(EngineError::Redis(e.clone())))
            .collect(),
    }
}

/// The answer to a chat message or notice handed to a lane: a message waits for the batch
/// before it too, so it gets one call's time in all.
async fn answer_of(
    answered: oneshot::Receiver<Result<Option<String>, EngineError>>,
) -> Result<Option<String>, EngineError> {
    match tokio::time::timeout(CALL_TIMEOUT, answered).await {
        Ok(answer) => answer.map_err(|_| closing())?,
        Err(_) => Err(EngineError::Redis(fred::error::Error::new(
            fred::error::ErrorKind::Timeout,
            "a chat message waited too long for Redis",
        ))),
    }
}

fn closing() -> EngineError {
    EngineError::Protocol("the engine is closing".into())
}

/// A chat message whose keys were not where its call was routed, even alone (its slot is
/// being moved): an outage for the sender, who tries again.
fn keys_away() -> EngineError {
    EngineError::Redis(fred::error::Error::new(
        fred::error::ErrorKind::Cluster,
        "a chat message's keys are being moved to another server",
    ))
}

/// Starts a client's routing task again whenever it ends with an error. fred ends it, and
/// then every call waits out its timeout for good, on some answers a live cluster gives:
/// an `ASK` redirection (a slot being moved from one master to another) for a command that
/// has used up its attempts. Started again, it connects to every master afresh; the bus
/// hears of it as of any reconnection (see [`resubscribe`]). It ends for good only when
/// the client quits.
async fn keep_routing(client: impl ClientLike, mut task: ConnectHandle, what: &'static str) {
    loop {
        let error = match task.await {
            Ok(Ok(())) => return,
            Ok(Err(e)) => e.to_string(),
            Err(e) => e.to_string(),
        };
        tracing::error!(%error, client = what, "the Redis client stopped routing; starting it again");
        tokio::time::sleep(Duration::from_millis(100)).await;
        task = client.connect();
    }
}

/// Subscribes to the bus's channels, one per call (a cluster takes several in one call only
/// when they share a slot) and one after another: fred follows a `MOVED` answer to
/// `SSUBSCRIBE` only when such calls are not pipelined.
async fn subscribe(subscriber: &SubscriberClient, channels: &[String]) -> Result<(), EngineError> {
    for channel in channels {
        subscriber.ssubscribe(channel.clone()).await?;
    }
    Ok(())
}

/// Subscribes again whenever the subscriber reconnects (a restarted Redis, a master that
/// failed over): fred's own `manage_subscriptions` gives up on shard channels when it has
/// no plain ones. Until it is done the engine answers pings with an outage, so the node
/// is not ready; once it is, each inbox reports a gap (what was published meanwhile is
/// lost, also to sockets that resumed in between), so the node's sockets resume now.
async fn resubscribe(bus: Bus) {
    let mut reconnects = bus.subscriber.reconnect_rx();
    loop {
        match reconnects.recv().await {
            Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {
                let _repairing = bus.repairing.lock().await;
                let all = bus.channels_of(0..PARTITIONS);
                bus.subscribe_again(&all).await;
            }
            Err(broadcast::error::RecvError::Closed) => return,
        }
    }
}

/// An instance listened for: its inbox in each partition, and how many `Inbox`es read it.
struct Listening {
    instance: String,
    channels: Vec<String>,
    readers: usize,
}

impl Bus {
    /// The channels this node hears in `partitions`: each instance's inbox there, and in
    /// partition 0 the channel for everyone.
    fn channels_of(&self, partitions: impl IntoIterator<Item = usize>) -> Vec<String> {
        let inboxes = self.inboxes.read().unwrap_or_else(|e| e.into_inner());
        let mut channels = Vec::new();
        for p in partitions {
            if p == 0 {
                channels.push(self.everyone.clone());
            }
            channels.extend(inboxes.iter().filter_map(|l| l.channels.get(p).cloned()));
        }
        channels
    }

    /// Listens on the inboxes of `instance` (`channels`), for one more reader.
    async fn listen(&self, instance: &str, channels: Vec<String>) -> Result<(), EngineError> {
        let _repairing = self.repairing.lock().await;
        {
            let mut inboxes = self.inboxes.write().unwrap_or_else(|e| e.into_inner());
            if let Some(l) = inboxes.iter_mut().find(|l| l.instance == instance) {
                l.readers += 1;
                return Ok(());
            }
        }
        subscribe(&self.subscriber, &channels).await?;
        self.inboxes
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .push(Listening {
                instance: instance.to_owned(),
                channels,
                readers: 1,
            });
        Ok(())
    }

    /// A reader of `instance`'s inboxes is gone; with the last, the node stops listening.
    async fn leave(&self, instance: String) {
        let _repairing = self.repairing.lock().await;
        let channels = {
            let mut inboxes = self.inboxes.write().unwrap_or_else(|e| e.into_inner());
            let Some(i) = inboxes.iter().position(|l| l.instance == instance) else {
                return;
            };
            inboxes[i].readers -= 1;
            if inboxes[i].readers > 0 {
                return;
            }
            inboxes.remove(i).channels
        };
        for channel in channels {
            if let Err(e) = self.subscriber.sunsubscribe(channel).await {
                tracing::warn!(error = %e, "leaving an instance's inbox");
            }
        }
    }

    /// Ends a hole: subscribes to `channels` again, trying until Redis takes them, while
    /// the node says it is not ready; then tells the inboxes.
    async fn subscribe_again(&self, channels: &[String]) {
        self.up.store(false, Ordering::SeqCst);
        while let Err(e) = subscribe(&self.subscriber, channels).await {
            tracing::warn!(error = %e, "subscribing to the bus again");
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        self.up.store(true, Ordering::SeqCst);
        // Nobody listening is not an error: no inbox yet.
        let _ = self.resubscribed.send(());
    }
}

/// Publishes a probe on each of the node's inboxes every [`PROBE_EVERY`] (a channel in
/// each partition, so on every master: partition 0's inbox shares its slot with the
/// channel for everyone), and repairs the partitions whose
/// last [`PROBE_MISSES`] probes went unheard while later probes came in on other channels:
/// a hole begins (every socket resumes), the channels are subscribed again (to whichever
/// master owns them now), and the hole ends. A listener that falls behind hears no channel
/// and is not taken for deaf; one on a single Redis server has no slot to lose.
async fn probe(client: Client, bus: Bus) {
    let mut seq = 0u64;
    // The probes published on each channel and not heard back yet, oldest first.
    let mut unheard: Vec<Vec<u64>> = vec![Vec::new(); PARTITIONS];
    let mut tick = tokio::time::interval(PROBE_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        if bus.probes.listening.load(Ordering::Relaxed) == 0
            || !bus.up.load(Ordering::SeqCst)
            || !bus.subscriber.is_connected()
        {
            unheard.iter_mut().for_each(Vec::clear);
            continue;
        }
        let mut latest = 0;
        for (p, probes) in unheard.iter_mut().enumerate() {
            let heard = bus.probes.heard[p].load(Ordering::Relaxed);
            latest = latest.max(heard);
            probes.retain(|s| *s > heard);
        }
        // Deaf: several probes in a row unheard on a channel while the listener has heard
        // later ones on others. A listener that is only behind hears none of them.
        let deaf: Vec<usize> = (0..PARTITIONS)
            .filter(|p| {
                unheard[*p]
                    .get(PROBE_MISSES - 1)
                    .is_some_and(|missed| latest >= *missed)
            })
            .collect();
        if !deaf.is_empty() {
            let _repairing = bus.repairing.lock().await;
            let channels = bus.channels_of(deaf.iter().copied());
            tracing::error!(
                ?channels,
                "the bus went deaf on some channels (a failover or a slot that moved); subscribing again"
            );
            // Not ready before the inboxes hear of the hole: no socket slips in meanwhile.
            bus.up.store(false, Ordering::SeqCst);
            bus.probes.hole(deaf.iter().copied());
            let _ = bus.deafened.send(());
            bus.subscribe_again(&channels).await;
            deaf.iter().for_each(|p| unheard[*p].clear());
        }
        // Numbered by the time it goes out (see `Probes::heard`), each after the last.
        seq = unix_ms().max(seq + 1);
        // The latest instance's: the node's own (tests run several on one engine).
        let Some(inboxes) = bus
            .inboxes
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .last()
            .map(|l| l.channels.clone())
        else {
            continue;
        };
        let sent = join_all(
            inboxes
                .into_iter()
                .enumerate()
                .map(|(p, inbox)| client.spublish::<i64, _, _>(inbox, bus.probes.probe(p, seq))),
        )
        .await;
        for (p, sent) in sent.into_iter().enumerate() {
            // A probe that did not go out cannot be missed.
            if sent.is_ok() {
                let probes = &mut unheard[p];
                // Only the last few count (every channel deaf at once is not told apart
                // from a listener that is behind, so nothing else bounds the list).
                if probes.len() >= 4 * PROBE_MISSES {
                    probes.remove(0);
                }
                probes.push(seq);
            }
        }
    }
}

/// A queue entry: `user|token|,apart,|member JSON`.
struct Entry<'a> {
    user: &'a str,
    token: &'a str,
    member: &'a str,
}

impl<'a> Entry<'a> {
    fn parse(entry: &'a str) -> Option<Self> {
        let mut parts = entry.splitn(4, '|');
        let user = parts.next()?;
        let token = parts.next()?;
        let _apart = parts.next()?;
        let member = parts.next()?;
        Some(Self {
            user,
            token,
            member,
        })
    }
}

impl RedisEngine {
    /// Connects to `url`: `redis://host:port/db` for one server, or
    /// `redis-cluster://host:port?node=host:port&…` for a cluster. Every key and channel is
    /// put under `prefix` (no braces), so several deployments or test runs can share one
    /// server or cluster.
    pub async fn connect(url: &str, prefix: &str) -> Result<Self, EngineError> {
        let layout = Layout::new(prefix)?;
        let config = Config::from_url(url)?;
        let mut builder = Builder::from_config(config);
        builder
            .with_connection_config(|c| {
                c.connection_timeout = CALL_TIMEOUT;
                c.internal_command_timeout = CALL_TIMEOUT;
                c.max_command_buffer_len = COMMAND_QUEUE;
            })
            .with_performance_config(|p| p.default_command_timeout = CALL_TIMEOUT)
            // At most a second between tries: a cluster's replica takes over a failed
            // master within seconds, and the nodes should follow as soon.
            .set_policy(ReconnectPolicy::new_exponential(0, 100, 1_000, 2));
        let client = builder.build()?;
        tokio::spawn(keep_routing(
            client.clone(),
            client.init().await?,
            "commands",
        ));
        builder.with_performance_config(|p| p.broadcast_channel_capacity = INBOX_CAPACITY);
        let subscriber = builder.build_subscriber_client()?;
        tokio::spawn(keep_routing(
            subscriber.clone(),
            subscriber.init().await?,
            "the bus",
        ));
        subscribe(&subscriber, std::slice::from_ref(&layout.everyone)).await?;
        let bus = Bus {
            subscriber: subscriber.clone(),
            everyone: layout.everyone.clone(),
            inboxes: Arc::default(),
            up: Arc::new(AtomicBool::new(true)),
            repairing: Arc::new(tokio::sync::Mutex::new(())),
            deafened: broadcast::channel(16).0,
            resubscribed: broadcast::channel(16).0,
            probes: Arc::new(Probes::new()),
        };
        tokio::spawn(resubscribe(bus.clone()));
        tokio::spawn(probe(client.clone(), bus.clone()));
        let scripts = Scripts::new();
        let time = Script::from_lua("return redis.call('TIME')");
        for script in scripts.all().into_iter().chain([&time]) {
            script.load(&client).await?;
        }
        let sends = Lanes {
            client: client.clone(),
            script: scripts.send.clone(),
            state: std::sync::Mutex::new(LaneState::default()),
        };
        Ok(Self {
            client,
            subscriber,
            scripts,
            time,
            layout,
            prefix: prefix.to_owned(),
            bus,
            archive_turns: AtomicUsize::new(rand::random::<u16>().into()),
            sends,
        })
    }

    /// The hash slot that holds a room's keys, whatever the prefix: for an operator moving
    /// slots, and for tests that move them.
    pub fn room_slot(room_id: &str) -> u16 {
        fred::util::redis_keyslot(tag(partition_of(room_id)).as_bytes())
    }

    /// Runs `script` in the partition (or on the counter) whose anchor is `key`.
    async fn run<R: FromValue>(
        &self,
        script: &Script,
        key: &str,
        args: Vec<String>,
    ) -> Result<R, EngineError> {
        Ok(script
            .evalsha_with_reload(&self.client, key.to_owned(), args)
            .await?)
    }

    /// Runs `script` in every partition at once, with the same arguments.
    async fn in_every_partition<R: FromValue>(
        &self,
        script: &Script,
        args: Vec<String>,
    ) -> Result<Vec<R>, EngineError> {
        try_join_all(
            self.layout
                .anchors
                .iter()
                .map(|anchor| self.run::<R>(script, anchor, args.clone())),
        )
        .await
    }

    /// Runs `script` at once in each partition given arguments (`args[p]` for partition
    /// `p`; none when empty).
    async fn in_partitions<R: FromValue>(
        &self,
        script: &Script,
        args: Vec<Vec<String>>,
    ) -> Result<Vec<R>, EngineError> {
        try_join_all(
            args.into_iter()
                .enumerate()
                .filter(|(_, args)| !args.is_empty())
                .map(|(p, args)| self.run::<R>(script, self.layout.anchor(p), args)),
        )
        .await
    }

    fn counter(&self, key: &str) -> String {
        format!("{}rl:{{{key}}}", self.prefix)
    }

    /// A job for the lanes of `room`, with the arguments that follow its stream key, and
    /// where its answer will come.
    fn send_job(
        &self,
        room: &Room,
        [prefix, data, tail, key]: [String; 4],
    ) -> (
        SendJob,
        oneshot::Receiver<Result<Option<String>, EngineError>>,
    ) {
        let (answer, answered) = oneshot::channel();
        let anchor = self.layout.of(&room.id);
        let job = SendJob {
            anchor: anchor.to_owned(),
            args: [
                format!("{}:s", room_key_in(anchor, &room.id)),
                prefix,
                data,
                tail,
                key,
            ],
            answer,
        };
        (job, answered)
    }

    fn room_key(&self, room_id: &str) -> String {
        room_key_in(self.layout.of(room_id), room_id)
    }

    /// Frees `user_id` from `room_id` (in the user's partition).
    async fn leave_room(&self, user_id: i64, room_id: &str) -> Result<(), EngineError> {
        let _: i64 = self
            .run(
                &self.scripts.leave_room,
                self.layout.user(user_id),
                vec![user_id.to_string(), room_id.to_owned()],
            )
            .await?;
        Ok(())
    }

    /// Whether a user's record of sitting in `room_id` since `since_ms` is stale: the room
    /// ended, or it was never made and will not be.
    async fn stale_seat(
        &self,
        room_id: &str,
        since_ms: i64,
        now_ms: i64,
    ) -> Result<bool, EngineError> {
        Ok(match self.room(room_id).await? {
            Some(room) => room.ended_ms.is_some(),
            None => now_ms - since_ms > ROOM_MAKING,
        })
    }

    /// Removes the instances given up for dead: their users are detached in every
    /// partition, then the instance is forgotten.
    async fn reap(&self, dead: &[(String, String)]) -> Result<(), EngineError> {
        for (instance, since) in dead {
            self.in_every_partition::<i64>(
                &self.scripts.reap,
                vec![instance.clone(), since.clone()],
            )
            .await?;
            let _: i64 = self
                .run(
                    &self.scripts.forget,
                    self.layout.anchor(0),
                    vec![instance.clone()],
                )
                .await?;
        }
        Ok(())
    }

    /// Records in room `room_id` that a socket of a member is here, or (`here` false) no
    /// longer.
    async fn room_socket(
        &self,
        room_id: &str,
        instance: &str,
        user_id: i64,
        socket: u64,
        here: bool,
    ) -> Result<(), EngineError> {
        let field = format!("{instance}/{socket}");
        let _: i64 = if here {
            self.run(
                &self.scripts.room_here,
                self.layout.of(room_id),
                vec![room_id.to_owned(), field, user_id.to_string()],
            )
            .await?
        } else {
            self.run(
                &self.scripts.room_gone,
                self.layout.of(room_id),
                vec![room_id.to_owned(), field],
            )
            .await?
        };
        Ok(())
    }
}

fn member_from(json: &str) -> Result<Member, EngineError> {
    serde_json::from_str(json).map_err(|e| EngineError::Protocol(format!("member {json}: {e}")))
}

fn room_from(room_id: &str, fields: &HashMap<String, String>) -> Result<Room, EngineError> {
    let get = |k: &str| {
        fields
            .get(k)
            .ok_or_else(|| EngineError::Protocol(format!("room {room_id} lacks {k}")))
    };
    let number = |k: &str| -> Result<i64, EngineError> {
        get(k)?
            .parse()
            .map_err(|_| EngineError::Protocol(format!("room {room_id}: bad {k}")))
    };
    let ended = number("ended")?;
    Ok(Room {
        id: room_id.to_owned(),
        word: get("word")?.clone(),
        round: number("round")?,
        members: [member_from(get("a")?)?, member_from(get("b")?)?],
        created_ms: number("created")?,
        ended_ms: (ended != 0).then_some(ended),
    })
}

/// The key of a room's hash in its partition, `anchor` (its stream and client ids are
/// this key with `:s` and `:c`).
fn room_key_in(anchor: &str, room_id: &str) -> String {
    format!("{anchor}room:{room_id}")
}

/// Where `XRANGE` starts to read a stream after `id` (exclusive), or from its start.
fn range_after(id: Option<&str>) -> String {
    id.map_or_else(|| "-".to_owned(), |id| format!("({id}"))
}

/// A room of the archive's turn from its replies: `XRANGE` of its stream after `mark`,
/// and `HGETALL` of its record (empty when the room is gone).
fn backlog_from(
    room_id: &str,
    mark: Option<String>,
    stream: &Value,
    record: &Value,
) -> Result<Backlog, EngineError> {
    let bad = |what: &Value| {
        EngineError::Protocol(format!("the archive read {what:?} for room {room_id}"))
    };
    let entries = match stream {
        Value::Array(entries) => entries
            .iter()
            .map(|entry| {
                let Value::Array(parts) = entry else {
                    return Err(bad(entry));
                };
                let [id, Value::Array(fields)] = parts.as_slice() else {
                    return Err(bad(entry));
                };
                // The value of its one field (`d`); an entry without one is read as
                // empty, which the archive leaves out, rather than stopping every turn.
                let data = fields.get(1).and_then(Value::as_string).unwrap_or_default();
                Ok(StreamEntry {
                    id: id.as_string().ok_or_else(|| bad(entry))?,
                    data,
                })
            })
            .collect::<Result<Vec<_>, _>>()?,
        Value::Null => Vec::new(),
        other => return Err(bad(other)),
    };
    let fields: HashMap<String, String> = match record {
        Value::Null => HashMap::new(),
        other => other.clone().convert().map_err(|_| bad(other))?,
    };
    let room = if fields.is_empty() {
        None
    } else {
        Some(room_from(room_id, &fields)?)
    };
    Ok(Backlog {
        room_id: room_id.to_owned(),
        room,
        archived: mark,
        entries,
    })
}

fn random_token() -> String {
    format!("{:016x}", rand::random::<u64>())
}

#[async_trait]
impl Engine for RedisEngine {
    fn name(&self) -> &'static str {
        "redis"
    }

    fn bus_ready(&self) -> bool {
        self.subscriber.is_connected() && self.bus.up.load(Ordering::SeqCst)
    }

    fn resume_from(&self, last_ms: i64) -> Option<i64> {
        self.bus.probes.resume_from(last_ms)
    }

    async fn ping(&self) -> Result<(), EngineError> {
        let _: String = self.client.ping(None).await?;
        if !self.bus_ready() {
            return Err(EngineError::Redis(fred::error::Error::new(
                fred::error::ErrorKind::IO,
                "the bus is not subscribed",
            )));
        }
        Ok(())
    }

    async fn now_ms(&self) -> Result<i64, EngineError> {
        let reply: Vec<String> = self
            .time
            .evalsha_with_reload(&self.client, Vec::<String>::new(), Vec::<String>::new())
            .await?;
        let [secs, micros] = &reply[..] else {
            return Err(EngineError::Protocol(format!("TIME returned {reply:?}")));
        };
        let parse = |s: &String| {
            s.parse::<i64>()
                .map_err(|e| EngineError::Protocol(e.to_string()))
        };
        Ok(parse(secs)? * 1000 + parse(micros)? / 1000)
    }

    async fn hit(&self, key: &str, limit: u32, window: Duration) -> Result<Hit, EngineError> {
        let reply: Vec<i64> = self
            .run(
                &self.scripts.hit,
                &self.counter(key),
                vec![duration_ms(window).to_string()],
            )
            .await?;
        let [count, ttl] = reply[..] else {
            return Err(EngineError::Protocol(format!("hit returned {reply:?}")));
        };
        let count = u32::try_from(count).unwrap_or(u32::MAX);
        Ok(Hit {
            allowed: count <= limit,
            count,
            retry_after: Duration::from_millis(u64::try_from(ttl).unwrap_or(0)),
        })
    }

    async fn take(
        &self,
        key: &str,
        amount: u32,
        limit: u32,
        window: Duration,
    ) -> Result<u32, EngineError> {
        let taken: i64 = self
            .run(
                &self.scripts.take_part,
                &self.counter(key),
                vec![
                    amount.to_string(),
                    limit.to_string(),
                    duration_ms(window).to_string(),
                ],
            )
            .await?;
        u32::try_from(taken)
            .ok()
            .filter(|taken| *taken <= amount)
            .ok_or_else(|| EngineError::Protocol(format!("take returned {taken}")))
    }

    async fn give_back(&self, key: &str, amount: u32) -> Result<(), EngineError> {
        let _: i64 = self
            .run(
                &self.scripts.give_back,
                &self.counter(key),
                vec![amount.to_string()],
            )
            .await?;
        Ok(())
    }

    async fn refund(&self, key: &str) -> Result<(), EngineError> {
        let _: i64 = self
            .run(&self.scripts.refund, &self.counter(key), vec![])
            .await?;
        Ok(())
    }

    async fn clear(&self, key: &str) -> Result<(), EngineError> {
        let _: i64 = self.client.del(self.counter(key)).await?;
        Ok(())
    }

    async fn take_air(
        &self,
        now_ms: i64,
        length: Duration,
        max_wait: Duration,
    ) -> Result<Option<i64>, EngineError> {
        let start: i64 = self
            .run(
                &self.scripts.take_air,
                self.layout.anchor(0),
                vec![
                    now_ms.to_string(),
                    millis(length).to_string(),
                    millis(max_wait).to_string(),
                ],
            )
            .await?;
        Ok((start >= 0).then_some(start))
    }

    /// In steps, each in one partition: (1) in the user's, the user's wait becomes a new
    /// token (unless they sit in a room, or wait in this queue already); (2) in the
    /// queue's, the first waiter not kept apart is taken, or the user queued and told;
    /// (3) in the waiter's, the waiter is seated if it still waits with the token of its
    /// entry (else back to 2: it left or moved on); (4) in the user's, the same for the
    /// user (if the user moved on meanwhile, the waiter is put back at the head of the
    /// queue); (5) in the room's, the room is made and both are told. A seat whose room
    /// was never made (the node stopped before 5) is cleared by the user's next join.
    async fn join(
        &self,
        round: i64,
        word: &str,
        member: &Member,
        apart: &[i64],
        room_id: &str,
        now_ms: i64,
        frames: &JoinFrames<'_>,
    ) -> Result<JoinOutcome, EngineError> {
        let me = member.user_id;
        let queue = format!("{round}:{word}");
        let token = random_token();
        let mine = self.layout.user(me);
        let mut repaired = false;
        let instances = loop {
            let reply: Vec<String> = self
                .run(
                    &self.scripts.begin,
                    mine,
                    vec![
                        me.to_string(),
                        queue.clone(),
                        token.clone(),
                        frames.waiting.to_owned(),
                    ],
                )
                .await?;
            match reply.as_slice() {
                [kind, instances @ ..] if kind == "go" => break instances.to_vec(),
                [kind] if kind == "waiting" => return Ok(JoinOutcome::Waiting),
                [kind, room, since] if kind == "in_room" => {
                    let since = since.parse().unwrap_or(0);
                    if repaired || !self.stale_seat(room, since, now_ms).await? {
                        return Ok(JoinOutcome::AlreadyInRoom(room.clone()));
                    }
                    self.leave_room(me, room).await?;
                    repaired = true;
                }
                other => return Err(EngineError::Protocol(format!("join returned {other:?}"))),
            }
        };
        let apart = if apart.is_empty() {
            String::new()
        } else {
            let ids: Vec<String> = apart.iter().map(i64::to_string).collect();
            format!(",{},", ids.join(","))
        };
        let member_json =
            serde_json::to_string(member).map_err(|e| EngineError::Protocol(e.to_string()))?;
        let entry = format!("{me}|{token}|{apart}|{member_json}");
        let queue_anchor = self.layout.of(&queue);
        let mut take_args = vec![
            me.to_string(),
            queue.clone(),
            entry.clone(),
            apart.clone(),
            round.to_string(),
            frames.waiting.to_owned(),
        ];
        take_args.extend(instances);
        for _ in 0..TAKE_TRIES {
            let reply: Vec<String> = self
                .run(&self.scripts.take, queue_anchor, take_args.clone())
                .await?;
            let taken = match reply.as_slice() {
                [kind] if kind == "waiting" => return Ok(JoinOutcome::Waiting),
                [kind, taken] if kind == "take" => taken.clone(),
                other => return Err(EngineError::Protocol(format!("join returned {other:?}"))),
            };
            let Some(waiter) = Entry::parse(&taken) else {
                tracing::warn!(entry = %taken, "an unreadable queue entry");
                continue;
            };
            let Ok(waiter_id) = waiter.user.parse::<i64>() else {
                continue;
            };
            // A seat is the user's sockets (`Some`, maybe none), or `None`: not seated.
            let seat = |user: i64, token: String| async move {
                let reply: Vec<String> = self
                    .run(
                        &self.scripts.claim,
                        self.layout.user(user),
                        vec![
                            user.to_string(),
                            token,
                            room_id.to_owned(),
                            now_ms.to_string(),
                        ],
                    )
                    .await?;
                Ok::<_, EngineError>(match reply.split_first() {
                    Some((seated, sockets)) if seated == "1" => Some(sockets.to_vec()),
                    _ => None,
                })
            };
            let Some(waiter_sockets) = seat(waiter_id, waiter.token.to_owned()).await? else {
                continue;
            };
            let Some(my_sockets) = seat(me, token.clone()).await? else {
                // The user moved on (another join, a cancel, the last socket closed):
                // that step decides for them; the waiter waits again where it was.
                let _: i64 = self
                    .run(
                        &self.scripts.unclaim,
                        self.layout.user(waiter_id),
                        vec![
                            waiter.user.to_owned(),
                            waiter.token.to_owned(),
                            room_id.to_owned(),
                            queue.clone(),
                        ],
                    )
                    .await?;
                let _: i64 = self
                    .run(
                        &self.scripts.put_back,
                        queue_anchor,
                        vec![queue.clone(), taken.clone()],
                    )
                    .await?;
                return Ok(JoinOutcome::Waiting);
            };
            let room = Room {
                id: room_id.to_owned(),
                word: word.to_owned(),
                round,
                members: [member_from(waiter.member)?, member.clone()],
                created_ms: now_ms,
                ended_ms: None,
            };
            let [frame_a, frame_b] = (frames.matched)(&room);
            let mut args = vec![
                room_id.to_owned(),
                waiter.member.to_owned(),
                member_json.clone(),
                waiter.user.to_owned(),
                me.to_string(),
                word.to_owned(),
                round.to_string(),
                now_ms.to_string(),
                frame_a,
                frame_b,
                waiter_sockets.len().to_string(),
            ];
            args.extend(waiter_sockets);
            args.extend(my_sockets);
            let _: i64 = self
                .run(&self.scripts.create_room, self.layout.of(room_id), args)
                .await?;
            return Ok(JoinOutcome::Matched(room));
        }
        Err(EngineError::Protocol(format!(
            "join found {TAKE_TRIES} unusable waiters in a row on {queue}"
        )))
    }

    async fn cancel_wait(&self, user_id: i64) -> Result<bool, EngineError> {
        let n: i64 = self
            .run(
                &self.scripts.cancel,
                self.layout.user(user_id),
                vec![user_id.to_string()],
            )
            .await?;
        Ok(n == 1)
    }

    async fn expire_round(&self, round: i64, frame: &str) -> Result<Vec<i64>, EngineError> {
        let entries: Vec<Vec<String>> = self
            .in_every_partition(&self.scripts.expire_queues, vec![round.to_string()])
            .await?;
        let mut by_partition: Vec<Vec<String>> = vec![Vec::new(); PARTITIONS];
        for entry in entries.iter().flatten() {
            let Some(e) = Entry::parse(entry) else {
                continue;
            };
            let Ok(user) = e.user.parse::<i64>() else {
                continue;
            };
            let args = &mut by_partition[user_partition(user)];
            if args.is_empty() {
                args.push(frame.to_owned());
            }
            args.push(e.user.to_owned());
            args.push(e.token.to_owned());
        }
        let told: Vec<Vec<String>> = self
            .in_partitions(&self.scripts.release, by_partition)
            .await?;
        Ok(told
            .iter()
            .flatten()
            .filter_map(|u| u.parse().ok())
            .collect())
    }

    async fn room_of(&self, user_id: i64) -> Result<Option<Room>, EngineError> {
        let room: Option<String> = self
            .client
            .hget(format!("{}u:{user_id}", self.layout.user(user_id)), "room")
            .await?;
        match room {
            Some(id) => Ok(self.room(&id).await?.filter(|r| r.ended_ms.is_none())),
            None => Ok(None),
        }
    }

    async fn room(&self, room_id: &str) -> Result<Option<Room>, EngineError> {
        let fields: HashMap<String, String> = self.client.hgetall(self.room_key(room_id)).await?;
        if fields.is_empty() {
            return Ok(None);
        }
        room_from(room_id, &fields).map(Some)
    }

    async fn end_room(
        &self,
        room_id: &str,
        member: Option<i64>,
        now_ms: i64,
        farewell: &Farewell<'_>,
    ) -> Result<Option<Room>, EngineError> {
        let (aside, aside_frame) = farewell
            .aside
            .map_or((String::new(), ""), |(u, f)| (u.to_string(), f));
        let fields: Option<HashMap<String, String>> = self
            .run(
                &self.scripts.end_room,
                self.layout.of(room_id),
                vec![
                    room_id.to_owned(),
                    now_ms.to_string(),
                    member.map(|m| m.to_string()).unwrap_or_default(),
                    farewell.frame.to_owned(),
                    aside,
                    aside_frame.to_owned(),
                ],
            )
            .await?;
        let room = match fields {
            Some(fields) if !fields.is_empty() => room_from(room_id, &fields)?,
            _ => return Ok(None),
        };
        try_join_all(
            room.members
                .iter()
                .map(|m| self.leave_room(m.user_id, room_id)),
        )
        .await?;
        Ok(Some(room))
    }

    async fn send(
        &self,
        room: &Room,
        sender: i64,
        client_id: Option<&str>,
        data: &str,
        frame: &MessageFrame<'_>,
    ) -> Result<Option<String>, EngineError> {
        // Redis checks only that the room is open (see `SEND`).
        if room.partner_of(sender).is_none() {
            return Ok(None);
        }
        let [a, b] = &room.members;
        let (job, answered) = self.send_job(
            room,
            [
                format!("{},{}\n{}", a.user_id, b.user_id, frame.head),
                data.to_owned(),
                frame.tail.to_owned(),
                client_id.map_or_else(String::new, |c| format!("{sender}:{c}")),
            ],
        );
        self.sends
            .lane(job.slot())
            .send(job)
            .await
            .map_err(|_| closing())?;
        answer_of(answered).await
    }

    fn relay(&self, room: &Room, sender: i64, frame: &str) -> Relayed {
        let Some(partner) = room.partner_of(sender) else {
            return Box::pin(std::future::ready(Ok(false)));
        };
        let (job, answered) = self.send_job(
            room,
            [
                format!("{}\n", partner.user_id),
                String::new(),
                frame.to_owned(),
                partner.user_id.to_string(),
            ],
        );
        // Queued now, so that it goes before any message the caller sends next.
        match self.sends.lane(job.slot()).try_send(job) {
            Ok(()) => Box::pin(async move { Ok(answer_of(answered).await?.is_some()) }),
            Err(mpsc::error::TrySendError::Full(_)) => Box::pin(std::future::ready(Err(
                EngineError::Redis(fred::error::Error::new(
                    fred::error::ErrorKind::Backpressure,
                    "too many chat messages wait for Redis",
                )),
            ))),
            Err(mpsc::error::TrySendError::Closed(_)) => {
                Box::pin(std::future::ready(Err(closing())))
            }
        }
    }

    async fn read_after(
        &self,
        room_id: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<StreamEntry>, EngineError> {
        let start = range_after(after);
        let flat: Vec<String> = self
            .run(
                &self.scripts.read,
                self.layout.of(room_id),
                vec![room_id.to_owned(), start, limit.to_string()],
            )
            .await?;
        Ok(flat
            .chunks_exact(2)
            .map(|pair| StreamEntry {
                id: pair[0].clone(),
                data: pair[1].clone(),
            })
            .collect())
    }

    /// Plain commands, pipelined: per partition its list and marks, then the streams and
    /// records of the share's rooms, a chunk at a time. Not a script: a script's reply of
    /// stream entries passes through Lua (each entry parsed into a table, its strings
    /// hashed whole, written out again), which cost Redis three times what `XRANGE`
    /// writing to the connection does. The partitions one after another: each chunk's
    /// replies hold hundreds of messages, and chat calls wait behind them on the
    /// connection. Only the archive moves the marks (and a report's flush, which stores
    /// each message once by its id), so reading them apart from the streams is safe.
    async fn archive_backlog(
        &self,
        share: ArchiveShare,
        per_room: usize,
        budget: usize,
        now_ms: i64,
    ) -> Result<Vec<Backlog>, EngineError> {
        let turn = self.archive_turns.fetch_add(1, Ordering::Relaxed);
        let budget = (budget / PARTITIONS).max(1);
        let mut backlog = Vec::new();
        for anchor in &self.layout.anchors {
            let pipe = self.client.pipeline();
            let () = pipe.smembers(format!("{anchor}archive")).await?;
            let () = pipe.hgetall(format!("{anchor}archived")).await?;
            let () = pipe.hgetall(format!("{anchor}resting")).await?;
            let (mut rooms, mut marks, resting): (
                Vec<String>,
                HashMap<String, String>,
                HashMap<String, i64>,
            ) = pipe.all().await?;
            // A room finished by a build that knew no rests leaves its rest behind.
            let listed: HashSet<&String> = rooms.iter().collect();
            let stale: Vec<&String> = resting.keys().filter(|id| !listed.contains(id)).collect();
            if !stale.is_empty() {
                let () = self.client.hdel(format!("{anchor}resting"), stale).await?;
            }
            rooms.retain(|id| share.holds(id) && resting.get(id).is_none_or(|t| *t <= now_ms));
            rooms.sort_unstable();
            if !rooms.is_empty() {
                let start = turn % rooms.len();
                rooms.rotate_left(start);
            }
            let mut total = 0;
            for chunk in rooms.chunks(ARCHIVE_CHUNK) {
                if total >= budget {
                    break;
                }
                let pipe = self.client.pipeline();
                for id in chunk {
                    let from = range_after(marks.get(id).map(String::as_str));
                    let key = room_key_in(anchor, id);
                    let () = pipe
                        .xrange(format!("{key}:s"), from, "+", Some(per_room as u64))
                        .await?;
                    let () = pipe.hgetall(key).await?;
                }
                let replies: Vec<Value> = pipe.all().await?;
                for (id, pair) in chunk.iter().zip(replies.chunks_exact(2)) {
                    let room = backlog_from(id, marks.remove(id), &pair[0], &pair[1])?;
                    total += room.entries.len();
                    backlog.push(room);
                }
            }
        }
        Ok(backlog)
    }

    async fn archived_upto(&self, room_id: &str) -> Result<Option<String>, EngineError> {
        Ok(self
            .client
            .hget(format!("{}archived", self.layout.of(room_id)), room_id)
            .await?)
    }

    /// One script per partition that has marks.
    async fn mark_archived(&self, marks: &[ArchiveMark<'_>]) -> Result<(), EngineError> {
        let mut by_partition: Vec<Vec<String>> = vec![Vec::new(); PARTITIONS];
        for mark in marks {
            by_partition[partition_of(mark.room_id)].extend([
                mark.room_id.to_owned(),
                mark.upto.to_owned(),
                if mark.done { "1" } else { "0" }.to_owned(),
                mark.rest_until.map(|t| t.to_string()).unwrap_or_default(),
            ]);
        }
        self.in_partitions::<i64>(&self.scripts.mark_archived, by_partition)
            .await?;
        Ok(())
    }

    /// Subscribes to the instance's inboxes; the node stops listening on them once the
    /// `Inbox` is dropped (a node that starts over listens for its next instance). The
    /// channel for everyone was subscribed at connect.
    async fn inbox(&self, instance: &str) -> Result<Inbox, EngineError> {
        self.bus
            .listen(instance, self.layout.inboxes(instance))
            .await?;
        self.bus.probes.listening.fetch_add(1, Ordering::Relaxed);
        Ok(Inbox {
            kind: InboxKind::Redis(Box::new(RedisInbox {
                messages: self.subscriber.message_rx(),
                reconnects: self.subscriber.reconnect_rx(),
                deafened: self.bus.deafened.subscribe(),
                resubscribed: self.bus.resubscribed.subscribe(),
                probes: self.bus.probes.clone(),
                bus: self.bus.clone(),
                instance: instance.to_owned(),
                mine: format!("}}in:{instance}"),
                holes: 0,
                pending: std::collections::VecDeque::new(),
            })),
        })
    }

    async fn deliver(&self, to: &[i64], frame: &str) -> Result<(), EngineError> {
        // Per partition: the frame, then its users (see `DELIVER`).
        let mut by_partition: Vec<Vec<String>> = vec![Vec::new(); PARTITIONS];
        for user in to {
            let args = &mut by_partition[user_partition(*user)];
            if args.is_empty() {
                args.push(frame.to_owned());
            }
            args.push(user.to_string());
        }
        self.in_partitions::<i64>(&self.scripts.deliver, by_partition)
            .await?;
        Ok(())
    }

    async fn broadcast(&self, frame: &str) -> Result<(), EngineError> {
        let _: i64 = self
            .client
            .spublish(self.layout.everyone.clone(), format!("\n{frame}"))
            .await?;
        Ok(())
    }

    async fn attach(
        &self,
        instance: &str,
        user_id: i64,
        socket: u64,
        keep: usize,
    ) -> Result<Vec<SocketAt>, EngineError> {
        let reply: Vec<String> = self
            .run(
                &self.scripts.attach,
                self.layout.user(user_id),
                vec![
                    instance.to_owned(),
                    user_id.to_string(),
                    socket.to_string(),
                    keep.to_string(),
                ],
            )
            .await?;
        let (room, beyond) = match reply.as_slice() {
            [live, room, beyond @ ..] if live == "1" => (room, beyond),
            [live] if live == "0" => return Err(EngineError::Dropped),
            _ => return Err(EngineError::Protocol(format!("attach returned {reply:?}"))),
        };
        // Seated in a room: its events reach this instance too from now on.
        if !room.is_empty() {
            self.room_socket(room, instance, user_id, socket, true)
                .await?;
        }
        beyond
            .iter()
            .map(|field| {
                field
                    .rsplit_once('/')
                    .and_then(|(instance, socket)| {
                        Some(SocketAt {
                            instance: instance.to_owned(),
                            socket: socket.parse().ok()?,
                        })
                    })
                    .ok_or_else(|| EngineError::Protocol(format!("a socket named {field}")))
            })
            .collect()
    }

    async fn detach(
        &self,
        instance: &str,
        user_id: i64,
        socket: u64,
        now_ms: i64,
    ) -> Result<(), EngineError> {
        let room: String = self
            .run(
                &self.scripts.detach,
                self.layout.user(user_id),
                vec![
                    instance.to_owned(),
                    user_id.to_string(),
                    socket.to_string(),
                    now_ms.to_string(),
                ],
            )
            .await?;
        if !room.is_empty() {
            self.room_socket(&room, instance, user_id, socket, false)
                .await?;
        }
        Ok(())
    }

    async fn heartbeat(
        &self,
        instance: &str,
        now_ms: i64,
        first: bool,
    ) -> Result<Heartbeat, EngineError> {
        if first {
            // Live in every partition before anything counts on it: attaches in a
            // partition that does not know the instance are refused.
            try_join_all(
                self.layout
                    .anchors
                    .iter()
                    .map(|a| self.client.sadd::<i64, _, _>(format!("{a}live"), instance)),
            )
            .await?;
        }
        let reply: Vec<String> = self
            .run(
                &self.scripts.heartbeat,
                self.layout.anchor(0),
                vec![
                    instance.to_owned(),
                    now_ms.to_string(),
                    presence_ttl_ms().to_string(),
                    if first { "1" } else { "0" }.to_owned(),
                ],
            )
            .await?;
        match reply.split_first() {
            Some((head, dead)) if head == "1" => {
                let dead: Vec<(String, String)> = dead
                    .chunks_exact(2)
                    .map(|pair| (pair[0].clone(), pair[1].clone()))
                    .collect();
                self.reap(&dead).await?;
                Ok(Heartbeat {
                    online: self.online_count().await?,
                    was_dropped: false,
                })
            }
            Some((head, _)) if head == "-1" => Ok(Heartbeat {
                online: 0,
                was_dropped: true,
            }),
            _ => Err(EngineError::Protocol(format!(
                "heartbeat returned {reply:?}"
            ))),
        }
    }

    async fn leave(&self, instance: &str, now_ms: i64) -> Result<(), EngineError> {
        self.reap(&[(instance.to_owned(), now_ms.to_string())])
            .await
    }

    async fn online_count(&self) -> Result<u64, EngineError> {
        let counts: Vec<i64> = try_join_all(
            self.layout
                .anchors
                .iter()
                .map(|a| self.client.scard::<i64, _>(format!("{a}online"))),
        )
        .await?;
        Ok(counts
            .into_iter()
            .map(|n| u64::try_from(n).unwrap_or(0))
            .sum())
    }

    async fn gone_before(&self, cutoff_ms: i64) -> Result<Vec<Gone>, EngineError> {
        let flats: Vec<Vec<String>> = self
            .in_every_partition(&self.scripts.gone_before, vec![cutoff_ms.to_string()])
            .await?;
        Ok(flats
            .iter()
            .flat_map(|flat| flat.chunks_exact(2))
            .filter_map(|pair| {
                Some(Gone {
                    user_id: pair[0].parse().ok()?,
                    room_id: pair[1].clone(),
                })
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_hears_only_its_own_probes() {
        let mine = Probes::new();
        let theirs = Probes::new();
        mine.heard(&mine.probe(3, 7));
        mine.heard(&mine.probe(3, 5));
        mine.heard(&theirs.probe(4, 9));
        mine.heard("~garbage");
        mine.heard(&format!("{PROBE}{}:99:1", mine.mine));
        let heard: Vec<u64> = mine
            .heard
            .iter()
            .map(|h| h.load(Ordering::Relaxed))
            .collect();
        let mut expected = vec![0; PARTITIONS];
        expected[3] = 7;
        assert_eq!(
            heard, expected,
            "the latest of its own, on their own channel"
        );
    }

    #[test]
    fn a_hole_floors_resumes_from_inside_it_at_the_last_probe_heard_on_its_channels() {
        let probes = Probes::new();
        let now = unix_ms();
        let ms = |t: u64| i64::try_from(t).unwrap();
        assert_eq!(probes.resume_from(ms(now)), None, "no hole, no floor");
        probes.heard(&probes.probe(1, now - 20_000));
        probes.heard(&probes.probe(2, now - 10_000));
        probes.hole([2]);
        let floor = ms(now - 10_000) - CLOCK_SLACK_MS;
        assert_eq!(probes.resume_from(ms(now - 5_000)), Some(floor));
        assert_eq!(probes.resume_from(floor), None, "from before the hole");
        assert_eq!(
            probes.resume_from(ms(now) + 60_000),
            None,
            "from after its last edge"
        );
        // A later hole on a channel heard earlier moves the floor back, never forward.
        probes.hole([1, 2]);
        let floor = ms(now - 20_000) - CLOCK_SLACK_MS;
        assert_eq!(probes.resume_from(ms(now - 15_000)), Some(floor));
        probes.heard(&probes.probe(1, now - 1_000));
        probes.hole([1]);
        probes.hole_ends();
        assert_eq!(probes.resume_from(ms(now - 15_000)), Some(floor));
        // A channel never heard: everything since listening began.
        let fresh = Probes::new();
        fresh.hole([5]);
        let since = ms(fresh.since);
        assert_eq!(fresh.resume_from(since), Some(since - CLOCK_SLACK_MS));
    }

    #[test]
    fn partitions_spread_evenly_over_masters() {
        for masters in [2, 3, 4, 6, 8] {
            let share = 16_384 / masters;
            let mut owned = vec![0; masters];
            for p in 0..PARTITIONS {
                let slot = usize::from(fred::util::redis_keyslot(tag(p).as_bytes()));
                owned[(slot / share).min(masters - 1)] += 1;
            }
            assert!(
                owned.iter().all(|n| *n == PARTITIONS / masters),
                "{masters} masters own {owned:?}"
            );
        }
    }
}
