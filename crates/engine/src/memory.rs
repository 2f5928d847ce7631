use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use tokio::sync::broadcast;

use crate::{
    bus, millis, parse_stream_id, presence_ttl_ms, wall_ms, ArchiveMark, ArchiveShare, Backlog,
    Engine, EngineError, Farewell, Gone, Heartbeat, Hit, Inbound, Inbox, InboxKind, JoinOutcome,
    Member, MessageFrame, Relayed, Room, SocketAt, StreamEntry, STREAM_MAX,
};

/// Events a node's inbox holds before its reader is told of a gap.
const INBOX_CAPACITY: usize = 1 << 16;

/// Rounds before an expired one whose picks are still kept (see `Engine::picks`).
const PICKS_KEPT_ROUNDS: i64 = 4;

/// Past this many counters, expired ones are swept on the next hit or take; after a sweep
/// the next waits until the live ones have doubled, so that many live counters (a storm
/// from many addresses) cost a sweep now and then, not one on every hit.
const SWEEP_AT: usize = 10_000;

/// The engine of the single embedded node: everything in this process's memory, behind one
/// lock, so every operation is as atomic as its Redis script.
pub struct MemoryEngine {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    counters: HashMap<String, (u32, Instant)>,
    /// How many counters make the next sweep (`SWEEP_AT` at the least).
    sweep_at: usize,
    /// Queue per (round, word), oldest first.
    queues: HashMap<(i64, String), VecDeque<Member>>,
    /// Where each waiting user waits.
    waiting: HashMap<i64, (i64, String)>,
    /// Whom each waiting user is kept apart from (see `Engine::join`).
    apart: HashMap<i64, Vec<i64>>,
    /// The open room of each user.
    in_room: HashMap<i64, String>,
    /// Who picked each (round, word) (see `Engine::picks`).
    picks: HashMap<(i64, String), HashSet<i64>>,
    rooms: HashMap<String, Room>,
    streams: HashMap<String, Stream>,
    archive: HashMap<String, Option<String>>,
    /// Rooms of the archive's list that its turns pass by until then (see `ArchiveMark`).
    resting: HashMap<String, i64>,
    /// Turns of the archive taken: each starts one room further down its list.
    archive_turns: usize,
    /// Live node instances and their last beat.
    nodes: HashMap<String, i64>,
    /// Each user's sockets, by the instance that holds them, with the order in which
    /// they were attached (see `Engine::attach`).
    loc: HashMap<i64, HashMap<String, HashMap<u64, u64>>>,
    /// Per instance: the users it holds.
    node_users: HashMap<String, HashSet<i64>>,
    /// Users connected nowhere, since when.
    away: HashMap<i64, i64>,
    inboxes: HashMap<String, broadcast::Sender<Inbound>>,
    /// When the last turn on air taken ends (Unix ms).
    air_until: i64,
}

#[derive(Default)]
struct Stream {
    entries: VecDeque<StreamEntry>,
    last: (i64, u64),
    /// The stream id of each message by (sender, client id), for retries.
    client_ids: HashMap<(i64, String), String>,
}

impl Default for MemoryEngine {
    fn default() -> Self {
        Self::new()
    }
}

