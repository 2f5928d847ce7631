//! Real time's background work: the shared clock, round pushes and expiry, presence, the
//! event bus, grace periods, the rooms' records, archiving conversations to SQL, and the
//! approved word sets of the rotation.

use std::collections::HashSet;
use std::time::Duration;

use futures_util::stream::{self, StreamExt};
use telepathy_domain::limits::{ROUND_ECHO_MIN_PICKS, WORDSET_REFRESH};
use telepathy_domain::round::RoundAt;
use telepathy_domain::time::millis;
use telepathy_engine::{
    ArchiveMark, ArchiveShare, Backlog, EngineError, Heartbeat, Inbox, Kind, Received, Room,
    StreamEntry,
};
use telepathy_store::{ArchivedMessage, StoreError};

use super::hub::Kick;
use super::{chat_frame, decode, matched_frame, Realtime, RoomRecordNews};
use crate::wire::{frame, EndReason, MatchExpired, OnlineCount, RoundEcho, WordPicks};

const CLOCK_SYNC: Duration = Duration::from_secs(5);
/// The rounds' task sleeps until the next round begins, but at most this long: the demo's
/// clock can be moved by hand, and a round it skips to is pushed within this.
const ROUND_WATCH: Duration = Duration::from_secs(1);
/// How long after a round closes its echo is read: the joins sent in its last moment
/// have landed by then.
const ECHO_AFTER: Duration = Duration::from_secs(1);
const PRESENCE_BEAT: Duration = Duration::from_secs(2);
/// A small online count is pushed to every socket of the node at every beat (whether anyone
/// else is here is what a user sees, and a socket answered between two beats may hold another
/// figure than the last one pushed); a larger one when it changes, at most this often: each
/// push costs a frame per socket, and while thousands connect the count changes at every
/// beat.
const ONLINE_PUSH_EVERY: Duration = Duration::from_secs(10);
const ONLINE_PUSH_AT_ONCE_BELOW: u64 = 10;
/// Often, so that each turn is small: a turn's answer from Redis holds up the replies
/// behind it on the same connection while it is read.
const ARCHIVE_EVERY: Duration = Duration::from_secs(1);
/// A turn reads one of this many parts of the rooms (`ArchiveShare`): a busy room is read
/// every four seconds with four seconds of messages, not every second with one, and a
/// turn still carries about a second's worth.
const ARCHIVE_SHARES: u32 = 4;
/// Messages of one room archived per turn, at most.
const ARCHIVE_BATCH: usize = 500;
/// Messages the archive takes in one turn, about (20,000 a second at most): each
/// partition's share is one short step for Redis, and the rooms left over wait for a later
/// turn, which starts elsewhere in the list.
const ARCHIVE_TURN: usize = 20_000;
/// Finished rooms checked against the database at once while archiving.
const ARCHIVE_CONCURRENCY: usize = 4;
/// An ended room's stream is kept this long for members who resume late.
const ENDED_STREAM_KEEP_MS: i64 = 60_000;
const SWEEP_EVERY: Duration = Duration::from_secs(2);
/// A lease ends this much before its job's next turn, so the next turn can take it.
const LEASE_SLACK: Duration = Duration::from_millis(500);

