//! The engine over Redis: one server, or a Redis Cluster.
//!
//! **Layout.** The key space is cut into [`PARTITIONS`] partitions, each a hash tag
//! (`<prefix>{tag}`, the partition's anchor) whose slot lies in the middle of its
//! 1/[`PARTITIONS`] of the 16,384 slots, so a cluster whose masters own even slot ranges
//! owns even shares of the partitions. Every script but the send script runs in one
//! partition (`#!lua`: a cluster refuses any key outside the slot of its declared anchor);
//! the send script carries a batch of several partitions of one server
//! (`allow-cross-slot-keys`), and the clock's `TIME` touches no key. A user's records
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
//! `PROBE_EVERY` (on one Redis server, which has no slot to lose, on one inbox for all)
//! and checks that it hears its own; a channel that misses
//! `PROBE_MISSES` probes while the others are heard is a hole like a reconnection:
//! subscribed again, and every socket resumes, from before the hole for a while (a room's
//! later messages may have come on another channel; see [`Engine::resume_from`]).

mod bus;
mod lanes;
mod layout;
mod scripts;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use fred::clients::SubscriberClient;
use fred::prelude::*;
use fred::types::scripts::Script;
use fred::types::ConnectHandle;
use futures_util::future::try_join_all;
use tokio::sync::{broadcast, mpsc, oneshot};

pub(crate) use self::bus::RedisInbox;
use self::bus::{probe, resubscribe, subscribe, Bus, Probes, INBOX_CAPACITY};
use self::lanes::{answer_of, closing, LaneState, Lanes, SendJob};
use self::layout::{partition_of, room_key_in, tag, user_partition, Layout};
use self::scripts::Scripts;
use crate::{
    bus as events, duration_ms, millis, presence_ttl_ms, ArchiveMark, ArchiveShare, Backlog,
    Engine, EngineError, Farewell, Gone, Heartbeat, Hit, Inbox, InboxKind, JoinOutcome, Member,
    MessageFrame, Relayed, Room, SocketAt, StreamEntry,
};

/// Partitions of the key space and channels of the bus. A multiple of 2, 3, 4, 6 and 8,
/// so clusters of that many masters with even slot ranges own even shares.
pub const PARTITIONS: usize = 24;
/// How long a call may wait for Redis (queued while it reconnects, or waiting for its
/// answer) before it fails as an outage, so that callers answer "try again" instead of
/// hanging until Redis returns.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(2);
/// The online count is counted (an `SCARD` in every partition) at most this often by
/// all nodes together: the beat that finds the last count older counts it and stores it,
/// the others read it (see `HEARTBEAT`). Shorter than a node's beat, so that one node
/// alone still counts at each of its beats.
const ONLINE_COUNT_EVERY: Duration = Duration::from_millis(1_500);
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
    /// Every partition on one server (not a cluster): a join is one call (`JOIN_ONE`).
    one_server: bool,
}

