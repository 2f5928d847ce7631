use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use tokio::sync::broadcast;

use crate::{
    presence_ttl_ms, Engine, EngineError, Hit, JoinOutcome, Member, Room, StreamEntry, STREAM_MAX,
};

/// Past this many counters, expired ones are swept on the next hit.
const SWEEP_AT: usize = 10_000;

/// The engine of the single embedded node: everything in this process's memory, behind one
/// lock, so every operation is as atomic as its Redis script.
pub struct MemoryEngine {
    state: Mutex<State>,
    bus: broadcast::Sender<String>,
}

#[derive(Default)]
struct State {
    counters: HashMap<String, (u32, Instant)>,
    /// Queue per (round, word), oldest first.
    queues: HashMap<(i64, String), VecDeque<Member>>,
    /// Where each waiting user waits.
    waiting: HashMap<i64, (i64, String)>,
    /// The open room of each user.
    in_room: HashMap<i64, String>,
    rooms: HashMap<String, Room>,
    streams: HashMap<String, Stream>,
    archive: HashMap<String, Option<String>>,
    presence: HashMap<String, (BTreeSet<i64>, i64)>,
    away: HashMap<i64, i64>,
}

#[derive(Default)]
struct Stream {
    entries: VecDeque<StreamEntry>,
    last: (i64, u64),
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
            bus: broadcast::channel(4096).0,
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

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or_default()
}

impl State {
    fn remove_wait(&mut self, user_id: i64) -> bool {
        let Some(key) = self.waiting.remove(&user_id) else {
            return false;
        };
        if let Some(queue) = self.queues.get_mut(&key) {
            queue.retain(|m| m.user_id != user_id);
        }
        true
    }

    fn live_users(&self, now: i64) -> impl Iterator<Item = &i64> {
        self.presence
            .values()
            .filter(move |(_, beat)| now - beat < presence_ttl_ms())
            .flat_map(|(users, _)| users.iter())
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
        Ok(now_ms())
    }

    async fn hit(&self, key: &str, limit: u32, window: Duration) -> Result<Hit, EngineError> {
        let now = Instant::now();
        let mut state = self.state();
        if state.counters.len() >= SWEEP_AT {
            state.counters.retain(|_, (_, ends)| *ends > now);
        }
        let entry = state
            .counters
            .entry(key.to_owned())
            .or_insert((0, now + window));
        if entry.1 <= now {
            *entry = (0, now + window);
        }
        entry.0 = entry.0.saturating_add(1);
        Ok(Hit {
            allowed: entry.0 <= limit,
            count: entry.0,
            retry_after: entry.1.saturating_duration_since(now),
        })
    }

    async fn clear(&self, key: &str) -> Result<(), EngineError> {
        self.state().counters.remove(key);
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
        let mut state = self.state();
        let me = member.user_id;
        if let Some(room) = state.in_room.get(&me) {
            return Ok(JoinOutcome::AlreadyInRoom(room.clone()));
        }
        let key = (round, word.to_owned());
        if state.waiting.get(&me) == Some(&key) {
            return Ok(JoinOutcome::Waiting);
        }
        state.remove_wait(me);
        let partner = state.queues.get_mut(&key).and_then(VecDeque::pop_front);
        let Some(partner) = partner else {
            state
                .queues
                .entry(key.clone())
                .or_default()
                .push_back(member.clone());
            state.waiting.insert(me, key);
            return Ok(JoinOutcome::Waiting);
        };
        state.waiting.remove(&partner.user_id);
        let room = Room {
            id: room_id.to_owned(),
            word: word.to_owned(),
            round,
            members: [partner, member.clone()],
            created_ms: now_ms,
            ended_ms: None,
        };
        for m in &room.members {
            state.in_room.insert(m.user_id, room.id.clone());
        }
        state.rooms.insert(room.id.clone(), room.clone());
        Ok(JoinOutcome::Matched(room))
    }

    async fn cancel_wait(&self, user_id: i64) -> Result<bool, EngineError> {
        Ok(self.state().remove_wait(user_id))
    }