impl Realtime {
    /// Starts real time's background tasks. Call once, before serving: it reads the shared
    /// clock and the word sets, and joins the engine as a live node instance listening for
    /// its events.
    pub async fn start(&self) -> anyhow::Result<()> {
        use anyhow::Context;
        sync_clock(self).await;
        // Before the first round is answered, so that this node shows the same words as
        // the others from the start.
        self.refresh_wordsets().await;
        if let Some(inboxes) = take(&self.next_inbox_rx) {
            tokio::spawn(listen_bus(self.clone(), inboxes));
        }
        let beat = start_as(self, &self.hub.instance())
            .await
            .context("joining the engine as a live node")?;
        self.metrics.users_online.set(gauge(beat.online));
        if let Some(records) = take(&self.room_records_rx) {
            tokio::spawn(record_rooms(self.clone(), records));
        }
        tokio::spawn(every(self.clone(), CLOCK_SYNC, |rt| async move {
            sync_clock(&rt).await
        }));
        tokio::spawn(every(self.clone(), WORDSET_REFRESH, |rt| async move {
            rt.refresh_wordsets().await
        }));
        tokio::spawn(rounds(self.clone()));
        tokio::spawn(presence(self.clone()));
        tokio::spawn(every(self.clone(), ARCHIVE_EVERY, |rt| async move {
            // Turns counted by the shared clock, so that whichever node holds the lease
            // takes the next part.
            let turn = u64::try_from(rt.clock.now_ms() / millis(ARCHIVE_EVERY)).unwrap_or(0);
            rt.archive(ArchiveShare::of_turn(turn, ARCHIVE_SHARES))
                .await
        }));
        tokio::spawn(every(self.clone(), SWEEP_EVERY, |rt| async move {
            rt.sweep_away().await
        }));
        Ok(())
    }

    /// Takes a short lease named `name` in the engine, so that one node at a time does a
    /// periodic job; false when another node holds it (or the engine did not answer).
    pub async fn lease(&self, name: &str, period: Duration) -> bool {
        match self
            .engine
            .hit(
                &format!("lease:{name}"),
                1,
                period.saturating_sub(LEASE_SLACK),
            )
            .await
        {
            Ok(hit) => hit.allowed,
            Err(e) => {
                tracing::warn!(error = %e, lease = name, "taking a lease");
                false
            }
        }
    }
}

/// Rooms' news written to SQL per turn, at most.
const RECORD_BATCH: usize = 500;

/// How long the recorder gathers news after the first before it writes, at most …
const RECORD_GATHER: Duration = Duration::from_millis(250);
/// … while more keeps coming: a pause this long ends the gathering.
const RECORD_PAUSE: Duration = Duration::from_millis(10);

/// Writes rooms made and ended to SQL in batches: news is gathered while it keeps coming
/// (no pause of `RECORD_PAUSE`), for at most `RECORD_GATHER` and `RECORD_BATCH` items. A
/// round's start makes thousands of rooms in a second or two; written as they came, they
/// went in a transaction of one or two rooms each (four statements), and the database
/// spent more on a join than Redis did. A lone room is written a pause after its news.
async fn record_rooms(rt: Realtime, mut news: tokio::sync::mpsc::Receiver<RoomRecordNews>) {
    let mut batch = Vec::with_capacity(RECORD_BATCH);
    while news.recv_many(&mut batch, RECORD_BATCH).await > 0 {
        let until = tokio::time::Instant::now() + RECORD_GATHER;
        while batch.len() < RECORD_BATCH {
            let wait = until.min(tokio::time::Instant::now() + RECORD_PAUSE);
            let room = RECORD_BATCH - batch.len();
            let more = news.recv_many(&mut batch, room);
            if !matches!(tokio::time::timeout_at(wait, more).await, Ok(n) if n > 0) {
                break;
            }
        }
        rt.record_rooms(std::mem::take(&mut batch)).await;
    }
}

/// What a one-time slot of the rt holds, taken out by the task that owns it.
fn take<T>(slot: &std::sync::Mutex<Option<T>>) -> Option<T> {
    slot.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take()
}

fn gauge(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// Does `work` with `it` every `period`, a turn never overlapping the one before.
pub async fn every<T, F, Fut>(it: T, period: Duration, mut work: F)
where
    T: Clone,
    F: FnMut(T) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let mut tick = tokio::time::interval(period);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        work(it.clone()).await;
    }
}

/// Measures this machine's skew from the engine's clock. The skew is measured against the
/// real system clock and applied to the node's `Clock`, so a test that moves its clock
/// moves the shared time too.
async fn sync_clock(rt: &Realtime) {
    let real_ms = || chrono::Utc::now().timestamp_millis();
    let before = real_ms();
    match rt.engine.now_ms().await {
        Ok(shared) => {
            let after = real_ms();
            let offset = shared - (before + after) / 2;
            rt.clock.set_offset_ms(offset);
        }
        Err(e) => tracing::warn!(error = %e, "reading the shared clock"),
    }
}