/// Rooms of one partition whose streams the archive reads in one pipeline: the rooms of a
/// share of a partition at a few thousand users, and a reply of at most this many times
/// the archive's messages per room when it catches up.
const ARCHIVE_CHUNK: usize = 32;

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
        let one_server = config.server.is_centralized();
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
            probes: Arc::new(Probes::new(one_server)),
        };
        tokio::spawn(resubscribe(bus.clone()));
        tokio::spawn(probe(client.clone(), bus.clone()));
        let scripts = Scripts::new(&layout.anchors);
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
            one_server,
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

    /// Whether any partition holds the key `<anchor><suffix>` (a list of rooms or users
    /// that is empty most of the time on an idle service). On one server, one `EXISTS` of
    /// all the partitions' keys answers it, so that a periodic job asks Redis one command
    /// when there is nothing to do, not one a partition; a cluster's partitions sit on
    /// different slots, which one command cannot span, so there the answer is yes and the
    /// job reads each partition.
    async fn any_partition_has(&self, suffix: &str) -> Result<bool, EngineError> {
        if !self.one_server {
            return Ok(true);
        }
        let keys: Vec<String> = self
            .layout
            .anchors
            .iter()
            .map(|anchor| format!("{anchor}{suffix}"))
            .collect();
        let present: u64 = self.client.exists(keys).await?;
        Ok(present > 0)
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

    /// The last step of a match or a pair's seat: `room` made in its partition, with its
    /// members (`members_json`, in the order of `room.members`) and their sockets from
    /// their seats, and both told of it (its `bus::MATCHED` event), in one script.
    async fn create_room(
        &self,
        room: &Room,
        members_json: [String; 2],
        asked: bool,
        sockets_a: Vec<String>,
        sockets_b: Vec<String>,
    ) -> Result<(), EngineError> {
        let [a, b] = &room.members;
        let [json_a, json_b] = members_json;
        let mut args = vec![
            room.id.clone(),
            json_a,
            json_b,
            a.user_id.to_string(),
            b.user_id.to_string(),
            room.word.clone(),
            room.round.to_string(),
            room.created_ms.to_string(),
            events::matched(room, asked),
            sockets_a.len().to_string(),
        ];
        args.extend(sockets_a);
        args.extend(sockets_b);
        let _: i64 = self
            .run(&self.scripts.create_room, self.layout.of(&room.id), args)
            .await?;
        Ok(())
    }

    /// Clears a user's record of sitting in `room_id` since `since` (a join's answer, in
    /// ms) if it is stale: the room ended, or it was never made and will not be. Whether
    /// it was (the join may be tried again).
    async fn clear_stale_seat(
        &self,
        user_id: i64,
        room_id: &str,
        since: &str,
        now_ms: i64,
    ) -> Result<bool, EngineError> {
        let since_ms: i64 = since.parse().unwrap_or(0);
        let stale = match self.room(room_id).await? {
            Some(room) => room.ended_ms.is_some(),
            None => now_ms - since_ms > ROOM_MAKING,
        };
        if stale {
            self.leave_room(user_id, room_id).await?;
        }
        Ok(stale)
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

impl RedisEngine {
    /// A join on one server: every step of [`Engine::join`] in one call (`JOIN_ONE`), the
    /// room's event written up to the waiter, whom only the call learns. A seat found
    /// stale is cleared and the join tried once more.
    #[allow(clippy::too_many_arguments)]
    async fn join_in_one(
        &self,
        round: i64,
        word: &str,
        member: &Member,
        apart: &[i64],
        room_id: &str,
        now_ms: i64,
        waiting: &str,
    ) -> Result<JoinOutcome, EngineError> {
        let me = member.user_id;
        let queue = format!("{round}:{word}");
        let token = random_token();
        let apart = apart_list(apart);
        let member_json =
            serde_json::to_string(member).map_err(|e| EngineError::Protocol(e.to_string()))?;
        // The waiter's place is the script's to fill.
        let template = Room {
            id: room_id.to_owned(),
            word: word.to_owned(),
            round,
            members: [member.clone(), member.clone()],
            created_ms: now_ms,
            ended_ms: None,
        };
        let args = vec![
            me.to_string(),
            queue.clone(),
            token.clone(),
            waiting.to_owned(),
            format!("{me}|{token}|{apart}|{member_json}"),
            apart,
            round.to_string(),
            room_id.to_owned(),
            now_ms.to_string(),
            member_json,
            word.to_owned(),
            (partition_of(&queue) + 1).to_string(),
            (partition_of(room_id) + 1).to_string(),
            events::matched_before_first(&template, false),
        ];
        let mut repaired = false;
        loop {
            let reply: Vec<String> = self
                .run(&self.scripts.join_one, self.layout.user(me), args.clone())
                .await?;
            match reply.as_slice() {
                [kind] if kind == "waiting" => return Ok(JoinOutcome::Waiting),
                [kind, waiter] if kind == "matched" => {
                    let [_, me] = template.members;
                    return Ok(JoinOutcome::Matched(Room {
                        members: [member_from(waiter)?, me],
                        ..template
                    }));
                }
                [kind, room, since] if kind == "in_room" => {
                    if repaired || !self.clear_stale_seat(me, room, since, now_ms).await? {
                        return Ok(JoinOutcome::AlreadyInRoom(room.clone()));
                    }
                    repaired = true;
                }
                other => return Err(EngineError::Protocol(format!("join returned {other:?}"))),
            }
        }
    }
}

/// The users a joiner is kept apart from, as queue entries and the scripts hold them:
/// `,1,2,`, or empty.
fn apart_list(apart: &[i64]) -> String {
    if apart.is_empty() {
        return String::new();
    }
    let ids: Vec<String> = apart.iter().map(i64::to_string).collect();
    format!(",{},", ids.join(","))
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
        waiting: &str,
    ) -> Result<JoinOutcome, EngineError> {
        if self.one_server {
            return self
                .join_in_one(round, word, member, apart, room_id, now_ms, waiting)
                .await;
        }
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
                        waiting.to_owned(),
                    ],
                )
                .await?;
            match reply.as_slice() {
                [kind, instances @ ..] if kind == "go" => break instances.to_vec(),
                [kind] if kind == "waiting" => return Ok(JoinOutcome::Waiting),
                [kind, room, since] if kind == "in_room" => {
                    if repaired || !self.clear_stale_seat(me, room, since, now_ms).await? {
                        return Ok(JoinOutcome::AlreadyInRoom(room.clone()));
                    }
                    repaired = true;
                }
                other => return Err(EngineError::Protocol(format!("join returned {other:?}"))),
            }
        };
        let apart = apart_list(apart);
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
            waiting.to_owned(),
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
            self.create_room(
                &room,
                [waiter.member.to_owned(), member_json.clone()],
                false,
                waiter_sockets,
                my_sockets,
            )
            .await?;
            return Ok(JoinOutcome::Matched(room));
        }
        Err(EngineError::Protocol(format!(
            "join found {TAKE_TRIES} unusable waiters in a row on {queue}"
        )))
    }

    async fn seat_pair(
        &self,
        round: i64,
        word: &str,
        members: [&Member; 2],
        room_id: &str,
        now_ms: i64,
    ) -> Result<Option<Room>, EngineError> {
        let seat = |user: i64| async move {
            let reply: Vec<String> = self
                .run(
                    &self.scripts.seat,
                    self.layout.user(user),
                    vec![user.to_string(), room_id.to_owned(), now_ms.to_string()],
                )
                .await?;
            Ok::<_, EngineError>(match reply.as_slice() {
                [seated, token, queue, sockets @ ..] if seated == "1" => {
                    Some((token.clone(), queue.clone(), sockets.to_vec()))
                }
                _ => None,
            })
        };
        let [a, b] = members;
        let Some((token, queue, sockets_a)) = seat(a.user_id).await? else {
            return Ok(None);
        };
        let Some((_, _, sockets_b)) = seat(b.user_id).await? else {
            // The first waits again as it did, or just sits nowhere.
            if token.is_empty() {
                self.leave_room(a.user_id, room_id).await?;
            } else {
                let _: i64 = self
                    .run(
                        &self.scripts.unclaim,
                        self.layout.user(a.user_id),
                        vec![a.user_id.to_string(), token, room_id.to_owned(), queue],
                    )
                    .await?;
            }
            return Ok(None);
        };
        let room = Room {
            id: room_id.to_owned(),
            word: word.to_owned(),
            round,
            members: [a.clone(), b.clone()],
            created_ms: now_ms,
            ended_ms: None,
        };
        let json =
            |m: &Member| serde_json::to_string(m).map_err(|e| EngineError::Protocol(e.to_string()));
        self.create_room(&room, [json(a)?, json(b)?], true, sockets_a, sockets_b)
            .await?;
        Ok(Some(room))
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

    async fn picks(&self, round: i64, words: &[&str]) -> Result<Vec<u64>, EngineError> {
        try_join_all(words.iter().map(|word| async move {
            let queue = format!("{round}:{word}");
            let picked = format!("{}pk:{queue}", self.layout.of(&queue));
            Ok::<u64, EngineError>(self.client.scard(picked).await?)
        }))
        .await
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
                format!(
                    "{}{}",
                    crate::bus::head(&[a.user_id, b.user_id]),
                    frame.head
                ),
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
                crate::bus::head(&[partner.user_id]),
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

    /// Plain commands, pipelined: every partition's list, then per partition with rooms its
    /// marks, then the streams and records of the share's rooms, a chunk at a time. Not a script: a script's reply of
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
        if !self.any_partition_has("archive").await? {
            return Ok(backlog);
        }
        // Every partition's list in one go: most are empty most of the time.
        let pipe = self.client.pipeline();
        for anchor in &self.layout.anchors {
            let () = pipe.smembers(format!("{anchor}archive")).await?;
        }
        let lists: Vec<Vec<String>> = pipe.all().await?;
        for (anchor, mut rooms) in self.layout.anchors.iter().zip(lists) {
            if rooms.is_empty() {
                continue;
            }
            let pipe = self.client.pipeline();
            let () = pipe.hgetall(format!("{anchor}archived")).await?;
            let () = pipe.hgetall(format!("{anchor}resting")).await?;
            let (mut marks, resting): (HashMap<String, String>, HashMap<String, i64>) =
                pipe.all().await?;
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
            .spublish(
                self.layout.everyone.clone(),
                format!("{}{frame}", crate::bus::head(&[])),
            )
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
                    duration_ms(ONLINE_COUNT_EVERY).to_string(),
                ],
            )
            .await?;
        match reply.split_first() {
            Some((head, rest)) if head == "1" && !rest.is_empty() => {
                let (counted, dead) = rest.split_at(1);
                let dead: Vec<(String, String)> = dead
                    .chunks_exact(2)
                    .map(|pair| (pair[0].clone(), pair[1].clone()))
                    .collect();
                self.reap(&dead).await?;
                let online = match counted[0].parse::<i64>() {
                    // This beat counts for every node (a reaping forgot an instance, so
                    // the count after it is counted afresh).
                    Ok(n) if n >= 0 && dead.is_empty() => u64::try_from(n).unwrap_or(0),
                    _ => {
                        let online = self.online_count().await?;
                        let () = self
                            .client
                            .hset(format!("{}counted", self.layout.anchor(0)), ("n", online))
                            .await?;
                        online
                    }
                };
                Ok(Heartbeat {
                    online,
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

    /// The script only in the partitions where someone is due: the sweep runs every few
    /// seconds, and mostly finds nobody, which a plain look (pipelined) tells for less
    /// than a script.
    async fn gone_before(&self, cutoff_ms: i64) -> Result<Vec<Gone>, EngineError> {
        if !self.any_partition_has("away").await? {
            return Ok(Vec::new());
        }
        let pipe = self.client.pipeline();
        for anchor in &self.layout.anchors {
            let () = pipe
                .zrangebyscore(
                    format!("{anchor}away"),
                    "-inf",
                    cutoff_ms,
                    false,
                    Some((0, 1)),
                )
                .await?;
        }
        let due: Vec<Vec<String>> = pipe.all().await?;
        let args = due
            .iter()
            .map(|first| {
                if first.is_empty() {
                    Vec::new()
                } else {
                    vec![cutoff_ms.to_string()]
                }
            })
            .collect();
        let flats: Vec<Vec<String>> = self.in_partitions(&self.scripts.gone_before, args).await?;
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
