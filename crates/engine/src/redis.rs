use std::time::Duration;

use async_trait::async_trait;
use fred::clients::SubscriberClient;
use fred::prelude::*;
use tokio::sync::broadcast;

use crate::{
    duration_ms, presence_ttl_ms, Engine, EngineError, Hit, JoinOutcome, Member, Room, StreamEntry,
    STREAM_MAX,
};

/// The pub/sub channel every node listens on.
const BUS: &str = "bus";

/// INCR and the window's expiry in one step, so two nodes never both start a window.
const HIT: &str = r"
local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {n, ttl}
";

/// KEYS: user hash, queue list, round's set of queues.
/// ARGV: user id, member JSON, room id, now ms, key prefix, round, word, room JSON template
/// parts are assembled here so the match and both users' states change in one step.
const JOIN: &str = r"
local me, member, room_id, now, prefix, round, word = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7]
local room = redis.call('HGET', KEYS[1], 'room')
if room then return {'in_room', room} end
local waiting = redis.call('HGET', KEYS[1], 'queue')
if waiting == KEYS[2] then return {'waiting'} end
if waiting then
  redis.call('LREM', waiting, 0, me)
  redis.call('HDEL', KEYS[1], 'queue', 'member')
end
while true do
  local partner = redis.call('LPOP', KEYS[2])
  if not partner then break end
  local pkey = prefix .. 'u:' .. partner
  if partner ~= me and redis.call('HGET', pkey, 'queue') == KEYS[2] then
    local pm = redis.call('HGET', pkey, 'member')
    redis.call('HDEL', pkey, 'queue', 'member')
    redis.call('HSET', pkey, 'room', room_id)
    redis.call('HSET', KEYS[1], 'room', room_id)
    redis.call('HSET', prefix .. 'room:' .. room_id, 'a', pm, 'b', member, 'ua', partner, 'ub', me,
      'word', word, 'round', round, 'created', now, 'ended', '0')
    redis.call('SADD', prefix .. 'rooms:open', room_id)
    return {'matched', pm}
  end
end
redis.call('RPUSH', KEYS[2], me)
redis.call('EXPIRE', KEYS[2], 900)
redis.call('HSET', KEYS[1], 'queue', KEYS[2], 'member', member)
redis.call('SADD', KEYS[3], KEYS[2])
redis.call('EXPIRE', KEYS[3], 900)
return {'waiting'}
";

/// KEYS: user hash. ARGV: user id.
const CANCEL: &str = r"
local q = redis.call('HGET', KEYS[1], 'queue')
if not q then return 0 end
redis.call('LREM', q, 0, ARGV[1])
redis.call('HDEL', KEYS[1], 'queue', 'member')
return 1
";

/// KEYS: the round's set of queues. ARGV: key prefix.
const EXPIRE_ROUND: &str = r"
local users = {}
for _, q in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  for _, uid in ipairs(redis.call('LRANGE', q, 0, -1)) do
    local ukey = ARGV[1] .. 'u:' .. uid
    if redis.call('HGET', ukey, 'queue') == q then
      redis.call('HDEL', ukey, 'queue', 'member')
      table.insert(users, uid)
    end
  end
  redis.call('DEL', q)
end
redis.call('DEL', KEYS[1])
return users
";

/// KEYS: room hash. ARGV: now ms, key prefix, room id.
const END_ROOM: &str = r"
if redis.call('HGET', KEYS[1], 'ended') ~= '0' then return 0 end
redis.call('HSET', KEYS[1], 'ended', ARGV[1])
redis.call('EXPIRE', KEYS[1], 86400)
redis.call('SREM', ARGV[2] .. 'rooms:open', ARGV[3])
for _, f in ipairs({'ua', 'ub'}) do
  local ukey = ARGV[2] .. 'u:' .. redis.call('HGET', KEYS[1], f)
  if redis.call('HGET', ukey, 'room') == ARGV[3] then redis.call('HDEL', ukey, 'room') end
end
return 1
";

/// KEYS: stream, archive set. ARGV: max length, data, room id.
const APPEND: &str = r"
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'd', ARGV[2])
redis.call('SADD', KEYS[2], ARGV[3])
return id
";

/// KEYS: stream. ARGV: start (inclusive `-` or exclusive `(id`), count.
const READ: &str = r"
local out = {}
for _, e in ipairs(redis.call('XRANGE', KEYS[1], ARGV[1], '+', 'COUNT', ARGV[2])) do
  table.insert(out, e[1])
  table.insert(out, e[2][2])
end
return out
";

/// KEYS: node zset, node's user set. ARGV: node id, now ms, ttl ms, users...
const BEAT: &str = r"
redis.call('DEL', KEYS[2])
for i = 4, #ARGV do redis.call('SADD', KEYS[2], ARGV[i]) end
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return 1
";