/// Hands the events of this node's inbox to its sockets. Its inboxes come from `start_as`:
/// the first when the node starts, a new one whenever it starts over as a new instance. A
/// gap (the inbox overflowed or the bus reconnected) closes every socket of the node:
/// their clients reconnect and resume rather than go on with a hole in what they were told.
async fn listen_bus(rt: Realtime, mut next_inboxes: tokio::sync::mpsc::Receiver<Inbox>) {
    let Some(mut inbox) = next_inboxes.recv().await else {
        return;
    };
    loop {
        let received = tokio::select! {
            received = inbox.recv() => received,
            next = next_inboxes.recv() => {
                match next {
                    // The node starts over as a new instance (its old sockets are closed).
                    Some(next) => inbox = next,
                    None => break,
                }
                continue;
            }
        };
        match received {
            Some(Received::Event(event)) => {
                let hub = &rt.hub;
                let needed = event.to.is_empty() || event.to.iter().any(|u| hub.holds(*u));
                if needed {
                    rt.metrics.events_in.needed.inc();
                } else {
                    rt.metrics.events_in.unneeded.inc();
                    continue;
                }
                if event.to.is_empty() {
                    hub.send_all(&event.frame);
                    rt.on_air.heard(&event.frame, rt.clock.now_ms());
                    continue;
                }
                match event.kind() {
                    Kind::Frame(frame) => event.to.iter().for_each(|u| hub.send_to(*u, frame)),
                    // Built once here, for the members this node holds.
                    Kind::Chat { id, body } => match chat_frame(id, body) {
                        Some(frame) => event.to.iter().for_each(|u| hub.send_to(*u, &frame)),
                        None => tracing::error!(event = %event.frame, "an unreadable chat event"),
                    },
                    // Each member this node holds is told their own frame of the room.
                    Kind::Matched(body) => {
                        let asked = body.asked;
                        let room = body.room();
                        for u in &event.to {
                            if let Some(frame) = matched_frame(&room, asked, *u) {
                                hub.send_to(*u, &frame);
                            }
                        }
                    }
                    Kind::Recheck => event.to.iter().for_each(|u| hub.recheck(*u)),
                    Kind::Replaced(at) => event
                        .to
                        .iter()
                        .for_each(|u| hub.replace(*u, &at.instance, at.socket)),
                    Kind::Unreadable => {
                        tracing::error!(event = %event.frame, "an unreadable event on the bus")
                    }
                }
            }
            Some(Received::Gap) => {
                // The bus may have reconnected to a Redis that no longer knows this
                // instance (it restarted empty): beat now, so that the sockets closed here
                // come back to a live instance, and are closed once, not twice.
                let started_over = matches!(beat(&rt).await, Ok((_, true)));
                if !started_over {
                    rt.metrics.bus_gaps.inc();
                    let sockets = rt.hub.user_count();
                    tracing::error!(
                        users = sockets,
                        "events for this node may have been lost on the bus; closing every socket so that its client resumes"
                    );
                    rt.hub.kick_all(Kick::Resync);
                }
            }
            // The instance's inbox ended (it was given up for dead): wait for the next.
            None => match next_inboxes.recv().await {
                Some(next) => inbox = next,
                None => break,
            },
        }
    }
}

/// Pushes each new round to this node's sockets and ends the waits of the round before.
/// Rounds only move on: the shared clock may step back a millisecond or two when its skew
/// is measured again, and a step back over a round's start must not begin the round twice
/// (its push, its waiters' end and its echo told again).
async fn rounds(rt: Realtime) {
    let mut last = rt.round_state().round;
    loop {
        let at = round_at(rt.clock.now_ms());
        if at.number <= last {
            tokio::time::sleep(round_wait(at.remaining_ms)).await;
            continue;
        }
        let now = rt.round_state();
        rt.hub.send_all(&frame("round", &now));
        let ended = last;
        last = now.round;
        let expired = frame("matchExpired", &MatchExpired { round: ended });
        if let Err(e) = rt.engine.expire_round(ended, &expired).await {
            tracing::warn!(error = %e, round = ended, "expiring a round");
        }
        tokio::spawn(echo(rt.clone(), ended));
    }
}

