//! The Lua of the Redis engine (the clock's one-line `TIME` aside, in `redis.rs`). Every
//! script here is a `#!lua` script: on a Redis Cluster, Redis refuses any key or shard
//! channel it touches outside the slot of its one declared key, `KEYS[1]`, but for the send
//! script's and the one-server join's, which `allow-cross-slot-keys` lets reach every
//! partition of their server. That
//! key is the anchor of a partition (`<prefix>{tag}`, see `Layout`), or a counter's own
//! key; every other key a script touches is the anchor followed by a name, so it hashes to
//! the same slot.

use fred::types::scripts::Script;

/// `K`, the anchor, and how events reach the nodes: each node instance listens on its own
/// inbox channel in every partition (`<anchor>in:<instance>`), so an event goes only to
/// the instances that hold a socket of one of its users, each told `"<user,…>\n<frame>"`
/// naming the users it holds. `publish` finds them for users of this partition, from
/// their sockets (`loc:<user>`, fields `<instance>/<socket>`); `publish_room` from a
/// room's record of its members' sockets (`room:<id>:w`, field `<instance>/<socket>`,
/// value the user), for the users `only` names (all when nil), with `text` the whole
/// event; `publish_members` from the same record, `text` the frame, each instance's
/// message naming the members it holds.
const PUBLISH: &str = r"
local K = KEYS[1]
local function instance_of(field)
  return string.match(field, '^(.*)/')