/// KEYS: node zset. ARGV: now ms, ttl ms, key prefix, user id or ''.
const ONLINE: &str = r"
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
local keys = {}
for _, node in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  table.insert(keys, ARGV[3] .. 'presence:n:' .. node)
end
if #keys == 0 then return 0 end
if ARGV[4] ~= '' then
  for _, k in ipairs(keys) do
    if redis.call('SISMEMBER', k, ARGV[4]) == 1 then return 1 end
  end
  return 0
end
return #redis.call('SUNION', unpack(keys))
";

/// The engine of a cluster: state shared through one Redis server.
pub struct RedisEngine {
    client: Client,
    _subscriber: SubscriberClient,
    bus: broadcast::Sender<String>,
    prefix: String,
}

impl RedisEngine {
    /// Connects to `url` (`redis://host:port/db`). Every key and the bus channel are put
    /// under `prefix`, so several deployments or test runs can share one server.
    pub async fn connect(url: &str, prefix: &str) -> Result<Self, EngineError> {
        let config = Config::from_url(url)?;
        let builder = {
            let mut b = Builder::from_config(config);
            b.with_connection_config(|c| {
                c.connection_timeout = Duration::from_secs(5);
                c.internal_command_timeout = Duration::from_secs(5);
            })
            .set_policy(ReconnectPolicy::new_exponential(0, 100, 5_000, 2));
            b
        };
        let client = builder.build()?;
        client.init().await?;
        let subscriber = builder.build_subscriber_client()?;
        subscriber.init().await?;
        let channel = format!("{prefix}{BUS}");
        let bus = broadcast::channel(4096).0;
        let mut messages = subscriber.message_rx();
        let forward = bus.clone();
        tokio::spawn(async move {
            loop {
                match messages.recv().await {
                    Ok(message) => {
                        if let Ok(text) = message.value.convert::<String>() {
                            let _ = forward.send(text);
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(n)) => {
                        tracing::warn!(skipped = n, "the event bus fell behind");
                    }
                    Err(broadcast::error::RecvError::Closed) => break,
                }
            }
        });
        let _resubscribe = subscriber.manage_subscriptions();
        subscriber.subscribe(channel).await?;
        Ok(Self {
            client,
            _subscriber: subscriber,
            bus,
            prefix: prefix.to_owned(),
        })
    }

    fn key(&self, key: &str) -> String {
        format!("{}{}", self.prefix, key)
    }

    fn user_key(&self, user_id: i64) -> String {
        self.key(&format!("u:{user_id}"))
    }

    fn room_key(&self, room_id: &str) -> String {
        self.key(&format!("room:{room_id}"))
    }

    async fn eval<R: FromValue>(
        &self,
        script: &str,
        keys: Vec<String>,
        args: Vec<String>,
    ) -> Result<R, EngineError> {
        Ok(self.client.eval(script, keys, args).await?)
    }
}

fn member_from(json: &str) -> Result<Member, EngineError> {
    serde_json::from_str(json).map_err(|e| EngineError::Protocol(format!("member {json}: {e}")))
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
        let reply: Vec<String> = self
            .eval("return redis.call('TIME')", vec![], vec![])
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
            .client
            .eval(HIT, vec![self.key(key)], vec![duration_ms(window)])
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

    async fn clear(&self, key: &str) -> Result<(), EngineError> {
        let _: i64 = self.client.del(self.key(key)).await?;
        Ok(())
    }

    async fn join(
        &self,
        round: i64,
        word: &str,
        member: &Member,
        room_id: &str,
        now_ms: i64,
    ) -> Result<JoinOutcome, EngineError> {
        let member_json =
            serde_json::to_string(member).map_err(|e| EngineError::Protocol(e.to_string()))?;
        let reply: Vec<String> = self
            .eval(
                JOIN,
                vec![
                    self.user_key(member.user_id),
                    self.key(&format!("q:{round}:{word}")),
                    self.key(&format!("rq:{round}")),
                ],
                vec![
                    member.user_id.to_string(),
                    member_json,
                    room_id.to_owned(),
                    now_ms.to_string(),
                    self.prefix.clone(),
                    round.to_string(),
                    word.to_owned(),
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
            .eval(
                CANCEL,
                vec![self.user_key(user_id)],
                vec![user_id.to_string()],
            )
            .await?;
        Ok(n == 1)
    }

    async fn expire_round(&self, round: i64) -> Result<Vec<i64>, EngineError> {
        let users: Vec<String> = self
            .eval(
                EXPIRE_ROUND,
                vec![self.key(&format!("rq:{round}"))],
                vec![self.prefix.clone()],
            )
            .await?;
        Ok(users.iter().filter_map(|u| u.parse().ok()).collect())
    }

    async fn room_of(&self, user_id: i64) -> Result<Option<Room>, EngineError> {
        let room: Option<String> = self.client.hget(self.user_key(user_id), "room").await?;
        match room {
            Some(id) => self.room(&id).await,
            None => Ok(None),
        }
    }

    async fn room(&self, room_id: &str) -> Result<Option<Room>, EngineError> {
        let fields: std::collections::HashMap<String, String> =
            self.client.hgetall(self.room_key(room_id)).await?;
        if fields.is_empty() {
            return Ok(None);
        }
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
        Ok(Some(Room {
            id: room_id.to_owned(),
            word: get("word")?.clone(),
            round: number("round")?,
            members: [member_from(get("a")?)?, member_from(get("b")?)?],
            created_ms: number("created")?,
            ended_ms: (ended != 0).then_some(ended),
        }))
    }

    async fn end_room(&self, room_id: &str, now_ms: i64) -> Result<Option<Room>, EngineError> {
        let ended: i64 = self
            .eval(
                END_ROOM,
                vec![self.room_key(room_id)],
                vec![now_ms.to_string(), self.prefix.clone(), room_id.to_owned()],
            )
            .await
            .or_else(|e| match e {
                // A room that never existed has no `ended` field: HGET gives nil, not '0'.
                EngineError::Redis(_) => Ok(0),
                other => Err(other),
            })?;
        if ended == 1 {
            self.room(room_id).await
        } else {
            Ok(None)
        }
    }

    async fn append(&self, room_id: &str, data: &str) -> Result<String, EngineError> {
        self.eval(
            APPEND,
            vec![self.key(&format!("room:{room_id}:s")), self.key("archive")],
            vec![STREAM_MAX.to_string(), data.to_owned(), room_id.to_owned()],
        )
        .await
    }

    async fn read_after(
        &self,
        room_id: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<StreamEntry>, EngineError> {
        let start = after.map_or_else(|| "-".to_owned(), |id| format!("({id}"));
        let flat: Vec<String> = self
            .eval(
                READ,
                vec![self.key(&format!("room:{room_id}:s"))],
                vec![start, limit.to_string()],
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

    async fn open_rooms(&self) -> Result<Vec<Room>, EngineError> {
        let ids: Vec<String> = self.client.smembers(self.key("rooms:open")).await?;
        let mut rooms = Vec::with_capacity(ids.len());
        for id in ids {
            match self.room(&id).await? {
                Some(room) if room.ended_ms.is_none() => rooms.push(room),
                // Expired or ended behind our back: nothing to sweep.
                _ => {
                    let _: i64 = self.client.srem(self.key("rooms:open"), &id).await?;
                }
            }
        }
        Ok(rooms)
    }

    async fn note_away(&self, user_id: i64, now_ms: i64) -> Result<i64, EngineError> {
        let key = self.key("away");
        let _: bool = self
            .client
            .hsetnx(&key, user_id.to_string(), now_ms)
            .await?;
        let since: Option<i64> = self.client.hget(&key, user_id.to_string()).await?;
        Ok(since.unwrap_or(now_ms))
    }

    async fn clear_away(&self, user_id: i64) -> Result<(), EngineError> {
        let _: i64 = self
            .client
            .hdel(self.key("away"), user_id.to_string())
            .await?;
        Ok(())
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
                .del(self.key(&format!("room:{room_id}:s")))
                .await?;
        } else {
            let _: i64 = self
                .client
                .hset(self.key("archived"), (room_id, id))
                .await?;
        }
        Ok(())
    }

    async fn publish(&self, event: &str) -> Result<(), EngineError> {
        let _: i64 = self.client.publish(self.key(BUS), event).await?;
        Ok(())
    }

    fn subscribe(&self) -> broadcast::Receiver<String> {
        self.bus.subscribe()
    }

    async fn beat(&self, node_id: &str, users: &[i64], now_ms: i64) -> Result<(), EngineError> {
        let mut args = vec![
            node_id.to_owned(),
            now_ms.to_string(),
            (presence_ttl_ms() * 2).to_string(),
        ];
        args.extend(users.iter().map(i64::to_string));
        let _: i64 = self
            .eval(
                BEAT,
                vec![
                    self.key("presence:nodes"),
                    self.key(&format!("presence:n:{node_id}")),
                ],
                args,
            )
            .await?;
        Ok(())
    }

    async fn leave(&self, node_id: &str) -> Result<(), EngineError> {
        let _: i64 = self
            .client
            .zrem(self.key("presence:nodes"), node_id)
            .await?;
        let _: i64 = self
            .client
            .del(self.key(&format!("presence:n:{node_id}")))
            .await?;
        Ok(())
    }

    async fn online_count(&self, now_ms: i64) -> Result<u64, EngineError> {
        let n: i64 = self
            .eval(
                ONLINE,
                vec![self.key("presence:nodes")],
                vec![
                    now_ms.to_string(),
                    presence_ttl_ms().to_string(),
                    self.prefix.clone(),
                    String::new(),
                ],
            )
            .await?;
        Ok(u64::try_from(n).unwrap_or(0))
    }

    async fn is_online(&self, user_id: i64, now_ms: i64) -> Result<bool, EngineError> {
        let n: i64 = self
            .eval(
                ONLINE,
                vec![self.key("presence:nodes")],
                vec![
                    now_ms.to_string(),
                    presence_ttl_ms().to_string(),
                    self.prefix.clone(),
                    user_id.to_string(),
                ],
            )
            .await?;
        Ok(n == 1)
    }
}