fn round_at(now_ms: i64) -> RoundAt {
    RoundAt::of(chrono::DateTime::from_timestamp_millis(now_ms).unwrap_or_default())
}

/// How long the rounds' task sleeps when the next round begins in `remaining_ms`: until a
/// millisecond after it (the timer's grain), at most `ROUND_WATCH`. An idle node wakes
/// about once a second for the rounds, not five times.
fn round_wait(remaining_ms: i64) -> Duration {
    let until = Duration::from_millis(u64::try_from(remaining_ms.max(0)).unwrap_or(0) + 1);
    until.min(ROUND_WATCH)
}

/// Pushes to this node's sockets how many people picked each word of `round`, once the
/// joins sent in its last moment have landed; nothing when fewer than
/// `ROUND_ECHO_MIN_PICKS` picks were made, so that nobody learns what the few others chose.
async fn echo(rt: Realtime, round: i64) {
    tokio::time::sleep(ECHO_AFTER).await;
    let words: Vec<String> = rt.words_of(round).into_iter().map(|w| w.word).collect();
    let asked: Vec<&str> = words.iter().map(String::as_str).collect();
    let counts = match rt.engine.picks(round, &asked).await {
        Ok(counts) => counts,
        Err(e) => {
            tracing::warn!(error = %e, round, "reading a round's picks");
            return;
        }
    };
    if counts.iter().sum::<u64>() < ROUND_ECHO_MIN_PICKS {
        return;
    }
    let words = words
        .into_iter()
        .zip(counts)
        .map(|(word, count)| WordPicks { word, count })
        .collect();
    rt.hub
        .send_all(&frame("roundEcho", &RoundEcho { round, words }));
}

/// Beats for this node instance every few seconds and pushes the online count to this
/// node's sockets when it changes. An instance the engine gave up for dead starts over
/// under a new name (see `Hub::start_over`).
async fn presence(rt: Realtime) {
    let mut shown: Option<(u64, tokio::time::Instant)> = None;
    let mut tick = tokio::time::interval(PRESENCE_BEAT);
    loop {
        tick.tick().await;
        match beat(&rt).await.map(|(beat, _)| beat) {
            Ok(beat) => {
                rt.metrics.users_online.set(gauge(beat.online));
                let last = shown.map(|(count, at)| (count, at.elapsed()));
                if push_online(last, beat.online) {
                    shown = Some((beat.online, tokio::time::Instant::now()));
                    let count = OnlineCount { count: beat.online };
                    rt.hub.send_all(&frame("onlineCount", &count));
                }
            }
            Err(e) => tracing::warn!(error = %e, "presence heartbeat"),
        }
    }
}

/// Whether a beat that counted `online` pushes the count, given the last count pushed and
/// how long ago.
fn push_online(last: Option<(u64, Duration)>, online: u64) -> bool {
    match last {
        None => true,
        Some((count, ago)) => {
            count.min(online) < ONLINE_PUSH_AT_ONCE_BELOW
                || (count != online && ago >= ONLINE_PUSH_EVERY)
        }
    }
}

/// Beats for this node instance. One the engine gave up for dead starts over under a new
/// name, closing its sockets (true in the answer).
async fn beat(rt: &Realtime) -> Result<(Heartbeat, bool), EngineError> {
    let _one_at_a_time = rt.beating.lock().await;
    let instance = rt.hub.instance();
    let beat = rt
        .metrics
        .engine(
            "heartbeat",
            rt.engine.heartbeat(&instance, rt.clock.now_ms(), false),
        )
        .await?;
    if !beat.was_dropped {
        return Ok((beat, false));
    }
    let next = rt.hub.next_instance();
    tracing::error!(old = %instance, new = %next, "this node was given up for dead; starting over under a new name");
    rt.metrics.bus_gaps.inc();
    // Live as the new instance first, so that every socket that registers once the old
    // ones are closed can attach to it.
    let beat = start_as(rt, &next).await;
    rt.hub.start_over();
    Ok((beat?, true))
}