impl MemoryEngine {
    pub fn new() -> Self {
        Self {
            state: Mutex::new(State::default()),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // Every operation leaves the state whole before it could panic, so a poisoned lock
        // is still consistent.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl State {
    /// The counter under `key` and when its window ends, a new window of `window` if it
    /// had none or its window is over.
    fn counter(&mut self, key: &str, window: Duration, now: Instant) -> &mut (u32, Instant) {
        if self.counters.len() >= self.sweep_at.max(SWEEP_AT) {
            self.counters.retain(|_, (_, ends)| *ends > now);
            self.sweep_at = self.counters.len().saturating_mul(2);
        }
        let entry = self
            .counters
            .entry(key.to_owned())
            .or_insert((0, now + window));
        if entry.1 <= now {
            *entry = (0, now + window);
        }
        entry
    }

    fn remove_wait(&mut self, user_id: i64) -> bool {
        self.apart.remove(&user_id);
        let Some(key) = self.waiting.remove(&user_id) else {
            return false;
        };
        if let Some(queue) = self.queues.get_mut(&key) {
            queue.retain(|m| m.user_id != user_id);
        }
        true
    }

    /// Seats the members of a new room in it, puts it on the archive's list, and tells
    /// both of it (`asked`: a meeting the two asked for), as one step.
    fn open_room(&mut self, room: &Room, asked: bool) {
        for m in &room.members {
            self.in_room.insert(m.user_id, room.id.clone());
        }
        self.rooms.insert(room.id.clone(), room.clone());
        self.archive.entry(room.id.clone()).or_insert(None);
        let [a, b] = &room.members;
        self.route(&[a.user_id, b.user_id], &bus::matched(room, asked));
    }

    /// Sends `frame` to every instance holding any of `to`, once per instance.
    fn route(&self, to: &[i64], frame: &str) {
        let mut by: Vec<(&String, Vec<i64>)> = Vec::new();
        for user in to {
            for instance in self.loc.get(user).into_iter().flat_map(HashMap::keys) {
                match by.iter_mut().find(|(n, _)| *n == instance) {
                    Some((_, users)) => users.push(*user),
                    None => by.push((instance, vec![*user])),
                }
            }
        }
        for (instance, users) in by {
            if let Some(tx) = self.inboxes.get(instance) {
                // No reader is not an error: the event had nobody to reach.
                let _ = tx.send(Inbound {
                    to: users,
                    frame: frame.to_owned(),
                });
            }
        }
    }

    /// The user's sockets on `instance` are all gone.
    fn gone(&mut self, user: i64, instance: &str, since: i64) {
        if let Some(places) = self.loc.get_mut(&user) {
            places.remove(instance);
            if places.is_empty() {
                self.loc.remove(&user);
            }
        }
        if let Some(users) = self.node_users.get_mut(instance) {
            users.remove(&user);
        }
        if !self.loc.contains_key(&user) {
            self.away.entry(user).or_insert(since);
            self.remove_wait(user);
        }
    }

    fn reap(&mut self, instance: &str, since: i64) {
        let users = self.node_users.remove(instance).unwrap_or_default();
        for user in users {
            self.gone(user, instance, since);
        }
        self.nodes.remove(instance);
        self.inboxes.remove(instance);
    }

    fn room_open_with(&self, room_id: &str, user: i64) -> Option<&Room> {
        self.rooms
            .get(room_id)
            .filter(|r| r.ended_ms.is_none() && r.partner_of(user).is_some())
    }
}

#[async_trait]
impl Engine for MemoryEngine {
    fn name(&self) -> &'static str {
        "memory"
    }

    async fn ping(&self) -> Result<(), EngineError> {
        Ok(())
    }

    async fn now_ms(&self) -> Result<i64, EngineError> {
        Ok(wall_ms())
    }

    async fn hit(&self, key: &str, limit: u32, window: Duration) -> Result<Hit, EngineError> {
        let now = Instant::now();
        let mut state = self.state();
        let entry = state.counter(key, window, now);
        entry.0 = entry.0.saturating_add(1);
        Ok(Hit {
            allowed: entry.0 <= limit,
            count: entry.0,
            retry_after: entry.1.saturating_duration_since(now),
        })
    }

    async fn take(
        &self,
        key: &str,
        amount: u32,
        limit: u32,
        window: Duration,
    ) -> Result<u32, EngineError> {
        let mut state = self.state();
        let entry = state.counter(key, window, Instant::now());
        let taken = amount.min(limit.saturating_sub(entry.0));
        entry.0 += taken;
        Ok(taken)
    }

    async fn give_back(&self, key: &str, amount: u32) -> Result<(), EngineError> {
        let now = Instant::now();
        if let Some(entry) = self.state().counters.get_mut(key) {
            if entry.1 > now {
                entry.0 -= entry.0.min(amount);
            }
        }
        Ok(())
    }

    async fn refund(&self, key: &str) -> Result<(), EngineError> {
        let now = Instant::now();
        let mut state = self.state();
        if let Some(entry) = state.counters.get_mut(key) {
            if entry.0 <= 1 || entry.1 <= now {
                state.counters.remove(key);
            } else {
                entry.0 -= 1;
            }
        }
        Ok(())
    }

    async fn clear(&self, key: &str) -> Result<(), EngineError> {
        self.state().counters.remove(key);
        Ok(())
    }

    async fn take_air(
        &self,
        now_ms: i64,
        length: Duration,
        max_wait: Duration,
    ) -> Result<Option<i64>, EngineError> {
        let mut state = self.state();
        // No turn taken ends further ahead than the wait and a turn: a later end means the
        // clock went back (the demo's clock), and the air is free.
        let last = if state.air_until - now_ms > millis(max_wait) + millis(length) {
            now_ms
        } else {
            state.air_until
        };
        let start = now_ms.max(last);
        if start - now_ms > millis(max_wait) {
            return Ok(None);
        }
        state.air_until = start + millis(length);
        Ok(Some(start))
    }

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
        let mut state = self.state();
        let me = member.user_id;
        if let Some(room) = state.in_room.get(&me) {
            return Ok(JoinOutcome::AlreadyInRoom(room.clone()));
        }
        let key = (round, word.to_owned());
        if state.waiting.get(&me) == Some(&key) {
            state.route(&[me], waiting);
            return Ok(JoinOutcome::Waiting);
        }
        state.remove_wait(me);
        state.picks.entry(key.clone()).or_default().insert(me);
        // The first waiter not kept apart from `me` by either's list; the others keep
        // their places.
        let apart_of = &state.apart;
        let at = state.queues.get(&key).and_then(|q| {
            q.iter().position(|w| {
                !apart.contains(&w.user_id)
                    && !apart_of.get(&w.user_id).is_some_and(|a| a.contains(&me))
            })
        });
        let partner = at.and_then(|at| state.queues.get_mut(&key)?.remove(at));
        let Some(partner) = partner else {
            state
                .queues
                .entry(key.clone())
                .or_default()
                .push_back(member.clone());
            state.waiting.insert(me, key);
            state.apart.insert(me, apart.to_vec());
            state.route(&[me], waiting);
            return Ok(JoinOutcome::Waiting);
        };
        state.waiting.remove(&partner.user_id);
        state.apart.remove(&partner.user_id);
        let room = Room {
            id: room_id.to_owned(),
            word: word.to_owned(),
            round,
            members: [partner, member.clone()],
            created_ms: now_ms,
            ended_ms: None,
        };
        state.open_room(&room, false);
        Ok(JoinOutcome::Matched(room))
    }

