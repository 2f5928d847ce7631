use std::collections::HashMap;
use std::time::Duration;

use async_trait::async_trait;
use fred::clients::SubscriberClient;
use fred::prelude::*;
use fred::types::config::Server;
use fred::types::scripts::Script;
use fred::types::Message;
use tokio::sync::broadcast;

use crate::{
    decode_event, duration_ms, millis, presence_ttl_ms, Engine, EngineError, Gone, Heartbeat, Hit,
    Inbox, InboxKind, JoinOutcome, Member, MessageFrame, Received, Room, StreamEntry, STREAM_MAX,
};

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

/// Helpers every script starts with. `P` is the key prefix (always `ARGV[1]`).
///
/// Routing: `loc:<user>` is a hash of node instance → that user's sockets there;
/// `route` publishes a frame once per node instance that holds any of the users, as
/// `"<user,user,…>\n<frame>"` on `bus:<instance>`. `gone` is what happens when a user's
/// last socket on an instance goes: the user leaves `online` when no instance holds them,
/// stops waiting for a match, and is noted away (the first note wins).
///
/// The scripts touch keys they compute from `P`, so they need one Redis server (or a
/// Redis Cluster with every key of a deployment in one slot), not a sharded cluster.
const PRELUDE: &str = r"
local P = ARGV[1]
local function route(users, frame)
  local by, order = {}, {}
  for _, u in ipairs(users) do
    for _, n in ipairs(redis.call('HKEYS', P .. 'loc:' .. u)) do
      if not by[n] then by[n] = {}; order[#order + 1] = n end
      local list = by[n]
      list[#list + 1] = u
    end
  end
  for _, n in ipairs(order) do
    redis.call('PUBLISH', P .. 'bus:' .. n, table.concat(by[n], ',') .. '\n' .. frame)
  end
end
local function gone(u, node, since)
  redis.call('HDEL', P .. 'loc:' .. u, node)
  redis.call('SREM', P .. 'nu:' .. node, u)
  if redis.call('EXISTS', P .. 'loc:' .. u) == 0 then
    redis.call('SREM', P .. 'online', u)
    redis.call('ZADD', P .. 'away', 'NX', since, u)
    local ukey = P .. 'u:' .. u
    local q = redis.call('HGET', ukey, 'queue')
    if q then
      redis.call('LREM', q, 0, u)
      redis.call('HDEL', ukey, 'queue', 'member')
    end
  end
end
local function reap(node, since)
  for _, u in ipairs(redis.call('SMEMBERS', P .. 'nu:' .. node)) do gone(u, node, since) end
  redis.call('DEL', P .. 'nu:' .. node)
  redis.call('ZREM', P .. 'nodes', node)
end
";

/// INCR and the window's expiry in one step, so two nodes never both start a window.
/// ARGV: prefix, key, window ms.
const HIT: &str = r"
local key = P .. ARGV[2]
local n = redis.call('INCR', key)
local ttl = redis.call('PTTL', key)
if ttl < 0 then
  redis.call('PEXPIRE', key, ARGV[3])
  ttl = tonumber(ARGV[3])
end
return {n, ttl}
";

/// Takes back one counted event; a count taken back to zero ends its window. A window that
/// ended has expired with its key, so nothing reaches into the next one.
/// ARGV: prefix, key.
const REFUND: &str = r"
local key = P .. ARGV[2]
local n = tonumber(redis.call('GET', key) or '0')
if n > 1 then
  redis.call('DECR', key)
elseif n == 1 then
  redis.call('DEL', key)
end
return 0
";

/// Takes the next turn on air (see `Engine::take_air`): -1 when it would start more than
/// the wait allowed after now. The key outlives the last turn by a minute. A last turn
/// ending further ahead than a wait and a turn means the clock went back: the air is free.
/// ARGV: prefix, now ms, length ms, max wait ms.
const TAKE_AIR: &str = r"
local key = P .. 'air'
local now, length, wait = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local last = tonumber(redis.call('GET', key) or '0')
if last - now > wait + length then
  last = now
end
local start = math.max(now, last)
if start - now > wait then
  return -1
end
redis.call('SET', key, start + length, 'PX', start + length - now + 60000)
return start
";

/// ARGV: prefix, user id, member JSON, room id, now ms, round, word, frame for a waiter,
/// the users kept apart from this one as `,id,id,` (or empty).
/// The match and both users' states change in one step; a new room is also put on the
/// archive list, so that it is archived (and its end recorded) even without messages.
/// A waiter kept apart from the joiner (by either's list) is passed over and keeps its
/// place at the head of the queue.
const JOIN: &str = r"
local me, member, room_id, now, round, word = ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7]
local apart = ARGV[9]
local ukey = P .. 'u:' .. me
local qkey = P .. 'q:' .. round .. ':' .. word
local room = redis.call('HGET', ukey, 'room')
if room then return {'in_room', room} end
local waiting = redis.call('HGET', ukey, 'queue')
if waiting == qkey then
  route({me}, ARGV[8])
  return {'waiting'}
end
if waiting then
  redis.call('LREM', waiting, 0, me)
  redis.call('HDEL', ukey, 'queue', 'member')
end
local passed, found = {}, nil
while true do
  local partner = redis.call('LPOP', qkey)
  if not partner then break end
  local pkey = P .. 'u:' .. partner
  if partner ~= me and redis.call('HGET', pkey, 'queue') == qkey then
    local theirs = redis.call('HGET', pkey, 'apart') or ''
    if string.find(apart, ',' .. partner .. ',', 1, true)
        or string.find(theirs, ',' .. me .. ',', 1, true) then
      passed[#passed + 1] = partner
    else
      found = partner
      break
    end
  end
end
for i = #passed, 1, -1 do redis.call('LPUSH', qkey, passed[i]) end
if found then
  local pkey = P .. 'u:' .. found
  local pm = redis.call('HGET', pkey, 'member')
  redis.call('HDEL', pkey, 'queue', 'member', 'apart')
  redis.call('HSET', pkey, 'room', room_id)
  redis.call('HSET', ukey, 'room', room_id)
  redis.call('HSET', P .. 'room:' .. room_id, 'a', pm, 'b', member, 'ua', found, 'ub', me,
    'word', word, 'round', round, 'created', now, 'ended', '0')
  redis.call('SADD', P .. 'archive', room_id)
  return {'matched', pm}
end
redis.call('RPUSH', qkey, me)
redis.call('EXPIRE', qkey, 900)
redis.call('HSET', ukey, 'queue', qkey, 'member', member, 'apart', apart)
local rq = P .. 'rq:' .. round
redis.call('SADD', rq, qkey)
redis.call('EXPIRE', rq, 900)
route({me}, ARGV[8])
return {'waiting'}
";

/// ARGV: prefix, user id.
const CANCEL: &str = r"
local ukey = P .. 'u:' .. ARGV[2]
local q = redis.call('HGET', ukey, 'queue')
if not q then return 0 end
redis.call('LREM', q, 0, ARGV[2])
redis.call('HDEL', ukey, 'queue', 'member')
return 1
";

/// ARGV: prefix, round, frame for the released waiters.
const EXPIRE_ROUND: &str = r"
local rq = P .. 'rq:' .. ARGV[2]
local users = {}
for _, q in ipairs(redis.call('SMEMBERS', rq)) do
  for _, uid in ipairs(redis.call('LRANGE', q, 0, -1)) do
    local ukey = P .. 'u:' .. uid
    if redis.call('HGET', ukey, 'queue') == q then
      redis.call('HDEL', ukey, 'queue', 'member')
      table.insert(users, uid)
    end
  end
  redis.call('DEL', q)
end
redis.call('DEL', rq)
route(users, ARGV[3])
return users
";

/// ARGV: prefix, room id, now ms, member or ''. Answers the room's fields when this call
/// ended it.
const END_ROOM: &str = r"
local rk = P .. 'room:' .. ARGV[2]
local r = redis.call('HMGET', rk, 'ended', 'ua', 'ub')
if r[1] ~= '0' then return false end
if ARGV[4] ~= '' and r[2] ~= ARGV[4] and r[3] ~= ARGV[4] then return false end
redis.call('HSET', rk, 'ended', ARGV[3])
redis.call('EXPIRE', rk, 86400)
for _, u in ipairs({r[2], r[3]}) do
  local ukey = P .. 'u:' .. u
  if redis.call('HGET', ukey, 'room') == ARGV[2] then redis.call('HDEL', ukey, 'room') end
end
return redis.call('HGETALL', rk)
";

/// ARGV: prefix, room id, sender, stream max length, stored data, frame head, frame tail,
/// client id or ''. `room:<id>:c` maps the client ids of the room's messages (prefixed
/// with the sender) to their stream ids, so a retry is echoed, not appended again.
const SEND: &str = r"
local rk = P .. 'room:' .. ARGV[2]
local r = redis.call('HMGET', rk, 'ended', 'ua', 'ub')
if r[2] ~= ARGV[3] and r[3] ~= ARGV[3] then return false end
local ck, cid = rk .. ':c', ARGV[8]
if cid ~= '' then
  cid = ARGV[3] .. ':' .. cid
  local seen = redis.call('HGET', ck, cid)
  if seen then
    route({ARGV[3]}, ARGV[6] .. seen .. ARGV[7])
    return seen
  end
end
if r[1] ~= '0' then return false end
local id = redis.call('XADD', rk .. ':s', 'MAXLEN', '~', ARGV[4], '*', 'd', ARGV[5])
if cid ~= '' then redis.call('HSET', ck, cid, id) end
route({r[2], r[3]}, ARGV[6] .. id .. ARGV[7])
return id
";

/// ARGV: prefix, room id, sender, frame.
const RELAY: &str = r"
local r = redis.call('HMGET', P .. 'room:' .. ARGV[2], 'ended', 'ua', 'ub')
if r[1] ~= '0' then return 0 end
local partner
if r[2] == ARGV[3] then partner = r[3] elseif r[3] == ARGV[3] then partner = r[2] else return 0 end
route({partner}, ARGV[4])
return 1
";

/// ARGV: prefix, then pairs of user and frame.
const DELIVER_EACH: &str = r"
for i = 2, #ARGV - 1, 2 do route({ARGV[i]}, ARGV[i + 1]) end
return 1
";

/// ARGV: prefix, frame, users...
const DELIVER: &str = r"
local users = {}
for i = 3, #ARGV do users[#users + 1] = ARGV[i] end
route(users, ARGV[2])
return 1
";

/// ARGV: prefix, stream key, start (inclusive `-` or exclusive `(id`), count.
const READ: &str = r"
local out = {}
for _, e in ipairs(redis.call('XRANGE', P .. ARGV[2], ARGV[3], '+', 'COUNT', ARGV[4])) do
  table.insert(out, e[1])
  table.insert(out, e[2][2])
end
return out
";

/// ARGV: prefix, node instance, user. 0 when the instance is not live (given up for dead).
const ATTACH: &str = r"
if not redis.call('ZSCORE', P .. 'nodes', ARGV[2]) then return 0 end
if redis.call('HINCRBY', P .. 'loc:' .. ARGV[3], ARGV[2], 1) == 1 then
  redis.call('SADD', P .. 'nu:' .. ARGV[2], ARGV[3])
  redis.call('SADD', P .. 'online', ARGV[3])
  redis.call('ZREM', P .. 'away', ARGV[3])
end
return 1
";

/// ARGV: prefix, node instance, user, now ms. A dead instance's users were reaped already.
const DETACH: &str = r"
if not redis.call('ZSCORE', P .. 'nodes', ARGV[2]) then return 0 end
if redis.call('HINCRBY', P .. 'loc:' .. ARGV[3], ARGV[2], -1) <= 0 then
  gone(ARGV[3], ARGV[2], ARGV[4])
end
return 1
";

/// ARGV: prefix, node instance, now ms, ttl ms, '1' for the instance's first beat.
/// Answers {1, online} or {-1, 0} when the instance had been given up for dead.
const HEARTBEAT: &str = r"
local nodes = P .. 'nodes'
if ARGV[5] ~= '1' and not redis.call('ZSCORE', nodes, ARGV[2]) then return {-1, 0} end
redis.call('ZADD', nodes, ARGV[3], ARGV[2])
local dead = redis.call('ZRANGEBYSCORE', nodes, '-inf', tonumber(ARGV[3]) - tonumber(ARGV[4]), 'WITHSCORES')
for i = 1, #dead, 2 do reap(dead[i], dead[i + 1]) end
return {1, redis.call('SCARD', P .. 'online')}
";

/// ARGV: prefix, node instance, now ms.
const LEAVE: &str = r"
reap(ARGV[2], ARGV[3])
return 1
";

/// ARGV: prefix, cutoff ms. Flat pairs of user and room.
const GONE_BEFORE: &str = r"
local out = {}
local away = P .. 'away'
for _, u in ipairs(redis.call('ZRANGEBYSCORE', away, '-inf', ARGV[2], 'LIMIT', 0, 1000)) do
  redis.call('ZREM', away, u)
  local room = redis.call('HGET', P .. 'u:' .. u, 'room')
  if room then
    out[#out + 1] = u
    out[#out + 1] = room
  end
end
return out
";

/// ARGV: prefix.
const TIME: &str = "return redis.call('TIME')";

/// Every script, loaded once and run by SHA (`EVALSHA`, reloaded after a Redis restart).
struct Scripts {
    hit: Script,
    refund: Script,
    take_air: Script,
    join: Script,
    cancel: Script,
    expire_round: Script,
    end_room: Script,
    send: Script,
    relay: Script,
    deliver: Script,
    deliver_each: Script,
    read: Script,
    attach: Script,
    detach: Script,
    heartbeat: Script,
    leave: Script,
    gone_before: Script,
    time: Script,
}

impl Scripts {
    fn new() -> Self {
        let s = |body: &str| Script::from_lua(format!("{PRELUDE}{body}"));
        Self {
            hit: s(HIT),
            refund: s(REFUND),
            take_air: s(TAKE_AIR),
            join: s(JOIN),
            cancel: s(CANCEL),
            expire_round: s(EXPIRE_ROUND),
            end_room: s(END_ROOM),
            send: s(SEND),
            relay: s(RELAY),
            deliver: s(DELIVER),
            deliver_each: s(DELIVER_EACH),
            read: s(READ),
            attach: s(ATTACH),
            detach: s(DETACH),
            heartbeat: s(HEARTBEAT),
            leave: s(LEAVE),
            gone_before: s(GONE_BEFORE),
            time: s(TIME),
        }
    }

    fn all(&self) -> [&Script; 18] {
        [
            &self.hit,
            &self.refund,
            &self.take_air,
            &self.join,
            &self.cancel,
            &self.expire_round,
            &self.end_room,
            &self.send,
            &self.relay,
            &self.deliver,
            &self.deliver_each,
            &self.read,
            &self.attach,
            &self.detach,
            &self.heartbeat,
            &self.leave,
            &self.gone_before,
            &self.time,
        ]
    }
}

/// The engine of a cluster: state shared through one Redis server.
pub struct RedisEngine {
    client: Client,
    subscriber: SubscriberClient,
    scripts: Scripts,
    prefix: String,
}

/// A node instance's inbox over Redis pub/sub: fred hands every message of the
/// subscriber's channels to a broadcast channel, of which this inbox takes its own
/// channel's and the everyone channel's; a lagging reader or a reconnection is a gap.
/// Dropping it ends the subscription.
pub(crate) struct RedisInbox {
    messages: broadcast::Receiver<Message>,
    reconnects: broadcast::Receiver<Server>,
    subscriber: SubscriberClient,
    channel: String,
    everyone: String,
}

impl Drop for RedisInbox {
    fn drop(&mut self) {
        let (subscriber, channel) = (self.subscriber.clone(), self.channel.clone());
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                if let Err(e) = subscriber.unsubscribe(channel).await {
                    tracing::warn!(error = %e, "leaving a bus channel");
                }
            });
        }
    }
}

impl RedisInbox {
    pub(crate) async fn recv(&mut self) -> Option<Received> {
        loop {
            tokio::select! {
                biased;
                next = self.messages.recv() => match next {
                    Ok(message) if message.channel != self.channel && message.channel != self.everyone => {}
                    Ok(message) => {
                        let decoded = message.value.as_str().and_then(|text| decode_event(&text));
                        match decoded {
                            Some(event) => return Some(Received::Event(event)),
                            None => tracing::warn!(channel = %message.channel, "an unreadable event on the bus"),
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(_)) => return Some(Received::Gap),
                    Err(broadcast::error::RecvError::Closed) => return None,
                },
                next = self.reconnects.recv() => match next {
                    // Events published while the subscriber was away are lost.
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => return Some(Received::Gap),
                    Err(broadcast::error::RecvError::Closed) => return None,
                },
            }
        }
    }
}

impl RedisEngine {
    /// Connects to `url` (`redis://host:port/db`). Every key and channel is put under
    /// `prefix`, so several deployments or test runs can share one server.
    pub async fn connect(url: &str, prefix: &str) -> Result<Self, EngineError> {
        let config = Config::from_url(url)?;
        let mut builder = Builder::from_config(config);
        builder
            .with_connection_config(|c| {
                c.connection_timeout = CALL_TIMEOUT;
                c.internal_command_timeout = CALL_TIMEOUT;
                c.max_command_buffer_len = COMMAND_QUEUE;
            })
            .with_performance_config(|p| p.default_command_timeout = CALL_TIMEOUT)
            .set_policy(ReconnectPolicy::new_exponential(0, 100, 5_000, 2));
        let client = builder.build()?;
        client.init().await?;
        builder.with_performance_config(|p| p.broadcast_channel_capacity = INBOX_CAPACITY);
        let subscriber = builder.build_subscriber_client()?;
        subscriber.init().await?;
        let _resubscribe = subscriber.manage_subscriptions();
        let scripts = Scripts::new();
        for script in scripts.all() {
            script.load(&client).await?;
        }
        Ok(Self {
            client,
            subscriber,
            scripts,
            prefix: prefix.to_owned(),
        })
    }

    fn key(&self, key: &str) -> String {
        format!("{}{}", self.prefix, key)
    }

    fn bus(&self, instance: &str) -> String {
        self.key(&format!("bus:{instance}"))
    }

    /// The channel every node listens on besides its own.
    fn everyone(&self) -> String {
        self.key("bus*")
    }

    async fn run<R: FromValue>(
        &self,
        script: &Script,
        args: Vec<String>,
    ) -> Result<R, EngineError> {
        let mut all = Vec::with_capacity(args.len() + 1);
        all.push(self.prefix.clone());
        all.extend(args);
        Ok(script
            .evalsha_with_reload(&self.client, Vec::<String>::new(), all)
            .await?)
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

#[async_trait]
impl Engine for RedisEngine {
    fn name(&self) -> &'static str {
        "redis"
    }

    async fn ping(&self) -> Result<(), EngineError> {
        let _: String = self.client.ping(None).await?;
        Ok(())
    }

    async fn now_ms(&self) -> Result<i64, EngineError> {
        let reply: Vec<String> = self.run(&self.scripts.time, vec![]).await?;
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
                vec![key.to_owned(), duration_ms(window).to_string()],
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

    async fn refund(&self, key: &str) -> Result<(), EngineError> {
        let _: i64 = self.run(&self.scripts.refund, vec![key.to_owned()]).await?;
        Ok(())
    }

    async fn clear(&self, key: &str) -> Result<(), EngineError> {
        let _: i64 = self.client.del(self.key(key)).await?;
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
                vec![
                    now_ms.to_string(),
                    millis(length).to_string(),
                    millis(max_wait).to_string(),
                ],
            )
            .await?;
        Ok((start >= 0).then_some(start))
    }

    async fn join(
        &self,
        round: i64,
        word: &str,
        member: &Member,
        apart: &[i64],
        room_id: &str,
        now_ms: i64,
        waiting_frame: &str,
    ) -> Result<JoinOutcome, EngineError> {
        let apart = if apart.is_empty() {
            String::new()
        } else {
            let ids: Vec<String> = apart.iter().map(i64::to_string).collect();
            format!(",{},", ids.join(","))
        };
        let member_json =
            serde_json::to_string(member).map_err(|e| EngineError::Protocol(e.to_string()))?;
        let reply: Vec<String> = self
            .run(
                &self.scripts.join,
                vec![
                    member.user_id.to_string(),
                    member_json,
                    room_id.to_owned(),
                    now_ms.to_string(),
                    round.to_string(),
                    word.to_owned(),
                    waiting_frame.to_owned(),
                    apart,
                ],
            )
            .await?;
        match reply.as_slice() {
            [kind] if kind == "waiting" => Ok(JoinOutcome::Waiting),
            [kind, room] if kind == "in_room" => Ok(JoinOutcome::AlreadyInRoom(room.clone())),
            [kind, partner] if kind == "matched" => Ok(JoinOutcome::Matched(Room {
                id: room_id.to_owned(),
                word: word.to_owned(),
                round,
                members: [member_from(partner)?, member.clone()],
                created_ms: now_ms,
                ended_ms: None,
            })),
            other => Err(EngineError::Protocol(format!("join returned {other:?}"))),
        }
    }

    async fn cancel_wait(&self, user_id: i64) -> Result<bool, EngineError> {
        let n: i64 = self
            .run(&self.scripts.cancel, vec![user_id.to_string()])
            .await?;
        Ok(n == 1)
    }

    async fn expire_round(&self, round: i64, frame: &str) -> Result<Vec<i64>, EngineError> {
        let users: Vec<String> = self
            .run(
                &self.scripts.expire_round,
                vec![round.to_string(), frame.to_owned()],
            )
            .await?;
        Ok(users.iter().filter_map(|u| u.parse().ok()).collect())
    }

    async fn room_of(&self, user_id: i64) -> Result<Option<Room>, EngineError> {
        let room: Option<String> = self
            .client
            .hget(self.key(&format!("u:{user_id}")), "room")
            .await?;
        match room {
            Some(id) => self.room(&id).await,
            None => Ok(None),
        }
    }

    async fn room(&self, room_id: &str) -> Result<Option<Room>, EngineError> {
        let fields: HashMap<String, String> = self
            .client
            .hgetall(self.key(&format!("room:{room_id}")))
            .await?;
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
    ) -> Result<Option<Room>, EngineError> {
        let fields: Option<HashMap<String, String>> = self
            .run(
                &self.scripts.end_room,
                vec![
                    room_id.to_owned(),
                    now_ms.to_string(),
                    member.map(|m| m.to_string()).unwrap_or_default(),
                ],
            )
            .await?;
        match fields {
            Some(fields) if !fields.is_empty() => room_from(room_id, &fields).map(Some),
            _ => Ok(None),
        }
    }

    async fn send(
        &self,
        room_id: &str,
        sender: i64,
        client_id: Option<&str>,
        data: &str,
        frame: &MessageFrame<'_>,
    ) -> Result<Option<String>, EngineError> {
        self.run(
            &self.scripts.send,
            vec![
                room_id.to_owned(),
                sender.to_string(),
                STREAM_MAX.to_string(),
                data.to_owned(),
                frame.head.to_owned(),
                frame.tail.to_owned(),
                client_id.unwrap_or_default().to_owned(),
            ],
        )
        .await
    }

    async fn relay(&self, room_id: &str, sender: i64, frame: &str) -> Result<bool, EngineError> {
        let sent: i64 = self
            .run(
                &self.scripts.relay,
                vec![room_id.to_owned(), sender.to_string(), frame.to_owned()],
            )
            .await?;
        Ok(sent == 1)
    }

    async fn read_after(
        &self,
        room_id: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<StreamEntry>, EngineError> {
        let start = after.map_or_else(|| "-".to_owned(), |id| format!("({id}"));
        let flat: Vec<String> = self
            .run(
                &self.scripts.read,
                vec![format!("room:{room_id}:s"), start, limit.to_string()],
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

    async fn rooms_to_archive(&self) -> Result<Vec<String>, EngineError> {
        Ok(self.client.smembers(self.key("archive")).await?)
    }

    async fn archived_upto(&self, room_id: &str) -> Result<Option<String>, EngineError> {
        Ok(self.client.hget(self.key("archived"), room_id).await?)
    }

    async fn set_archived(&self, room_id: &str, id: &str, done: bool) -> Result<(), EngineError> {
        if done {
            let _: i64 = self.client.srem(self.key("archive"), room_id).await?;
            let _: i64 = self.client.hdel(self.key("archived"), room_id).await?;
            let _: i64 = self
                .client
                .del(vec![
                    self.key(&format!("room:{room_id}:s")),
                    self.key(&format!("room:{room_id}:c")),
                ])
                .await?;
        } else {
            let _: i64 = self
                .client
                .hset(self.key("archived"), (room_id, id))
                .await?;
        }
        Ok(())
    }

    async fn inbox(&self, instance: &str) -> Result<Inbox, EngineError> {
        // Receivers first, so nothing published after the subscription is missed.
        let messages = self.subscriber.message_rx();
        let reconnects = self.subscriber.reconnect_rx();
        let channel = self.bus(instance);
        self.subscriber
            .subscribe(vec![channel.clone(), self.everyone()])
            .await?;
        Ok(Inbox {
            kind: InboxKind::Redis(RedisInbox {
                messages,
                reconnects,
                subscriber: self.subscriber.clone(),
                channel,
                everyone: self.everyone(),
            }),
        })
    }

    async fn deliver(&self, to: &[i64], frame: &str) -> Result<(), EngineError> {
        if to.is_empty() {
            return Ok(());
        }
        let mut args = Vec::with_capacity(to.len() + 1);
        args.push(frame.to_owned());
        args.extend(to.iter().map(i64::to_string));
        let _: i64 = self.run(&self.scripts.deliver, args).await?;
        Ok(())
    }

    async fn deliver_each(&self, items: &[(i64, &str)]) -> Result<(), EngineError> {
        if items.is_empty() {
            return Ok(());
        }
        let mut args = Vec::with_capacity(items.len() * 2);
        for (user, frame) in items {
            args.push(user.to_string());
            args.push((*frame).to_owned());
        }
        let _: i64 = self.run(&self.scripts.deliver_each, args).await?;
        Ok(())
    }

    async fn broadcast(&self, frame: &str) -> Result<(), EngineError> {
        let _: i64 = self
            .client
            .publish(self.everyone(), format!("\n{frame}"))
            .await?;
        Ok(())
    }

    async fn attach(&self, instance: &str, user_id: i64) -> Result<(), EngineError> {
        let attached: i64 = self
            .run(
                &self.scripts.attach,
                vec![instance.to_owned(), user_id.to_string()],
            )
            .await?;
        if attached == 1 {
            Ok(())
        } else {
            Err(EngineError::Dropped)
        }
    }

    async fn detach(&self, instance: &str, user_id: i64, now_ms: i64) -> Result<(), EngineError> {
        let _: i64 = self
            .run(
                &self.scripts.detach,
                vec![instance.to_owned(), user_id.to_string(), now_ms.to_string()],
            )
            .await?;
        Ok(())
    }

    async fn heartbeat(
        &self,
        instance: &str,
        now_ms: i64,
        first: bool,
    ) -> Result<Heartbeat, EngineError> {
        let reply: Vec<i64> = self
            .run(
                &self.scripts.heartbeat,
                vec![
                    instance.to_owned(),
                    now_ms.to_string(),
                    presence_ttl_ms().to_string(),
                    if first { "1" } else { "0" }.to_owned(),
                ],
            )
            .await?;
        match reply[..] {
            [1, online] => Ok(Heartbeat {
                online: u64::try_from(online).unwrap_or(0),
                was_dropped: false,
            }),
            [-1, _] => Ok(Heartbeat {
                online: 0,
                was_dropped: true,
            }),
            _ => Err(EngineError::Protocol(format!(
                "heartbeat returned {reply:?}"
            ))),
        }
    }

    async fn leave(&self, instance: &str, now_ms: i64) -> Result<(), EngineError> {
        let _: i64 = self
            .run(
                &self.scripts.leave,
                vec![instance.to_owned(), now_ms.to_string()],
            )
            .await?;
        Ok(())
    }

    async fn online_count(&self) -> Result<u64, EngineError> {
        let n: i64 = self.client.scard(self.key("online")).await?;
        Ok(u64::try_from(n).unwrap_or(0))
    }

    async fn gone_before(&self, cutoff_ms: i64) -> Result<Vec<Gone>, EngineError> {
        let flat: Vec<String> = self
            .run(&self.scripts.gone_before, vec![cutoff_ms.to_string()])
            .await?;
        Ok(flat
            .chunks_exact(2)
            .filter_map(|pair| {
                Some(Gone {
                    user_id: pair[0].parse().ok()?,
                    room_id: pair[1].clone(),
                })
            })
            .collect())
    }
}