/// Listens as the instance `name`, hands the inbox to the bus listener, and only then beats
/// as it (its first beat), so nothing can be routed to the instance before it is heard.
async fn start_as(rt: &Realtime, name: &str) -> Result<Heartbeat, EngineError> {
    let inbox = rt.engine.inbox(name).await?;
    if rt.next_inbox.send(inbox).await.is_err() {
        tracing::error!("the bus listener is gone");
    }
    rt.engine.heartbeat(name, rt.clock.now_ms(), true).await
}

impl Realtime {
    /// Ends the rooms of members who have been connected to no node for longer than the grace
    /// period, and tells the partner. It reads only shared self (the engine notes a user away
    /// when their last socket anywhere closes, or when their node is given up for dead), so it
    /// holds when the node that saw the disconnect has died too. One node at a time sweeps.
    pub async fn sweep_away(&self) {
        if !self.lease("sweep", SWEEP_EVERY).await {
            return;
        }
        let grace_ms = i64::try_from(self.grace.as_millis()).unwrap_or(i64::MAX);
        let cutoff = self.clock.now_ms() - grace_ms;
        let gone = match self.engine.gone_before(cutoff).await {
            Ok(gone) => gone,
            Err(e) => return tracing::warn!(error = %e, "listing users gone away"),
        };
        for g in gone {
            let ended = self
                .end_room(&g.room_id, EndReason::Disconnected, Some(g.user_id), None)
                .await;
            if let Err(e) = ended {
                tracing::warn!(?e, room = %g.room_id, "ending the room of a user gone away");
            }
        }
    }

    /// Moves the new messages of the rooms of `share` from their streams into SQL. One node
    /// at a time does it (a short lease in the engine); were two to overlap, each message is
    /// still stored once.
    pub async fn archive(&self, share: ArchiveShare) {
        if !self.lease("archive", ARCHIVE_EVERY).await {
            return;
        }
        // Every room's new messages in one engine step, stored in one transaction; then the
        // rooms' marks move, and the ended rooms are finished.
        let backlog = match self
            .engine
            .archive_backlog(share, ARCHIVE_BATCH, ARCHIVE_TURN, self.clock.now_ms())
            .await
        {
            Ok(backlog) => backlog,
            Err(e) => return tracing::warn!(error = %e, "reading the rooms to archive"),
        };
        // Reading thousands of messages is work of milliseconds: off the threads that serve the
        // sockets.
        let decoded = tokio::task::spawn_blocking(move || {
            let messages: Vec<ArchivedMessage> = backlog
                .iter()
                .flat_map(|b| archived(&b.room_id, &b.entries))
                .collect();
            (backlog, messages)
        })
        .await;
        let Ok((backlog, messages)) = decoded else {
            return tracing::error!("reading the archive's turn failed");
        };
        if !messages.is_empty() {
            let room = |id: &str| {
                backlog
                    .iter()
                    .find(|b| b.room_id == id)
                    .and_then(|b| b.room.as_ref())
            };
            if let Err(e) = store_messages(self, &messages, room).await {
                // Nothing moves on; the next turn tries the same messages again.
                return tracing::warn!(error = %e, messages = messages.len(), "archiving messages");
            }
        }
        // A room is finished when it ended a while ago (or is gone) and this turn read all it
        // had; its record and end are made sure of in SQL before its stream goes.
        let now = self.clock.now_ms();
        let finished: Vec<(String, Option<Room>)> = backlog
            .iter()
            .filter(|b| is_finished(b, now))
            .map(|b| (b.room_id.clone(), b.room.clone()))
            .collect();
        let done: HashSet<String> = stream::iter(finished)
            .map(|(room_id, room)| async move {
                match make_sure(self, &room_id, room.as_ref()).await {
                    Ok(()) => Some(room_id),
                    Err(e) => {
                        tracing::warn!(error = %e, room = %room_id, "finishing an archived room");
                        None
                    }
                }
            })
            .buffer_unordered(ARCHIVE_CONCURRENCY)
            .filter_map(|done| async move { done })
            .collect()
            .await;
        // A finished room leaves the list; another moves its mark when it had new messages,
        // and rests until it may be finished once it ended and the turn read all it had.
        let marks: Vec<ArchiveMark<'_>> = backlog
            .iter()
            .filter_map(|b| {
                let done = done.contains(&b.room_id);
                let read = b.entries.last().map(|e| e.id.as_str());
                let rest_until = rest_until(b).filter(|_| !done);
                (done || read.is_some() || rest_until.is_some()).then(|| ArchiveMark {
                    room_id: &b.room_id,
                    upto: read.or(b.archived.as_deref()).unwrap_or("0-0"),
                    done,
                    rest_until,
                })
            })
            .collect();
        if let Err(e) = self.engine.mark_archived(&marks).await {
            tracing::warn!(error = %e, rooms = marks.len(), "moving the archive's marks");
        }
    }