    async fn seat_pair(
        &self,
        round: i64,
        word: &str,
        members: [&Member; 2],
        room_id: &str,
        now_ms: i64,
    ) -> Result<Option<Room>, EngineError> {
        let mut state = self.state();
        if members
            .iter()
            .any(|m| state.in_room.contains_key(&m.user_id))
        {
            return Ok(None);
        }
        let room = Room {
            id: room_id.to_owned(),
            word: word.to_owned(),
            round,
            members: members.map(Member::clone),
            created_ms: now_ms,
            ended_ms: None,
        };
        for m in &room.members {
            state.remove_wait(m.user_id);
        }
        state.open_room(&room, true);
        Ok(Some(room))
    }

    async fn cancel_wait(&self, user_id: i64) -> Result<bool, EngineError> {
        Ok(self.state().remove_wait(user_id))
    }

    async fn picks(&self, round: i64, words: &[&str]) -> Result<Vec<u64>, EngineError> {
        let state = self.state();
        Ok(words
            .iter()
            .map(|w| {
                state
                    .picks
                    .get(&(round, (*w).to_owned()))
                    .map_or(0, |users| users.len() as u64)
            })
            .collect())
    }

    async fn expire_round(&self, round: i64, frame: &str) -> Result<Vec<i64>, EngineError> {
        let mut state = self.state();
        let keys: Vec<_> = state
            .queues
            .keys()
            .filter(|(r, _)| *r <= round)
            .cloned()
            .collect();
        state
            .picks
            .retain(|(r, _), _| *r > round - PICKS_KEPT_ROUNDS);
        let mut users = Vec::new();
        for key in keys {
            for m in state.queues.remove(&key).unwrap_or_default() {
                if state.waiting.get(&m.user_id) == Some(&key) {
                    state.waiting.remove(&m.user_id);
                    users.push(m.user_id);
                }
            }
        }
        state.route(&users, frame);
        Ok(users)
    }