    async fn expire_round(&self, round: i64) -> Result<Vec<i64>, EngineError> {
        let mut state = self.state();
        let keys: Vec<_> = state
            .queues
            .keys()
            .filter(|(r, _)| *r <= round)
            .cloned()
            .collect();
        let mut users = Vec::new();
        for key in keys {
            for m in state.queues.remove(&key).unwrap_or_default() {
                if state.waiting.get(&m.user_id) == Some(&key) {
                    state.waiting.remove(&m.user_id);
                    users.push(m.user_id);
                }
            }
        }
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

    async fn end_room(&self, room_id: &str, now_ms: i64) -> Result<Option<Room>, EngineError> {
        let mut state = self.state();
        let Some(room) = state.rooms.get_mut(room_id) else {
            return Ok(None);
        };
        if room.ended_ms.is_some() {
            return Ok(None);
        }
        room.ended_ms = Some(now_ms);
        let room = room.clone();
        for m in &room.members {
            if state.in_room.get(&m.user_id).map(String::as_str) == Some(room_id) {
                state.in_room.remove(&m.user_id);
            }
        }
        Ok(Some(room))
    }

    async fn append(&self, room_id: &str, data: &str) -> Result<String, EngineError> {
        let now = now_ms();
        let mut state = self.state();
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
        state.archive.entry(room_id.to_owned()).or_insert(None);
        Ok(id)
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
        let after = after.and_then(parse_id);
        Ok(stream
            .entries
            .iter()
            .filter(|e| after.is_none_or(|a| parse_id(&e.id).is_some_and(|id| id > a)))
            .take(limit)
            .cloned()
            .collect())
    }

    async fn open_rooms(&self) -> Result<Vec<Room>, EngineError> {
        Ok(self
            .state()
            .rooms
            .values()
            .filter(|r| r.ended_ms.is_none())
            .cloned()
            .collect())
    }

    async fn note_away(&self, user_id: i64, now_ms: i64) -> Result<i64, EngineError> {
        Ok(*self.state().away.entry(user_id).or_insert(now_ms))
    }

    async fn clear_away(&self, user_id: i64) -> Result<(), EngineError> {
        self.state().away.remove(&user_id);
        Ok(())
    }

    async fn rooms_to_archive(&self) -> Result<Vec<String>, EngineError> {
        Ok(self.state().archive.keys().cloned().collect())
    }

    async fn archived_upto(&self, room_id: &str) -> Result<Option<String>, EngineError> {
        Ok(self.state().archive.get(room_id).cloned().flatten())
    }

    async fn set_archived(&self, room_id: &str, id: &str, done: bool) -> Result<(), EngineError> {
        let mut state = self.state();
        if done {
            state.archive.remove(room_id);
            state.streams.remove(room_id);
            state.rooms.remove(room_id);
        } else {
            state
                .archive
                .insert(room_id.to_owned(), Some(id.to_owned()));
        }
        Ok(())
    }

    async fn publish(&self, event: &str) -> Result<(), EngineError> {
        // No receiver yet is not an error: the event simply had nobody to reach.
        let _ = self.bus.send(event.to_owned());
        Ok(())
    }

    fn subscribe(&self) -> broadcast::Receiver<String> {
        self.bus.subscribe()
    }

    async fn beat(&self, node_id: &str, users: &[i64], now_ms: i64) -> Result<(), EngineError> {
        self.state().presence.insert(
            node_id.to_owned(),
            (users.iter().copied().collect(), now_ms),
        );
        Ok(())
    }

    async fn leave(&self, node_id: &str) -> Result<(), EngineError> {
        self.state().presence.remove(node_id);
        Ok(())
    }

    async fn online_count(&self, now_ms: i64) -> Result<u64, EngineError> {
        let state = self.state();
        let users: BTreeSet<i64> = state.live_users(now_ms).copied().collect();
        Ok(users.len() as u64)
    }

    async fn is_online(&self, user_id: i64, now_ms: i64) -> Result<bool, EngineError> {
        Ok(self.state().live_users(now_ms).any(|u| *u == user_id))
    }
}

/// `<ms>-<seq>` as a pair that orders like the stream.
pub(crate) fn parse_id(id: &str) -> Option<(i64, u64)> {
    let (ms, seq) = id.split_once('-')?;
    Some((ms.parse().ok()?, seq.parse().ok()?))
}