    /// Archives what one room's stream holds beyond the archive's cursor now, without waiting
    /// for the archive's next turn (a report needs the last words in the transcript). Each
    /// message is stored once by its stream id, so this may overlap a turn of the archive.
    pub async fn flush_room(&self, room_id: &str) -> anyhow::Result<()> {
        loop {
            let p = pending(self, room_id).await?;
            let Some(cursor) = p.cursor.clone() else {
                return Ok(());
            };
            if p.messages.is_empty() {
                return Ok(());
            }
            let n = p.messages.len();
            // The room reaches SQL through the recorder, a moment after its match; its
            // messages cannot go before it.
            if let Some(room) = &p.room {
                if self.store.room_record(room_id).await?.is_none() {
                    self.record_matches(std::slice::from_ref(room)).await;
                }
            }
            store_messages(self, &p.messages, |_| p.room.as_ref()).await?;
            if p.room.is_some() {
                let mark = ArchiveMark {
                    room_id,
                    upto: &cursor,
                    done: false,
                    rest_until: None,
                };
                self.engine.mark_archived(&[mark]).await?;
            }
            if n < ARCHIVE_BATCH {
                return Ok(());
            }
        }
    }
}

/// Stores messages in the archive. The database may refuse one (a room it does not know
/// yet, a text it cannot hold): that one must not hold back the others, nor every later
/// turn. A message refused whose room the engine still knows gets the room recorded (the
/// recorder may be behind) and one more try; one refused again is counted
/// (`store_rejected_total{op="archive_messages"}`), logged once, and left out. Fails only
/// when the database did not answer, and then nothing moves on.
async fn store_messages<'a>(
    rt: &Realtime,
    messages: &[ArchivedMessage],
    room: impl Fn(&str) -> Option<&'a Room>,
) -> Result<(), StoreError> {
    const OP: &str = "archive_messages";
    let batch = rt
        .metrics
        .store(OP, rt.store.archive_messages(messages))
        .await?;
    if batch.refused.is_empty() {
        return Ok(());
    }
    let refused: Vec<ArchivedMessage> = batch
        .refused
        .iter()
        .filter_map(|(i, _)| messages.get(*i).cloned())
        .collect();
    let mut rooms: Vec<Room> = Vec::new();
    for m in &refused {
        if let Some(r) = room(&m.room_id).filter(|r| !rooms.iter().any(|k| k.id == r.id)) {
            rooms.push(r.clone());
        }
    }
    if !rooms.is_empty() {
        rt.record_matches(&rooms).await;
    }
    let again = rt
        .metrics
        .store(OP, rt.store.archive_messages(&refused))
        .await?;
    for (i, e) in again.refused {
        if let Some(m) = refused.get(i) {
            rt.metrics.count_rejected(OP);
            tracing::warn!(
                error = %e,
                room = %m.room_id,
                id = %m.msg_id,
                sender = m.sender_id,
                "a message the database refused was left out of the archive"
            );
        }
    }
    Ok(())
}