end
local function publish(users, frame)
  local at, order = {}, {}
  for _, u in ipairs(users) do
    for _, f in ipairs(redis.call('HKEYS', K .. 'loc:' .. u)) do
      local inst = instance_of(f)
      if inst then
        local list = at[inst]
        if not list then
          list = {}
          at[inst] = list
          order[#order + 1] = inst
        end
        if list[#list] ~= u then list[#list + 1] = u end
      end
    end
  end
  for _, inst in ipairs(order) do
    redis.call('SPUBLISH', K .. 'in:' .. inst, table.concat(at[inst], ',') .. '\n' .. frame)
  end
end
local function publish_members(sockets, text)
  local at, order = {}, {}
  for i = 1, #sockets, 2 do
    local inst, u = instance_of(sockets[i]), sockets[i + 1]
    if inst then
      local list = at[inst]
      if not list then
        list = {}
        at[inst] = list
        order[#order + 1] = inst
      end
      if list[1] ~= u and list[2] ~= u then list[#list + 1] = u end
    end
  end
  for _, inst in ipairs(order) do
    redis.call('SPUBLISH', K .. 'in:' .. inst, table.concat(at[inst], ',') .. '\n' .. text)
  end
end
local function publish_room(sockets, text, only)
  local seen = {}
  for i = 1, #sockets, 2 do
    if not only or sockets[i + 1] == only then
      local inst = instance_of(sockets[i])
      if inst and not seen[inst] then
        seen[inst] = true
        redis.call('SPUBLISH', K .. 'in:' .. inst, text)
      end
    end
  end
end
";

/// What happens when a user's last socket on an instance goes: the user leaves `online`
/// when no instance holds them, stops waiting for a match (the queue's entry is left
/// behind, stale: a join that takes it cannot claim the user), and is noted away (the
/// first note wins). A user's keys and the instance's users of this partition share the
/// partition. `loc:<user>` holds a field `<instance>/<socket>` per socket, so that an
/// attach or a detach said twice (its answer lost to a timeout, and said again) counts
/// once; `on(u, node)` says whether any of them is the instance's.
const GONE: &str = r"
local function on(u, node)
  local prefix = node .. '/'
  for _, f in ipairs(redis.call('HKEYS', K .. 'loc:' .. u)) do
    if string.sub(f, 1, #prefix) == prefix then return true end
  end
  return false
end
local function gone(u, node, since)
  local loc = K .. 'loc:' .. u
  local prefix = node .. '/'
  for _, f in ipairs(redis.call('HKEYS', loc)) do
    if string.sub(f, 1, #prefix) == prefix then redis.call('HDEL', loc, f) end
  end
  redis.call('SREM', K .. 'nu:' .. node, u)
  if redis.call('EXISTS', loc) == 0 then
    redis.call('SREM', K .. 'online', u)
    redis.call('ZADD', K .. 'away', 'NX', since, u)
    redis.call('HDEL', K .. 'u:' .. u, 'wait', 'wq')
  end
end
";

/// INCR and the window's expiry in one step, so two nodes never both start a window.
/// KEYS: the counter. ARGV: window ms.
const HIT: &str = r"
local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {n, ttl}
";

/// Takes up to an amount of what is left of a limit (see `Engine::take`); the window
/// starts with the key's first take, as for `HIT`. Only what is taken is counted, so the
/// count never passes the limit. KEYS: the counter. ARGV: amount, limit, window ms.
const TAKE_PART: &str = r"
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
local taken = math.min(tonumber(ARGV[1]), tonumber(ARGV[2]) - n)
if taken <= 0 then return 0 end
redis.call('INCRBY', KEYS[1], taken)
if redis.call('PTTL', KEYS[1]) < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
return taken
";

/// Gives back what a take took and did not spend (see `Engine::give_back`); a window that
/// ended has expired with its key. KEYS: the counter. ARGV: amount.
const GIVE_BACK: &str = r"
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
local back = math.min(n, tonumber(ARGV[1]))
if back > 0 then redis.call('DECRBY', KEYS[1], back) end
return 0
";

/// Takes back one counted event; a count taken back to zero ends its window. A window that
/// ended has expired with its key, so nothing reaches into the next one. KEYS: the counter.
const REFUND: &str = r"
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n > 1 then
  redis.call('DECR', KEYS[1])
elseif n == 1 then
  redis.call('DEL', KEYS[1])
end
return 0
";

/// Takes the next turn on air (see `Engine::take_air`): -1 when it would start more than
/// the wait allowed after now. The key outlives the last turn by a minute. A last turn
/// ending further ahead than a wait and a turn means the clock went back: the air is free.
/// ARGV: now ms, length ms, max wait ms.
const TAKE_AIR: &str = r"
local key = K .. 'air'
local now, length, wait = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
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

/// A join's first step, in the user's partition. ARGV: user, queue id, wait token, frame
/// for a waiter. Answers `{'in_room', room, since}`, `{'waiting'}` (already waiting in
/// this queue: told again, keeps the place) or `{'go', instance, …}` (the user's wait is
/// now the token: any wait before it is stale; the instances holding the user's sockets,
/// where the queue's step tells them they wait).
const BEGIN: &str = r"
local ukey = K .. 'u:' .. ARGV[1]
local s = redis.call('HMGET', ukey, 'room', 'wait', 'wq', 'room_at')
if s[1] then return {'in_room', s[1], s[4] or '0'} end
if s[2] and s[3] == ARGV[2] then
  publish({ARGV[1]}, ARGV[4])
  return {'waiting'}
end
redis.call('HSET', ukey, 'wait', ARGV[3], 'wq', ARGV[2])
local out, seen = {'go'}, {}
for _, f in ipairs(redis.call('HKEYS', K .. 'loc:' .. ARGV[1])) do
  local inst = instance_of(f)
  if inst and not seen[inst] then
    seen[inst] = true
    out[#out + 1] = inst
  end
end
return out
";

/// A join's second step, in the queue's partition: takes the first waiter not kept apart
/// from the joiner by either's list (those passed over keep their places), or queues the
/// joiner and tells them they wait. Entries are `user|token|,apart,|member`. The joiner
/// is counted among the queue's picks (`pk:<queue id>`, a set kept five minutes).
/// ARGV: user, queue id, the joiner's entry, the joiner's apart list, round, waiting frame,
/// then the instances that hold the joiner's sockets (from `BEGIN`).
const TAKE: &str = r"
local me, qkey, apart = ARGV[1], K .. 'q:' .. ARGV[2], ARGV[4]
local picked = K .. 'pk:' .. ARGV[2]
if redis.call('SADD', picked, me) == 1 then redis.call('EXPIRE', picked, 300) end
local passed, found = {}, nil
while true do
  local e = redis.call('LPOP', qkey)
  if not e then break end
  local u, _, theirs = string.match(e, '^([^|]*)|([^|]*)|([^|]*)|')
  if u ~= me then
    if string.find(apart, ',' .. u .. ',', 1, true)
        or string.find(theirs, ',' .. me .. ',', 1, true) then
      passed[#passed + 1] = e
    else
      found = e
      break
    end
  end
end
for i = #passed, 1, -1 do redis.call('LPUSH', qkey, passed[i]) end
if found then return {'take', found} end
redis.call('RPUSH', qkey, ARGV[3])
redis.call('EXPIRE', qkey, 900)
local rq = K .. 'rq:' .. ARGV[5]
redis.call('SADD', rq, qkey)
redis.call('EXPIRE', rq, 900)
for i = 7, #ARGV do
  redis.call('SPUBLISH', K .. 'in:' .. ARGV[i], me .. '\n' .. ARGV[6])
end
return {'waiting'}
";

/// Puts an entry taken by a join that could not use it back at the head of its queue.
/// ARGV: queue id, entry.
const PUT_BACK: &str = r"
redis.call('LPUSH', K .. 'q:' .. ARGV[1], ARGV[2])
return 1
";

/// Seats a user in a room if they still wait with `token` and sit nowhere: the
/// compare-and-set that makes a user sit in one room at most. ARGV: user, token, room
/// id, now ms. Answers `{'0'}`, or `{'1', socket, …}`: the user's sockets
/// (`<instance>/<socket>`), which the room records. A socket that attaches after this
/// step finds the user seated, and records itself in the room (`ROOM_HERE`).
const CLAIM: &str = r"
local ukey = K .. 'u:' .. ARGV[1]
local s = redis.call('HMGET', ukey, 'wait', 'room')
if s[1] ~= ARGV[2] or s[2] then return {'0'} end
redis.call('HDEL', ukey, 'wait', 'wq')
redis.call('HSET', ukey, 'room', ARGV[3], 'room_at', ARGV[4])
local out = {'1'}
for _, f in ipairs(redis.call('HKEYS', K .. 'loc:' .. ARGV[1])) do out[#out + 1] = f end
return out
";

/// Seats a user who sits nowhere in a room asked for by two (see `Engine::seat_pair`):
/// any wait ends. ARGV: user, room id, now ms. Answers `{'0'}`, or `{'1', token, queue
/// id, socket, …}`: the wait that ended (empty strings when none), so that a seat undone
/// waits again (`UNCLAIM`), and the user's sockets, as `CLAIM` answers them.
const SEAT: &str = r"
local ukey = K .. 'u:' .. ARGV[1]
local s = redis.call('HMGET', ukey, 'room', 'wait', 'wq')
if s[1] then return {'0'} end
redis.call('HDEL', ukey, 'wait', 'wq')
redis.call('HSET', ukey, 'room', ARGV[2], 'room_at', ARGV[3])
local out = {'1', s[2] or '', s[3] or ''}
for _, f in ipairs(redis.call('HKEYS', K .. 'loc:' .. ARGV[1])) do out[#out + 1] = f end
return out
";

/// Undoes a claim whose room was not made: the user waits again with the same token.
/// ARGV: user, token, room id, queue id.
const UNCLAIM: &str = r"
local ukey = K .. 'u:' .. ARGV[1]
if redis.call('HGET', ukey, 'room') ~= ARGV[3] then return 0 end
redis.call('HDEL', ukey, 'room', 'room_at')
redis.call('HSET', ukey, 'wait', ARGV[2], 'wq', ARGV[4])
return 1
";

/// A whole join in one call, where every partition lives on one server (one Redis, not a
/// cluster): `BEGIN`, `TAKE`, both `CLAIM`s and `CREATE_ROOM` in turn, atomic as one. `A`
/// is the partitions' anchors (built into the script, see `Scripts::new`); `KEYS[1]` the
/// joiner's. Answers `{'in_room', room, since}`, `{'waiting'}` (queued, or already waiting
/// here: told either way), or `{'matched', waiter's member JSON}`. A waiter that left or
/// moved on (its wait is not its entry's token, or it sits in a room) is dropped from the
/// queue, as a failed `CLAIM` drops it. The members are told of the room by its
/// `bus::MATCHED` event, which the caller writes up to the waiter's member JSON
/// (`bus::matched_before_first`), which the script appends with the closing `}`.
/// ARGV: user, queue id, token, waiting frame, entry, apart list, round, room id, now ms,
/// member JSON, word, the queue's partition, the room's partition (1-based), the room's
/// event up to the waiter.
const JOIN_ONE: &str = r#"
local me, qid, token = ARGV[1], ARGV[2], ARGV[3]
local KU = KEYS[1]
local ukey = KU .. 'u:' .. me
local s = redis.call('HMGET', ukey, 'room', 'wait', 'wq', 'room_at')
if s[1] then return {'in_room', s[1], s[4] or '0'} end
local mine = redis.call('HKEYS', KU .. 'loc:' .. me)
local function tell_waiting()
  local seen = {}
  for _, f in ipairs(mine) do
    local inst = string.match(f, '^(.*)/')
    if inst and not seen[inst] then
      seen[inst] = true
      redis.call('SPUBLISH', KU .. 'in:' .. inst, me .. '\n' .. ARGV[4])
    end
  end
end
if s[2] and s[3] == qid then
  tell_waiting()
  return {'waiting'}
end
local KQ = A[tonumber(ARGV[12])]
local qkey, apart = KQ .. 'q:' .. qid, ARGV[6]
local picked = KQ .. 'pk:' .. qid
if redis.call('SADD', picked, me) == 1 then redis.call('EXPIRE', picked, 300) end
local passed, found, wu, wkey = {}, nil, nil, nil
while true do
  local e = redis.call('LPOP', qkey)
  if not e then break end
  local u, t, theirs = string.match(e, '^([^|]*)|([^|]*)|([^|]*)|')
  local n = tonumber(u)
  if n and u ~= me then
    if string.find(apart, ',' .. u .. ',', 1, true)
        or string.find(theirs, ',' .. me .. ',', 1, true) then
      passed[#passed + 1] = e
    else
      local k = A[n % #A + 1] .. 'u:' .. u
      local w = redis.call('HMGET', k, 'wait', 'room')
      if w[1] == t and not w[2] then
        found, wu, wkey = e, u, k
        break
      end
    end
  end
end
for i = #passed, 1, -1 do redis.call('LPUSH', qkey, passed[i]) end
if not found then
  redis.call('HSET', ukey, 'wait', token, 'wq', qid)
  -- A queue and a round's list of queues live 15 minutes from their making (a queue the
  -- loop above emptied was made again by putting back those passed over).
  if redis.call('RPUSH', qkey, ARGV[5]) == 1 or #passed > 0 then
    redis.call('EXPIRE', qkey, 900)
    local rq = KQ .. 'rq:' .. ARGV[7]
    if redis.call('SADD', rq, qkey) == 1 then redis.call('EXPIRE', rq, 900) end
  end
  tell_waiting()
  return {'waiting'}
end
local room, now = ARGV[8], ARGV[9]
redis.call('HDEL', wkey, 'wait', 'wq')
redis.call('HSET', wkey, 'room', room, 'room_at', now)
redis.call('HDEL', ukey, 'wait', 'wq')
redis.call('HSET', ukey, 'room', room, 'room_at', now)
local WA = A[tonumber(wu) % #A + 1]
local member = string.match(found, '^[^|]*|[^|]*|[^|]*|(.*)$')
local KR = A[tonumber(ARGV[13])]
local rk = KR .. 'room:' .. room
redis.call('HSET', rk, 'a', member, 'b', ARGV[10], 'ua', wu,
  'ub', me, 'word', ARGV[11], 'round', ARGV[7], 'created', now, 'ended', '0')
redis.call('SADD', KR .. 'archive', room)
-- The record of the members' sockets: none can have attached to a room made only now.
local sockets = {}
for _, f in ipairs(redis.call('HKEYS', WA .. 'loc:' .. wu)) do
  sockets[#sockets + 1] = f
  sockets[#sockets + 1] = wu
end
for _, f in ipairs(mine) do
  sockets[#sockets + 1] = f
  sockets[#sockets + 1] = me
end
if #sockets > 0 then redis.call('HSET', rk .. ':w', unpack(sockets)) end
K = KR
publish_members(sockets, ARGV[14] .. member .. '}')
return {'matched', member}
"#;

/// The last step of a match, in the room's partition: the room, its place on the archive
/// list (so that it is archived and its end recorded even without messages), its
/// members' sockets (from their claims, beside any that attached since), and the room's
/// `bus::MATCHED` event to both members, in one step. ARGV: room id, member a, member b
/// (JSON), user a, user b, word, round, now ms, the event, the count of a's sockets, then
/// a's sockets and b's.
const CREATE_ROOM: &str = r"
local rk = K .. 'room:' .. ARGV[1]
redis.call('HSET', rk, 'a', ARGV[2], 'b', ARGV[3], 'ua', ARGV[4],
  'ub', ARGV[5], 'word', ARGV[6], 'round', ARGV[7], 'created', ARGV[8], 'ended', '0')
redis.call('SADD', K .. 'archive', ARGV[1])
local w = rk .. ':w'
local last_of_a = 10 + tonumber(ARGV[10])
for i = 11, #ARGV do
  redis.call('HSET', w, ARGV[i], i <= last_of_a and ARGV[4] or ARGV[5])
end
redis.call('PERSIST', w)
publish_members(redis.call('HGETALL', w), ARGV[9])
return 1
";

/// A socket of a member seated in a room: the room's events reach its instance from now
/// on. The room may not be made yet (its last step comes after the seat), or be gone: the
/// record then expires unless the room is made. ARGV: room id, `<instance>/<socket>`,
/// user.
const ROOM_HERE: &str = r"
local rk = K .. 'room:' .. ARGV[1]
redis.call('HSET', rk .. ':w', ARGV[2], ARGV[3])
if redis.call('EXISTS', rk) == 0 then redis.call('EXPIRE', rk .. ':w', 3600) end
return 1
";

/// A socket recorded in a room closed. ARGV: room id, `<instance>/<socket>`.
const ROOM_GONE: &str = r"
return redis.call('HDEL', K .. 'room:' .. ARGV[1] .. ':w', ARGV[2])
";

/// Frees a user from a room (ended, or never made): only that room. ARGV: user, room id.
const LEAVE_ROOM: &str = r"
local ukey = K .. 'u:' .. ARGV[1]
if redis.call('HGET', ukey, 'room') ~= ARGV[2] then return 0 end
redis.call('HDEL', ukey, 'room', 'room_at')
return 1
";

/// ARGV: user.
const CANCEL: &str = r"
return redis.call('HDEL', K .. 'u:' .. ARGV[1], 'wait', 'wq') > 0 and 1 or 0
";

/// Empties the partition's queues of a round: answers their entries. ARGV: round.
const EXPIRE_QUEUES: &str = r"
local rq = K .. 'rq:' .. ARGV[1]
local out = {}
for _, q in ipairs(redis.call('SMEMBERS', rq)) do
  for _, e in ipairs(redis.call('LRANGE', q, 0, -1)) do out[#out + 1] = e end
  redis.call('DEL', q)
end
redis.call('DEL', rq)
return out
";

/// Ends the waits of users of this partition that still wait with the token of an
/// expired queue's entry, and tells them. ARGV: frame, then pairs of user and token.
const RELEASE: &str = r"
local told = {}
for i = 2, #ARGV - 1, 2 do
  local ukey = K .. 'u:' .. ARGV[i]
  if redis.call('HGET', ukey, 'wait') == ARGV[i + 1] then
    redis.call('HDEL', ukey, 'wait', 'wq')
    told[#told + 1] = ARGV[i]
  end
end
if #told > 0 then publish(told, ARGV[1]) end
return told
";

/// ARGV: room id, now ms, member or '', the frame both members are told, and a member
/// told another frame instead (or '') with that frame. Answers the room's fields when this
/// call ended it, and tells the members through the room's record of their sockets, as
/// `CREATE_ROOM` told them of it: in the room's partition, so on one server with its
/// messages, and after them. The members' own records are freed after (`LEAVE_ROOM`, in
/// their partitions). The room's stream, if it has one, takes no message from now on: its
/// last id moves to the last possible one, which `XADD` cannot pass (see `SEND`); what it
/// holds stays readable.
const END_ROOM: &str = r"
local rk = K .. 'room:' .. ARGV[1]
local r = redis.call('HMGET', rk, 'ended', 'ua', 'ub')
if r[1] ~= '0' then return false end
if ARGV[3] ~= '' and r[2] ~= ARGV[3] and r[3] ~= ARGV[3] then return false end
redis.call('HSET', rk, 'ended', ARGV[2])
redis.call('EXPIRE', rk, 86400)
if redis.call('EXISTS', rk .. ':s') == 1 then
  redis.call('XSETID', rk .. ':s', '18446744073709551615-18446744073709551615')
end
local sockets = redis.call('HGETALL', rk .. ':w')
for i = 2, 3 do
  local u = r[i]
  publish_room(sockets, u .. '\n' .. (u == ARGV[5] and ARGV[6] or ARGV[4]), u)
end
return redis.call('HGETALL', rk)
";

/// Chat messages and notices, a batch of them in one call: the service's message path.
/// ARGV: the stream max length, then per message its room's stream key (`room:<id>:s`; the
/// room's record is the key without `:s`), its event's prefix (the members,
/// `<a>,<b>`, whom it is for, a newline and the frame's head), stored data, frame tail and
/// client id key (`<sender>:<client id>`, or ''). A notice (typing) has no stored data: its
/// prefix is the partner and a newline, its tail the frame, its last argument the partner;
/// it goes to the partner's sockets if the room is open (answer '+'), and is kept nowhere.
/// The node vouches that the sender is a
/// member (it read the room's record; members never change); whether the room is still
/// open, Redis says: `END_ROOM` moves an ended room's stream to the last possible id, so
/// that `XADD` refuses it, and a room without a stream (no message yet, or archived and
/// dropped) is read before its first message is appended. So a message costs one command,
/// not a read and an append. `room:<id>:c` maps the client id keys of a room's messages to
/// their stream ids, so a retry is echoed to its sender alone, not appended again. Answers
/// per message its stream id, false (not an open room), or '' (its keys are not on this
/// server: a slot moved; it is sent again alone).
///
/// The messages may be of several partitions of this server (`allow-cross-slot-keys`: a
/// cluster still refuses any key another master holds, which `pcall` turns into ''), and
/// their events go out together, each after an ASCII record separator (see
/// `bus::decode_events`, which the conformance suite reads them with): one `SPUBLISH` per instance that holds a socket of their rooms (the
/// room's record of its members' sockets, `room:<id>:w`), on that instance's inbox in the
/// first message's partition. What one server publishes reaches each node in order on
/// one connection, so a room's events keep their order whichever channel carries them. A
/// message's first command reads or fails before anything of it is written, so a key
/// away fails the message before it is stored. Redis's Lua hashes every byte of every
/// string it makes (a sixth of Redis's CPU on this path): a message passes as few
/// arguments as it can, and each instance's text is joined once from its parts.
const SEND: &str = r"
local max = ARGV[1]
local answers, events, order = {}, {}, {}
local function add(sockets, step, only, a, b, c, d)
  local seen = {}
  for j = 1, #sockets, step do
    if not only or sockets[j + 1] == only then
      local inst = string.match(sockets[j], '^(.*)/')
      if inst and not seen[inst] then
        seen[inst] = true
        local list = events[inst]
        if not list then
          list = {}
          events[inst] = list
          order[#order + 1] = inst
        end
        local n = #list
        list[n + 1], list[n + 2], list[n + 3], list[n + 4], list[n + 5] = '\30', a, b, c, d
      end
    end
  end
end
local function notice(sk, a, b, partner)
  local ok, ended = pcall(redis.call, 'HGET', string.sub(sk, 1, -3), 'ended')
  if not ok then return '' end
  if ended ~= '0' then return false end
  add(redis.call('HGETALL', string.sub(sk, 1, -2) .. 'w'), 2, partner, a, b, '', '')
  return '+'
end
local function message(sk, prefix, data, tail, cid)
  local ok, id, seen = true, false, false
  if cid ~= '' then
    ok, seen = pcall(redis.call, 'HGET', string.sub(sk, 1, -2) .. 'c', cid)
  end
  if ok and seen then
    id = seen
    local head = string.sub(prefix, (string.find(prefix, '\n', 1, true)))
    local sender = string.match(cid, '^[^:]*')
    add(redis.call('HGETALL', string.sub(sk, 1, -2) .. 'w'), 2, sender, sender, head, seen, tail)
  elseif ok then
    ok, id = pcall(redis.call, 'XADD', sk, 'NOMKSTREAM', 'MAXLEN', '~', max, '*', 'd', data)
    if ok and not id then
      local ended
      ok, ended = pcall(redis.call, 'HGET', string.sub(sk, 1, -3), 'ended')
      if ok and ended == '0' then
        ok, id = pcall(redis.call, 'XADD', sk, 'MAXLEN', '~', max, '*', 'd', data)
      end
    elseif not ok and string.find(tostring(type(id) == 'table' and id.err or id), 'exhausted', 1, true) then
      ok, id = true, false
    end
    if ok and id then
      if cid ~= '' then pcall(redis.call, 'HSET', string.sub(sk, 1, -2) .. 'c', cid, id) end
      add(redis.call('HKEYS', string.sub(sk, 1, -2) .. 'w'), 1, nil, prefix, id, tail, '')
    end
  end
  if not ok then return '' end
  return id
end
for i = 2, #ARGV, 5 do
  if ARGV[i + 2] == '' then
    answers[#answers + 1] = notice(ARGV[i], ARGV[i + 1], ARGV[i + 3], ARGV[i + 4])
  else
    answers[#answers + 1] = message(ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4])
  end
end
for _, inst in ipairs(order) do
  redis.call('SPUBLISH', KEYS[1] .. 'in:' .. inst, table.concat(events[inst]))
end
return answers
";

/// ARGV: room id, start (inclusive `-` or exclusive `(id`), count.
const READ: &str = r"
local out = {}
for _, e in ipairs(redis.call('XRANGE', K .. 'room:' .. ARGV[1] .. ':s', ARGV[2], '+', 'COUNT', ARGV[3])) do
  out[#out + 1] = e[1]
  out[#out + 1] = e[2][2]
end
return out
";

/// Moves the archive's marks in one partition. ARGV: room, last id stored, '1' when the
/// room is finished (it leaves the list; its stream, client ids, mark and rest go), and
/// the time until which the archive passes it by, or '', … . A finished room's record of
/// its members' sockets goes too.
const MARK_ARCHIVED: &str = r"
for i = 1, #ARGV, 4 do
  local id = ARGV[i]
  if ARGV[i + 2] == '1' then
    redis.call('SREM', K .. 'archive', id)
    redis.call('HDEL', K .. 'archived', id)
    redis.call('HDEL', K .. 'resting', id)
    redis.call('DEL', K .. 'room:' .. id .. ':s', K .. 'room:' .. id .. ':c', K .. 'room:' .. id .. ':w')
  else
    redis.call('HSET', K .. 'archived', id, ARGV[i + 1])
    if ARGV[i + 3] ~= '' then redis.call('HSET', K .. 'resting', id, ARGV[i + 3]) end
  end
end
return 0
";

/// In the user's partition. ARGV: node instance, user, socket, sockets to keep. `{'0'}`
/// when the instance is not live here: given up for dead (its users of this partition
/// reaped), or unknown to a Redis that lost its data. Otherwise `{'1'}`, the room the
/// user sits in (or ''), then the user's sockets beyond those to keep, oldest first. A socket's field holds the order of
/// its attach, one past the user's last (a field of 1 was written before the order was
/// kept, and counts as the oldest); one said twice keeps its place.
const ATTACH: &str = r"
if redis.call('SISMEMBER', K .. 'live', ARGV[1]) == 0 then return {'0'} end
local loc = K .. 'loc:' .. ARGV[2]
local field = ARGV[1] .. '/' .. ARGV[3]
if redis.call('HEXISTS', loc, field) == 0 then
  local last = 0
  for _, n in ipairs(redis.call('HVALS', loc)) do last = math.max(last, tonumber(n) or 0) end
  redis.call('HSET', loc, field, last + 1)
end
redis.call('SADD', K .. 'nu:' .. ARGV[1], ARGV[2])
redis.call('SADD', K .. 'online', ARGV[2])
redis.call('ZREM', K .. 'away', ARGV[2])
local out = {'1', redis.call('HGET', K .. 'u:' .. ARGV[2], 'room') or ''}
local all = redis.call('HGETALL', loc)
local beyond = #all / 2 - tonumber(ARGV[4])
if beyond > 0 then
  local sockets = {}
  for i = 1, #all, 2 do sockets[#sockets + 1] = {all[i], tonumber(all[i + 1]) or 0} end
  table.sort(sockets, function(a, b) return a[2] < b[2] or (a[2] == b[2] and a[1] < b[1]) end)
  for i = 1, beyond do out[#out + 1] = sockets[i][1] end
end
return out
";

/// ARGV: node instance, user, socket, now ms. A dead instance's users were reaped already.
/// Answers the room the user sits in (its record of the socket goes next), or ''.
const DETACH: &str = r"
local room = redis.call('HGET', K .. 'u:' .. ARGV[2], 'room') or ''
if redis.call('SISMEMBER', K .. 'live', ARGV[1]) == 0 then return room end
redis.call('HDEL', K .. 'loc:' .. ARGV[2], ARGV[1] .. '/' .. ARGV[3])
if not on(ARGV[2], ARGV[1]) then gone(ARGV[2], ARGV[1], ARGV[4]) end
return room
";

/// Sends a frame to users of this partition, wherever their sockets are. ARGV: frame, then
/// the users.
const DELIVER: &str = r"
local users = {}
for i = 2, #ARGV do users[#users + 1] = ARGV[i] end
publish(users, ARGV[1])
return 1
";

/// In partition 0. ARGV: node instance, now ms, ttl ms, '1' for the instance's first
/// beat, how often the online count is counted (ms). Answers `{-1}` when the instance had
/// been given up for dead, else `{1, count}` followed by the instances silent for the ttl
/// and their last beats, to be reaped in every partition and then forgotten (`FORGET`). A
/// dead instance stays listed until then, so a reaping cut short is done again by the
/// next beat of any node. `count` is the online count another beat counted (`counted`'s
/// `n`), or -1 when this beat is to count it and store it: the first beat after the
/// period, or after an instance was forgotten.
const HEARTBEAT: &str = r"
local nodes = K .. 'nodes'
local cutoff = tonumber(ARGV[2]) - tonumber(ARGV[3])
if ARGV[4] ~= '1' then
  local last = redis.call('ZSCORE', nodes, ARGV[1])
  if not last or tonumber(last) <= cutoff then return {-1} end
end
redis.call('ZADD', nodes, ARGV[2], ARGV[1])
local counted = K .. 'counted'
local n, at = unpack(redis.call('HMGET', counted, 'n', 'at'))
local count = tonumber(n)
if not count or not at or tonumber(ARGV[2]) - tonumber(at) >= tonumber(ARGV[5]) then
  redis.call('HSET', counted, 'at', ARGV[2])
  count = -1
end
local out = {1, count}
local dead = redis.call('ZRANGEBYSCORE', nodes, '-inf', cutoff, 'WITHSCORES')
for i = 1, #dead do out[#out + 1] = dead[i] end
return out
";

/// In partition 0, after `REAP` in every partition. ARGV: node instance. The online count
/// is counted again at the next beat.
const FORGET: &str = r"
redis.call('HDEL', K .. 'counted', 'at')
return redis.call('ZREM', K .. 'nodes', ARGV[1])
";

/// Detaches an instance's users of this partition as of `since`; the instance is no
/// longer live here, so its attaches are refused. ARGV: node instance, since ms.
const REAP: &str = r"
redis.call('SREM', K .. 'live', ARGV[1])
local nu = K .. 'nu:' .. ARGV[1]
for _, u in ipairs(redis.call('SMEMBERS', nu)) do gone(u, ARGV[1], ARGV[2]) end
redis.call('DEL', nu)
return 1
";

/// ARGV: cutoff ms. Flat pairs of user and room.
const GONE_BEFORE: &str = r"
local out = {}
local away = K .. 'away'
for _, u in ipairs(redis.call('ZRANGEBYSCORE', away, '-inf', ARGV[1], 'LIMIT', 0, 1000)) do
  redis.call('ZREM', away, u)
  local room = redis.call('HGET', K .. 'u:' .. u, 'room')
  if room then
    out[#out + 1] = u
    out[#out + 1] = room
  end
end
return out
";

/// Every script, loaded once and run by SHA (`EVALSHA`, reloaded after a Redis restart).
pub(super) struct Scripts {
    pub hit: Script,
    pub take_part: Script,
    pub give_back: Script,
    pub refund: Script,
    pub take_air: Script,
    pub begin: Script,
    pub take: Script,
    pub put_back: Script,
    pub claim: Script,
    pub seat: Script,
    pub unclaim: Script,
    pub create_room: Script,
    pub join_one: Script,
    pub leave_room: Script,
    pub cancel: Script,
    pub expire_queues: Script,
    pub release: Script,
    pub end_room: Script,
    pub send: Script,
    pub room_here: Script,
    pub room_gone: Script,
    pub deliver: Script,
    pub read: Script,
    pub mark_archived: Script,
    pub attach: Script,
    pub detach: Script,
    pub heartbeat: Script,
    pub forget: Script,
    pub reap: Script,
    pub gone_before: Script,
}

impl Scripts {
    /// The scripts of a deployment whose partitions' anchors are `anchors`.
    pub fn new(anchors: &[String]) -> Self {
        // Each script carries only the helpers it calls: Lua builds them at every call.
        let script = |shebang: &str, parts: &[&str]| {
            Script::from_lua(format!("{shebang}\n{}", parts.concat()))
        };
        let s = |parts: &[&str]| script("#!lua", parts);
        let anchored = |body: &str| s(&["local K = KEYS[1]\n", body]);
        let publishing = |body: &str| s(&[PUBLISH, body]);
        let gone = |body: &str| s(&["local K = KEYS[1]\n", GONE, body]);
        Self {
            hit: s(&[HIT]),
            take_part: s(&[TAKE_PART]),
            give_back: s(&[GIVE_BACK]),
            refund: s(&[REFUND]),
            take_air: anchored(TAKE_AIR),
            begin: publishing(BEGIN),
            take: publishing(TAKE),
            put_back: anchored(PUT_BACK),
            claim: anchored(CLAIM),
            seat: anchored(SEAT),
            unclaim: anchored(UNCLAIM),
            create_room: publishing(CREATE_ROOM),
            join_one: script(
                "#!lua flags=allow-cross-slot-keys",
                &[PUBLISH, &join_prelude(anchors), JOIN_ONE],
            ),
            leave_room: anchored(LEAVE_ROOM),
            cancel: anchored(CANCEL),
            expire_queues: anchored(EXPIRE_QUEUES),
            release: publishing(RELEASE),
            end_room: publishing(END_ROOM),
            send: script("#!lua flags=allow-cross-slot-keys", &[SEND]),
            room_here: anchored(ROOM_HERE),
            room_gone: anchored(ROOM_GONE),
            deliver: publishing(DELIVER),
            read: anchored(READ),
            mark_archived: anchored(MARK_ARCHIVED),
            attach: anchored(ATTACH),
            detach: gone(DETACH),
            heartbeat: anchored(HEARTBEAT),
            forget: anchored(FORGET),
            reap: gone(REAP),
            gone_before: anchored(GONE_BEFORE),
        }
    }

    pub fn all(&self) -> [&Script; 30] {
        [
            &self.hit,
            &self.take_part,
            &self.give_back,
            &self.refund,
            &self.take_air,
            &self.begin,
            &self.take,
            &self.put_back,
            &self.claim,
            &self.seat,
            &self.unclaim,
            &self.create_room,
            &self.join_one,
            &self.leave_room,
            &self.cancel,
            &self.expire_queues,
            &self.release,
            &self.end_room,
            &self.send,
            &self.room_here,
            &self.room_gone,
            &self.deliver,
            &self.read,
            &self.mark_archived,
            &self.attach,
            &self.detach,
            &self.heartbeat,
            &self.forget,
            &self.reap,
            &self.gone_before,
        ]
    }
}

/// `JOIN_ONE`'s constant: the anchors.
fn join_prelude(anchors: &[String]) -> String {
    let anchors: Vec<String> = anchors.iter().map(|a| lua_string(a)).collect();
    format!("local A = {{{}}}\n", anchors.join(", "))
}

/// `text` as a Lua string literal.
fn lua_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('\'');
    for c in text.chars() {
        match c {
            '\\' | '\'' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}