    async fn room_of(&self, user_id: i64) -> Result<Option<Room>, EngineError> {
        let state = self.state();
        Ok(state
            .in_room
            .get(&user_id)
            .and_then(|id| state.rooms.get(id))
            .cloned())
    }

    async fn room(&self, room_id: &str) -> Result<Option<Room>, EngineError> {
        Ok(self.state().rooms.get(room_id).cloned())
    }

    async fn end_room(
        &self,
        room_id: &str,
        member: Option<i64>,
        now_ms: i64,
        farewell: &Farewell<'_>,
    ) -> Result<Option<Room>, EngineError> {
        let mut state = self.state();
        let Some(room) = state.rooms.get_mut(room_id) else {
            return Ok(None);
        };
        if room.ended_ms.is_some() || member.is_some_and(|m| room.partner_of(m).is_none()) {
            return Ok(None);
        }
        room.ended_ms = Some(now_ms);
        let room = room.clone();
        for m in &room.members {
            if state.in_room.get(&m.user_id).map(String::as_str) == Some(room_id) {
                state.in_room.remove(&m.user_id);
            }
            state.route(&[m.user_id], farewell.to(m.user_id));
        }
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
        // This engine's own record decides, whatever the caller's says.
        let room_id = room.id.as_str();
        let now = wall_ms();
        let mut state = self.state();
        let Some(room) = state.rooms.get(room_id) else {
            return Ok(None);
        };
        if room.partner_of(sender).is_none() {
            return Ok(None);
        }
        let key = client_id.map(|c| (sender, c.to_owned()));
        let seen = key.as_ref().and_then(|k| {
            let stream = state.streams.get(room_id)?;
            stream.client_ids.get(k).cloned()
        });
        if let Some(id) = seen {
            state.route(&[sender], &format!("{}{id}{}", frame.head, frame.tail));
            return Ok(Some(id));
        }
        let Some(room) = state.room_open_with(room_id, sender) else {
            return Ok(None);
        };
        let to = room.members.each_ref().map(|m| m.user_id);
        let stream = state.streams.entry(room_id.to_owned()).or_default();
        let (ms, seq) = stream.last;
        stream.last = if now > ms { (now, 0) } else { (ms, seq + 1) };
        let id = format!("{}-{}", stream.last.0, stream.last.1);
        stream.entries.push_back(StreamEntry {
            id: id.clone(),
            data: data.to_owned(),
        });
        while stream.entries.len() > STREAM_MAX {
            stream.entries.pop_front();
        }
        if let Some(key) = key {
            stream.client_ids.insert(key, id.clone());
        }
        state.route(&to, &format!("{}{id}{}", frame.head, frame.tail));
        Ok(Some(id))
    }

    fn relay(&self, room: &Room, sender: i64, frame: &str) -> Relayed {
        let state = self.state();
        let partner = state
            .room_open_with(&room.id, sender)
            .and_then(|r| r.partner_of(sender));
        if let Some(partner) = partner {
            state.route(&[partner.user_id], frame);
        }
        Box::pin(std::future::ready(Ok(partner.is_some())))
    }