/// What one room's stream holds beyond the archive's mark, for `flush_room`.
struct Pending {
    messages: Vec<ArchivedMessage>,
    /// The last stream id read (or archived before).
    cursor: Option<String>,
    /// The room, `None` when it is gone from the engine.
    room: Option<Room>,
}

async fn pending(rt: &Realtime, room_id: &str) -> anyhow::Result<Pending> {
    let archived = rt.engine.archived_upto(room_id).await?;
    let batch = rt
        .engine
        .read_after(room_id, archived.as_deref(), ARCHIVE_BATCH)
        .await?;
    let cursor = batch.last().map(|e| e.id.clone()).or(archived);
    let room = rt.engine.room(room_id).await?;
    Ok(Pending {
        messages: self::archived(room_id, &batch),
        cursor,
        room,
    })
}

/// The archive's rows of a room's stream entries (an unreadable entry is left out).
fn archived(room_id: &str, entries: &[StreamEntry]) -> Vec<ArchivedMessage> {
    entries
        .iter()
        .filter_map(|e| {
            let (sender_id, body, sent_at) = decode(&e.data)?;
            Some(ArchivedMessage {
                room_id: room_id.to_owned(),
                msg_id: e.id.clone(),
                sender_id,
                body,
                sent_at,
            })
        })
        .collect()
}

/// When a room may be finished, once it ended and a turn read all it had (an ended
/// room's stream takes nothing more): the archive passes it by until then.
fn rest_until(b: &Backlog) -> Option<i64> {
    let ended = b.room.as_ref()?.ended_ms?;
    // A room with more than a batch of new messages is read again at a later turn.
    (b.entries.len() < ARCHIVE_BATCH).then_some(ended + ENDED_STREAM_KEEP_MS + 1)
}

/// Whether the archive is done with a room after this turn: it ended a while ago (or is
/// gone), and the turn read all it had.
fn is_finished(b: &Backlog, now_ms: i64) -> bool {
    match &b.room {
        None => b.entries.len() < ARCHIVE_BATCH,
        Some(_) => rest_until(b).is_some_and(|until| until <= now_ms),
    }
}

/// Before a finished room's stream goes: the room and its end were recorded when they
/// happened, off the critical path; here again in case either failed or the end overtook
/// the room.
async fn make_sure(rt: &Realtime, room_id: &str, room: Option<&Room>) -> anyhow::Result<()> {
    let Some(room) = room else {
        return Ok(());
    };
    if rt.store.room_record(room_id).await?.is_none() {
        rt.record_matches(std::slice::from_ref(room)).await;
    }
    if let Some(ended) = room.ended_ms {
        rt.store.mark_room_ended(room_id, ended).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rounds_task_wakes_just_after_a_round_begins_and_at_least_every_watch() {
        assert_eq!(round_wait(300), Duration::from_millis(301));
        assert_eq!(round_wait(0), Duration::from_millis(1));
        assert_eq!(round_wait(-5), Duration::from_millis(1));
        assert_eq!(round_wait(29_000), ROUND_WATCH);
    }

    #[test]
    fn a_small_count_is_pushed_at_every_beat_even_unchanged() {
        let now = Duration::ZERO;
        assert!(push_online(None, 1));
        assert!(
            push_online(Some((2, now)), 2),
            "a socket answered between beats may hold 1"
        );
        assert!(push_online(Some((2, now)), 3));
        assert!(
            push_online(Some((9, now)), 500),
            "from small to large at once"
        );
        assert!(
            push_online(Some((500, now)), 9),
            "from large to small at once"
        );
    }

    #[test]
    fn a_large_count_is_pushed_when_it_changed_at_most_every_ten_seconds() {
        assert!(!push_online(Some((500, Duration::from_secs(60))), 500));
        assert!(!push_online(Some((500, Duration::from_secs(3))), 501));
        assert!(push_online(Some((500, ONLINE_PUSH_EVERY)), 501));
    }
}