    async fn read_after(
        &self,
        room_id: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<StreamEntry>, EngineError> {
        let state = self.state();
        let Some(stream) = state.streams.get(room_id) else {
            return Ok(Vec::new());
        };
        let after = after.and_then(parse_stream_id);
        Ok(stream
            .entries
            .iter()
            .filter(|e| after.is_none_or(|a| parse_stream_id(&e.id).is_some_and(|id| id > a)))
            .take(limit)
            .cloned()
            .collect())
    }

    async fn archive_backlog(
        &self,
        share: ArchiveShare,
        per_room: usize,
        budget: usize,
        now_ms: i64,
    ) -> Result<Vec<Backlog>, EngineError> {
        let mut state = self.state();
        let mut rooms: Vec<(&String, &Option<String>)> = state
            .archive
            .iter()
            .filter(|(id, _)| share.holds(id))
            .filter(|(id, _)| state.resting.get(*id).is_none_or(|until| *until <= now_ms))
            .collect();
        rooms.sort_unstable();
        let start = state.archive_turns % rooms.len().max(1);
        let mut backlog = Vec::new();
        let mut total = 0;
        for (room_id, archived) in rooms[start..].iter().chain(&rooms[..start]) {
            if total >= budget {
                break;
            }
            let after = archived.as_deref().and_then(parse_stream_id);
            let entries: Vec<StreamEntry> = state
                .streams
                .get(*room_id)
                .map(|stream| {
                    stream
                        .entries
                        .iter()
                        .filter(|e| {
                            after.is_none_or(|a| parse_stream_id(&e.id).is_some_and(|id| id > a))
                        })
                        .take(per_room)
                        .cloned()
                        .collect()
                })
                .unwrap_or_default();
            total += entries.len();
            backlog.push(Backlog {
                room_id: (*room_id).clone(),
                room: state.rooms.get(*room_id).cloned(),
                archived: (*archived).clone(),
                entries,
            });
        }
        state.archive_turns += 1;
        Ok(backlog)
    }

    async fn archived_upto(&self, room_id: &str) -> Result<Option<String>, EngineError> {
        Ok(self.state().archive.get(room_id).cloned().flatten())
    }

    async fn mark_archived(&self, marks: &[ArchiveMark<'_>]) -> Result<(), EngineError> {
        let mut state = self.state();
        for mark in marks {
            if mark.done {
                state.archive.remove(mark.room_id);
                state.resting.remove(mark.room_id);
                state.streams.remove(mark.room_id);
                state.rooms.remove(mark.room_id);
            } else {
                state
                    .archive
                    .insert(mark.room_id.to_owned(), Some(mark.upto.to_owned()));
                if let Some(until) = mark.rest_until {
                    state.resting.insert(mark.room_id.to_owned(), until);
                }
            }
        }
        Ok(())
    }

    async fn inbox(&self, instance: &str) -> Result<Inbox, EngineError> {
        let rx = self
            .state()
            .inboxes
            .entry(instance.to_owned())
            .or_insert_with(|| broadcast::channel(INBOX_CAPACITY).0)
            .subscribe();
        Ok(Inbox {
            kind: InboxKind::Memory(rx),
        })
    }

    async fn deliver(&self, to: &[i64], frame: &str) -> Result<(), EngineError> {
        self.state().route(to, frame);
        Ok(())
    }

    async fn broadcast(&self, frame: &str) -> Result<(), EngineError> {
        for tx in self.state().inboxes.values() {
            let _ = tx.send(Inbound {
                to: Vec::new(),
                frame: frame.to_owned(),
            });
        }
        Ok(())
    }

    async fn attach(
        &self,
        instance: &str,
        user_id: i64,
        socket: u64,
        keep: usize,
    ) -> Result<Vec<SocketAt>, EngineError> {
        let mut state = self.state();
        if !state.nodes.contains_key(instance) {
            return Err(EngineError::Dropped);
        }
        let places = state.loc.entry(user_id).or_default();
        let last = places.values().flat_map(HashMap::values).max().copied();
        places
            .entry(instance.to_owned())
            .or_default()
            .entry(socket)
            .or_insert(last.unwrap_or(0) + 1);
        let mut sockets: Vec<(u64, SocketAt)> = places
            .iter()
            .flat_map(|(instance, sockets)| {
                sockets.iter().map(|(socket, order)| {
                    let at = SocketAt {
                        instance: instance.clone(),
                        socket: *socket,
                    };
                    (*order, at)
                })
            })
            .collect();
        sockets.sort_by_key(|(order, _)| *order);
        let beyond = sockets.len().saturating_sub(keep);
        let oldest = sockets.into_iter().take(beyond).map(|(_, at)| at).collect();
        state
            .node_users
            .entry(instance.to_owned())
            .or_default()
            .insert(user_id);
        state.away.remove(&user_id);
        Ok(oldest)
    }

    async fn detach(
        &self,
        instance: &str,
        user_id: i64,
        socket: u64,
        now_ms: i64,
    ) -> Result<(), EngineError> {
        let mut state = self.state();
        if !state.nodes.contains_key(instance) {
            return Ok(());
        }
        let left = match state
            .loc
            .get_mut(&user_id)
            .and_then(|places| places.get_mut(instance))
        {
            Some(sockets) => {
                sockets.remove(&socket);
                sockets.len()
            }
            None => 0,
        };
        if left == 0 {
            state.gone(user_id, instance, now_ms);
        }
        Ok(())
    }

    async fn heartbeat(
        &self,
        instance: &str,
        now_ms: i64,
        first: bool,
    ) -> Result<Heartbeat, EngineError> {
        let mut state = self.state();
        if !first && !state.nodes.contains_key(instance) {
            return Ok(Heartbeat {
                online: 0,
                was_dropped: true,
            });
        }
        state.nodes.insert(instance.to_owned(), now_ms);
        let dead: Vec<(String, i64)> = state
            .nodes
            .iter()
            .filter(|(_, beat)| now_ms - **beat > presence_ttl_ms())
            .map(|(n, beat)| (n.clone(), *beat))
            .collect();
        for (node, beat) in dead {
            state.reap(&node, beat);
        }
        Ok(Heartbeat {
            online: state.loc.len() as u64,
            was_dropped: false,
        })
    }

    async fn leave(&self, instance: &str, now_ms: i64) -> Result<(), EngineError> {
        self.state().reap(instance, now_ms);
        Ok(())
    }

    async fn online_count(&self) -> Result<u64, EngineError> {
        Ok(self.state().loc.len() as u64)
    }

    async fn gone_before(&self, cutoff_ms: i64) -> Result<Vec<Gone>, EngineError> {
        let mut state = self.state();
        let users: Vec<i64> = state
            .away
            .iter()
            .filter(|(_, since)| **since <= cutoff_ms)
            .map(|(u, _)| *u)
            .collect();
        let mut out = Vec::new();
        for user in users {
            state.away.remove(&user);
            if let Some(room_id) = state.in_room.get(&user) {
                out.push(Gone {
                    user_id: user,
                    room_id: room_id.clone(),
                });
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::{State, SWEEP_AT};

    /// Many live counters (a storm from many addresses) are swept once, then not again
    /// until they have doubled; the expired ones still go at the next sweep.
    #[test]
    fn live_counters_are_not_swept_on_every_hit() {
        let mut state = State::default();
        let now = Instant::now();
        let window = Duration::from_secs(600);
        for i in 0..SWEEP_AT {
            state.counter(&format!("a{i}"), window, now);
        }
        state.counter("one more", window, now);
        assert_eq!(state.sweep_at, 2 * SWEEP_AT, "swept once, nothing expired");
        let later = now + window + Duration::from_secs(1);
        for i in 0..SWEEP_AT {
            state.counter(&format!("b{i}"), window, later);
        }
        assert_eq!(state.counters.len(), SWEEP_AT, "the expired ones went");
        assert_eq!(state.counter("b0", window, later).0, 0);
    }
}
