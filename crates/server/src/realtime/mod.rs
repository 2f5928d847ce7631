//! Real time: matching, chat relay, presence, round pushes and the archive of
//! conversations, on this node's sockets (`hub`) and the shared engine. The rules live
//! here, on [`Realtime`], with the handles they need (engine, store, metrics, the shared
//! clock); a socket's life, from attach to detach, is `session`'s, and its upgrade
//! `api::socket`'s, above.

mod again;
pub mod hub;
pub mod on_air;
mod round;
pub mod session;
mod tasks;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::RngCore;
use serde::{Deserialize, Serialize};
use telepathy_domain::limits::CONTACT_SHIELD;
use telepathy_domain::moderation;
use telepathy_domain::round::ServiceWindow;
use telepathy_domain::text::ChatText;
use telepathy_domain::ErrorCode;
use telepathy_engine::bus::ChatBody;
use telepathy_engine::{
    bus, is_stream_id, parse_stream_id, Engine, Farewell, JoinOutcome, Member, MessageFrame, Room,
    SocketAt,
};
use telepathy_store::{MatchSide, RoomRecord, Store, User};
use tokio::sync::mpsc;

pub use again::Invited;
pub use tasks::every;

use self::hub::{Hub, Kick};
use self::on_air::OnAir;
use crate::clock::{SharedClock, ShiftedClock};
use crate::error::internal_code as internal;
use crate::metrics::Metrics;
use crate::wire::{
    frame, ChatEnded, ChatMessage, EndReason, JoinMatch, MatchState, Matched, Question, ReadMark,
    RoomRef, SendChatMessage,
};

/// Rooms' news waiting for the recorder before one is written on its own.
const ROOM_RECORDS_QUEUE: usize = 10_000;

/// What the recorder writes to SQL about a room, in batches (see `tasks::record_rooms`).
pub enum RoomRecordNews {
    /// A new room: its members and their nicknames as of the match (each one's word history).
    Made(Room),
    /// A room ended (room id, ms).
    Ended(String, i64),
}

/// What real time is made of on a node: the handles it shares with the rest of the node
/// and what it was configured with.
pub struct Parts {
    pub node_id: String,
    pub engine: Arc<dyn Engine>,
    pub store: Store,
    pub metrics: Arc<Metrics>,
    pub clock: Arc<SharedClock>,
    /// The service's configured hours.
    pub window: ServiceWindow,
    /// The demo's movable clock, when the node runs the demo (see `service_window`).
    pub demo_clock: Option<Arc<ShiftedClock>>,
    /// How long a member may be connected nowhere before their chat ends.
    pub grace: Duration,
}

/// This node's real time, one per node (in `AppState`), cheap to clone: the rules of
/// matching and chat, this node's open sockets, the megaphones it has heard on air, the
/// bus listener's inboxes, the rooms on their way to SQL, and whether it beats and
/// drains.
#[derive(Clone)]
pub struct Realtime(Arc<Inner>);

pub struct Inner {
    /// This node's open sockets.
    pub hub: Hub,
    /// The megaphones on air or waiting, for the sockets that open meanwhile.
    pub on_air: OnAir,
    engine: Arc<dyn Engine>,
    store: Store,
    metrics: Arc<Metrics>,
    clock: Arc<SharedClock>,
    window: ServiceWindow,
    demo_clock: Option<Arc<ShiftedClock>>,
    grace: Duration,
    /// The approved custom word sets in the rotation, as last read from SQL (see `round`).
    custom_sets: std::sync::RwLock<Arc<Vec<telepathy_domain::words::CustomSet>>>,
    /// Tonight's word as last read (see `Realtime::tonight`).
    tonight: std::sync::Mutex<Option<round::TonightRead>>,
    /// Held while this node beats, so that the heartbeat and the bus listener never both
    /// start the node over.
    beating: tokio::sync::Mutex<()>,
    /// Set once the node was told to stop: `/readyz` says no and new sockets are refused.
    draining: AtomicBool,
    /// A new inbox for the bus listener, when the node starts over as a new instance.
    next_inbox: mpsc::Sender<telepathy_engine::Inbox>,
    next_inbox_rx: std::sync::Mutex<Option<mpsc::Receiver<telepathy_engine::Inbox>>>,
    /// Rooms made and ended on their way to SQL (see `tasks::record_rooms`).
    room_records: mpsc::Sender<RoomRecordNews>,
    room_records_rx: std::sync::Mutex<Option<mpsc::Receiver<RoomRecordNews>>>,
}

impl std::ops::Deref for Realtime {
    type Target = Inner;

    fn deref(&self) -> &Inner {
        &self.0
    }
}

impl Realtime {
    /// The real time of a node, before its tasks start (see [`Realtime::start`]).
    pub fn new(parts: Parts) -> Self {
        let (room_records, room_records_rx) = mpsc::channel(ROOM_RECORDS_QUEUE);
        let (next_inbox, next_inbox_rx) = mpsc::channel(1);
        Self(Arc::new(Inner {
            hub: Hub::new(&parts.node_id, Arc::clone(&parts.metrics)),
            on_air: OnAir::default(),
            engine: parts.engine,
            store: parts.store,
            metrics: parts.metrics,
            clock: parts.clock,
            window: parts.window,
            demo_clock: parts.demo_clock,
            grace: parts.grace,
            custom_sets: std::sync::RwLock::new(Arc::new(Vec::new())),
            tonight: std::sync::Mutex::new(None),
            beating: tokio::sync::Mutex::new(()),
            draining: AtomicBool::new(false),
            next_inbox,
            next_inbox_rx: std::sync::Mutex::new(Some(next_inbox_rx)),
            room_records,
            room_records_rx: std::sync::Mutex::new(Some(room_records_rx)),
        }))
    }

    /// Starts leaving: `/readyz` turns false, new sockets are refused, and every open
    /// socket is closed with 1012 so its client reconnects to another node and resumes.
    pub fn drain(&self) {
        if !self.draining.swap(true, Ordering::SeqCst) {
            tracing::info!(users = self.hub.user_count(), "draining");
            self.hub.kick_all(Kick::Drain);
        }
    }

    /// Whether the node is leaving.
    pub fn draining(&self) -> bool {
        self.draining.load(Ordering::SeqCst)
    }
}

/// The longest client id of a chat message kept (longer ones are dropped): the web app's
/// are UUIDs.
const CLIENT_ID_MAX: usize = 64;

/// The `chatMessage` frame of the chat message `id` from the bus, built from its `body`
/// (a [`ChatBody`]); `None` when the body is not one.
pub(crate) fn chat_frame(id: &str, body: &str) -> Option<String> {
    let body = ChatBody::read(body)?;
    Some(frame("chatMessage", &ChatMessage::of(id, body)))
}

/// The `matched` frame a member of a new room is told, built from the room's event on the
/// node that holds the member; `None` for anyone else.
pub(crate) fn matched_frame(room: &Room, asked: bool, user_id: i64) -> Option<String> {
    let told = Matched::for_member(room, user_id)?;
    Some(frame(
        "matched",
        &Matched {
            again: asked.then_some(true),
            ..told
        },
    ))
}

/// A chat message sent.
#[derive(Debug, Clone, Copy)]
pub struct Sent {
    /// Abusive words were masked in it (the socket counts it toward an automatic report,
    /// see `safety`).
    pub masked: bool,
}

/// What a chat message stores in its room stream.
#[derive(Debug, Serialize, Deserialize)]
struct StoredMessage {
    from: i64,
    /// What the members see: masked where the abuse filter found something.
    text: String,
    at: i64,
    client_id: Option<String>,
    /// What the sender wrote, when `text` is masked: the archive keeps it for the
    /// operations team, the members never see it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    said: Option<String>,
}

fn random_room_id() -> String {
    let mut bytes = [0u8; 16];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    hex::encode(bytes)
}

/// Whether `id` has the shape of the ids `random_room_id` makes; anything else names no
/// room and is not worth a look-up (nor fit for one: a NUL byte, say, is refused by
/// PostgreSQL).
pub fn is_room_id(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Refuses a room id a client sent that [`is_room_id`] does not take, as a room the user
/// is not in, before the engine sees it: there, another key of a room's (its stream, say)
/// would be read as the room.
fn room_id_shape(id: &str) -> Result<(), ErrorCode> {
    if is_room_id(id) {
        Ok(())
    } else {
        Err(ErrorCode::NotInRoom)
    }
}

impl Realtime {
    /// Sends a frame to users wherever they are connected.
    pub async fn deliver(&self, to: &[i64], frame: &str) {
        if let Err(e) = self
            .metrics
            .engine("deliver", self.engine.deliver(to, frame))
            .await
        {
            tracing::error!(error = %e, "delivering an event");
        }
    }

    /// Makes every node's sockets of `user_id` check their session at once, so a logout,
    /// password change or withdrawal closes revoked sockets everywhere, not only at the
    /// next periodic check; the sockets also read the user again (a new nickname).
    pub async fn recheck_sessions(&self, user_id: i64) {
        self.deliver(&[user_id], bus::RECHECK).await;
    }

    /// Closes the socket `at` of `user_id`, on whichever node holds it: a newer one of the
    /// user replaced it.
    pub async fn close_replaced(&self, user_id: i64, at: &SocketAt) {
        let frame = format!("{}{}/{}", bus::REPLACED, at.instance, at.socket);
        self.deliver(&[user_id], &frame).await;
    }

    /// Whom `user_id` must never be matched with: whom they blocked and who blocked them.
    pub async fn kept_apart(&self, user_id: i64) -> Result<Vec<i64>, ErrorCode> {
        self.metrics
            .store("kept_apart", self.store.kept_apart(user_id))
            .await
            .map_err(|e| internal("reading blocks", e))
    }

    /// Keeps the user and the partner of a room they were in apart from now on: neither
    /// is ever matched with the other again, on any node.
    pub async fn block_partner(&self, user_id: i64, room_id: &str) -> Result<(), ErrorCode> {
        let partner = self
            .partner_in(user_id, room_id)
            .await?
            .ok_or(ErrorCode::NotInRoom)?;
        self.store
            .add_block(user_id, partner, self.clock.now_ms())
            .await
            .map_err(|e| internal("saving a block", e))?;
        // Both users' sockets read their lists again before their next join.
        self.recheck_sessions(user_id).await;
        self.recheck_sessions(partner).await;
        Ok(())
    }

    /// `join_match`: the current round, one of its words, the service open; never with
    /// anyone in `apart` (blocked either way, see `kept_apart`).
    pub async fn join_match(
        &self,
        user: &User,
        join: &JoinMatch,
        apart: &[i64],
    ) -> Result<(), ErrorCode> {
        let started = Instant::now();
        let round = self.round_state();
        if !round.is_open {
            return Err(ErrorCode::ServiceClosed);
        }
        if join.round != round.round {
            return Err(ErrorCode::RoundOver);
        }
        if !round.words.iter().any(|w| w.word == join.word) {
            return Err(ErrorCode::WordNotInRound);
        }
        let nickname = user.nickname.clone().ok_or(ErrorCode::NicknameNeeded)?;
        let me = Member {
            user_id: user.id,
            nickname,
        };
        let now = self.clock.now_ms();
        let waiting = frame(
            "matchWaiting",
            &MatchState {
                word: join.word.clone(),
                round: round.round,
            },
        );
        let outcome = self
            .metrics
            .engine(
                "join",
                self.engine.join(
                    round.round,
                    &join.word,
                    &me,
                    apart,
                    &random_room_id(),
                    now,
                    &waiting,
                ),
            )
            .await
            .map_err(|e| internal("joining a queue", e))?;
        self.metrics.joins.inc();
        match outcome {
            // Told in the join itself.
            JoinOutcome::Waiting => Ok(()),
            JoinOutcome::AlreadyInRoom(_) => Err(ErrorCode::AlreadyInRoom),
            JoinOutcome::Matched(room) => {
                // Both were told in the join; the durable record follows off the critical
                // path (the archive re-checks it when the room is finished).
                self.metrics.matches.inc();
                self.metrics
                    .match_latency
                    .observe(started.elapsed().as_secs_f64());
                self.record_later(RoomRecordNews::Made(room));
                Ok(())
            }
        }
    }

    /// Hands a room's news to the recorder, which writes rooms to SQL in batches (one
    /// commit for many matches at a round's start, one statement for many ends). Never
    /// dropped: with the recorder behind, the news is written on its own.
    fn record_later(&self, news: RoomRecordNews) {
        if let Err(
            mpsc::error::TrySendError::Full(news) | mpsc::error::TrySendError::Closed(news),
        ) = self.room_records.try_send(news)
        {
            let realtime = self.clone();
            tokio::spawn(async move { realtime.record_rooms(vec![news]).await });
        }
    }

    /// Writes rooms' news to SQL: the new rooms first, then the ends.
    pub(crate) async fn record_rooms(&self, news: Vec<RoomRecordNews>) {
        let mut made = Vec::new();
        let mut ended = Vec::new();
        for n in news {
            match n {
                RoomRecordNews::Made(room) => made.push(room),
                RoomRecordNews::Ended(room_id, at) => ended.push((room_id, at)),
            }
        }
        if !made.is_empty() {
            self.record_matches(&made).await;
        }
        if !ended.is_empty() {
            let ends: Vec<(&str, i64)> = ended.iter().map(|(id, at)| (id.as_str(), *at)).collect();
            // The archive marks them again when it finishes the rooms, should this fail.
            if let Err(e) = self
                .metrics
                .store("mark_room_ended", self.store.mark_rooms_ended(&ends))
                .await
            {
                tracing::error!(error = %e, rooms = ends.len(), "recording rooms' ends");
            }
        }
    }

    /// Writes new rooms to SQL, with the members' nicknames as of the match, in one transaction.
    pub(crate) async fn record_matches(&self, rooms: &[Room]) {
        let records: Vec<RoomRecord> = rooms.iter().map(record_of).collect();
        let batch: Vec<_> = rooms
            .iter()
            .zip(&records)
            .map(|(room, record)| (record, room.members.each_ref().map(side_of)))
            .collect();
        const OP: &str = "record_matches";
        match self
            .metrics
            .store(OP, self.store.record_matches(&batch))
            .await
        {
            // The chats go on; the archive records each room again when it finishes it.
            Err(e) => tracing::error!(error = %e, rooms = rooms.len(), "recording matches"),
            // A room the database refused holds back no other; it is told once here.
            Ok(written) => {
                for (i, e) in written.refused {
                    if let Some(room) = rooms.get(i) {
                        self.metrics.count_rejected(OP);
                        tracing::warn!(error = %e, room = %room.id, "the database refused a room");
                    }
                }
            }
        }
    }

    /// A room by id, open or recently ended, for building its frames; `None` when it does
    /// not exist or `user_id` is not a member.
    pub async fn room_for(&self, user_id: i64, room_id: &str) -> Result<Option<Room>, ErrorCode> {
        if !is_room_id(room_id) {
            return Ok(None);
        }
        let room = self
            .metrics
            .engine("room", self.engine.room(room_id))
            .await
            .map_err(|e| internal("reading a room", e))?;
        Ok(room.filter(|r| r.partner_of(user_id).is_some()))
    }

    /// Whether `user_id` is or was a member of the room, open or ended.
    pub async fn was_in_room(&self, user_id: i64, room_id: &str) -> Result<bool, ErrorCode> {
        Ok(self.partner_in(user_id, room_id).await?.is_some())
    }

    /// The partner of `user_id` in a room they are or were in, open or ended. The engine
    /// knows a room from its match on (until a while after it ends); the store from when
    /// the recorder writes it, a moment later, for as long as it is kept.
    pub async fn partner_in(&self, user_id: i64, room_id: &str) -> Result<Option<i64>, ErrorCode> {
        if let Some(room) = self.room_for(user_id, room_id).await? {
            return Ok(room.partner_of(user_id).map(|p| p.user_id));
        }
        if !is_room_id(room_id) {
            return Ok(None);
        }
        let stored = self
            .metrics
            .store("room_record", self.store.room_record(room_id))
            .await
            .map_err(|e| internal("reading a room", e))?;
        Ok(stored.and_then(|r| r.partner_of(user_id)))
    }

    /// `chatMessage`: in one engine step, appended to the room stream (the
    /// acknowledgement) and routed to both members. The client id makes a retry safe: a
    /// message the sender was told had failed (its answer lost in an outage) may have been
    /// appended after all, and its retry is echoed with the first id, never appended
    /// twice (see `Engine::send`). `room` is the sender's room as the
    /// socket knows it (members never change); the engine checks it is still open.
    pub async fn send_chat(
        &self,
        user: &User,
        room: &Room,
        msg: &SendChatMessage,
    ) -> Result<Sent, ErrorCode> {
        let started = Instant::now();
        let text = ChatText::parse(&msg.message)?;
        let text = text.as_ref();
        let at = self.clock.now_ms();
        let (shown, abusive) = self.screen(room, text, at);
        let stored = StoredMessage {
            from: user.id,
            said: (shown != text).then(|| text.to_owned()),
            text: shown,
            at,
            client_id: msg
                .client_id
                .clone()
                .filter(|c| !c.is_empty() && c.len() <= CLIENT_ID_MAX),
        };
        let data = serde_json::to_string(&stored).map_err(|e| internal("encoding a message", e))?;
        let Some(tail) = chat_event(room, &stored) else {
            return Err(ErrorCode::NotInRoom);
        };
        let sent = self
            .metrics
            .engine(
                "send",
                self.engine.send(
                    room,
                    user.id,
                    stored.client_id.as_deref(),
                    &data,
                    &MessageFrame {
                        head: bus::CHAT,
                        tail: &tail,
                    },
                ),
            )
            .await
            .map_err(|e| internal("sending a message", e))?;
        if sent.is_none() {
            return Err(ErrorCode::NotInRoom);
        }
        self.metrics.messages.inc();
        self.metrics
            .relay_latency
            .observe(started.elapsed().as_secs_f64());
        Ok(Sent { masked: abusive })
    }

    /// What the members see of `text`: abusive words masked, and early in a chat contact
    /// details and links too (see `moderation`). Each kind found is counted. True with it
    /// when abusive words were masked.
    fn screen(&self, room: &Room, text: &str, at: i64) -> (String, bool) {
        let mut shown = moderation::mask(text);
        let abusive = shown != text;
        if abusive {
            self.metrics.messages_masked.abuse.inc();
        }
        let shield = i64::try_from(CONTACT_SHIELD.as_millis()).unwrap_or(i64::MAX);
        if at - room.created_ms < shield {
            let without = moderation::mask_contacts(&shown);
            if without != shown {
                self.metrics.messages_masked.contact.inc();
                shown = without;
            }
        }
        (shown, abusive)
    }

    /// `typing` / `stopTyping` of a member of `room`: told to the partner only, while the
    /// room is open, in order with the user's messages. Not waited for: a notice to a room
    /// that has just ended goes nowhere, and a lost one is made good by the partner's
    /// client, which drops the indicator a while after the last `typing`.
    pub fn relay_typing(&self, room: &Room, user_id: i64, event: &str) {
        let data = RoomRef {
            room_id: room.id.clone(),
            user_id: Some(user_id),
        };
        drop(self.engine.relay(room, user_id, &frame(event, &data)));
        self.metrics.typing.told.inc();
    }

    /// `chatRead` of a member of `room`: their read mark (or their request for the
    /// partner's), told to the partner only, in the typing notices' path. `lastId` must
    /// be a message id's shape; nothing is stored.
    pub fn relay_read(&self, room: &Room, user_id: i64, mark: &ReadMark) -> Result<(), ErrorCode> {
        if mark.last_id.as_deref().is_some_and(|id| !is_stream_id(id)) {
            return Err(ErrorCode::InvalidRequest);
        }
        let data = ReadMark {
            room_id: room.id.clone(),
            last_id: mark.last_id.clone(),
            ask: mark.ask.filter(|ask| *ask),
            user_id: Some(user_id),
        };
        drop(self.engine.relay(room, user_id, &frame("chatRead", &data)));
        self.metrics.read_marks.inc();
        Ok(())
    }

    /// `nextQuestion` of a member of `room` who sees draw `draw` of its questions: both
    /// members, every socket, are told draw `draw + 1`, while the room is open. The text
    /// is drawn here from the room's word, never taken from the client.
    pub async fn next_question(&self, room: &Room, draw: u32) -> Result<(), ErrorCode> {
        let next = draw.checked_add(1).ok_or(ErrorCode::InvalidRequest)?;
        let now = self
            .metrics
            .engine("room", self.engine.room(&room.id))
            .await
            .map_err(|e| internal("reading a room", e))?;
        if now.is_none_or(|r| r.ended_ms.is_some()) {
            return Err(ErrorCode::NotInRoom);
        }
        let told = frame("question", &Question::of(room, next));
        self.deliver(&room.members.each_ref().map(|m| m.user_id), &told)
            .await;
        Ok(())
    }

    /// Ends a room the user sits in and tells both members.
    pub async fn leave_room(&self, user_id: i64, room_id: &str) -> Result<(), ErrorCode> {
        room_id_shape(room_id)?;
        if self
            .end_room(room_id, EndReason::Left, Some(user_id), Some(user_id))
            .await?
        {
            Ok(())
        } else {
            Err(ErrorCode::NotInRoom)
        }
    }

    /// Ends a room for whatever reason (only if `member` sits in it, when given); only
    /// the call that ends it tells anyone. True when this call ended it.
    pub async fn end_room(
        &self,
        room_id: &str,
        reason: EndReason,
        by: Option<i64>,
        member: Option<i64>,
    ) -> Result<bool, ErrorCode> {
        let now = self.clock.now_ms();
        let ended = ChatEnded {
            room_id: room_id.to_owned(),
            reason,
            by_user_id: by,
        };
        let told = frame(reason.event(), &ended);
        // In a chat of two, a report the other side heard of would name the reporter (the
        // report modal promises it does not): the reporter is told of the report, the
        // other side only that the reporter left.
        let left = match (reason, by) {
            (EndReason::Report, Some(reporter)) => {
                let left = ChatEnded {
                    reason: EndReason::Left,
                    ..ended
                };
                Some((reporter, frame(left.reason.event(), &left)))
            }
            _ => None,
        };
        let farewell = match &left {
            Some((reporter, left)) => Farewell {
                frame: left,
                aside: Some((*reporter, &told)),
            },
            None => Farewell {
                frame: &told,
                aside: None,
            },
        };
        let ended = self
            .metrics
            .engine(
                "end_room",
                self.engine.end_room(room_id, member, now, &farewell),
            )
            .await
            .map_err(|e| internal("ending a room", e))?;
        if ended.is_none() {
            return Ok(false);
        }
        tracing::info!(room = room_id, ?reason, "chat ended");
        self.record_later(RoomRecordNews::Ended(room_id.to_owned(), now));
        Ok(true)
    }

    /// The messages of a room after `last_id`, for a member reconnecting; and whether the
    /// room has ended.
    pub async fn missed(
        &self,
        user_id: i64,
        room_id: &str,
        last_id: Option<&str>,
    ) -> Result<(Vec<ChatMessage>, bool), ErrorCode> {
        if last_id.is_some_and(|id| !is_stream_id(id)) {
            return Err(ErrorCode::InvalidRequest);
        }
        let Some(room) = self.room_for(user_id, room_id).await? else {
            return Err(ErrorCode::NotInRoom);
        };
        let mut out = Vec::new();
        let mut after = last_id.map(str::to_owned);
        // After a hole in this node's bus the client may hold a message and not an older one.
        let last_ms = after.as_deref().and_then(parse_stream_id).map(|(ms, _)| ms);
        if let Some(floor) = last_ms.and_then(|ms| self.engine.resume_from(ms)) {
            after = Some(format!("{floor}-0"));
        }
        loop {
            let batch = self
                .engine
                .read_after(&room.id, after.as_deref(), 200)
                .await
                .map_err(|e| internal("reading a room stream", e))?;
            let Some(last) = batch.last() else { break };
            after = Some(last.id.clone());
            let full = batch.len() == 200;
            for entry in batch {
                let stored: Option<StoredMessage> = serde_json::from_str(&entry.data).ok();
                if let Some(m) = stored.and_then(|s| chat_message(&room, &entry.id, &s)) {
                    out.push(m);
                }
            }
            if !full {
                break;
            }
        }
        Ok((out, room.ended_ms.is_some()))
    }
}

fn record_of(room: &Room) -> RoomRecord {
    let [a, b] = &room.members;
    RoomRecord {
        id: room.id.clone(),
        word: room.word.clone(),
        round: room.round,
        user_a: a.user_id,
        user_b: b.user_id,
        created_at: room.created_ms,
        ended_at: None,
    }
}

fn side_of(member: &Member) -> MatchSide<'_> {
    MatchSide {
        user_id: member.user_id,
        nickname: &member.nickname,
    }
}

fn chat_message(room: &Room, id: &str, stored: &StoredMessage) -> Option<ChatMessage> {
    Some(ChatMessage::of(id, chat_body(room, stored)?))
}

fn chat_body<'a>(room: &'a Room, stored: &'a StoredMessage) -> Option<ChatBody<'a>> {
    let client_id = stored.client_id.as_deref();
    ChatBody::of(room, stored.from, &stored.text, stored.at, client_id)
}

/// What follows the stream id in a chat message's bus event (see [`bus::CHAT`]); `None`
/// when its sender is not a member.
fn chat_event(room: &Room, stored: &StoredMessage) -> Option<String> {
    Some(chat_body(room, stored)?.tail())
}

/// Reads a stored message back, for the archive.
fn decode(data: &str) -> Option<(i64, String, i64)> {
    let s: StoredMessage = serde_json::from_str(data).ok()?;
    Some((s.from, s.said.unwrap_or(s.text), s.at))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chat_event_makes_the_frame_a_resume_makes() {
        let room = Room {
            id: "r".into(),
            word: "봄 \"꽃\"".into(),
            round: 1,
            members: [1, 2].map(|id| Member {
                user_id: id,
                nickname: format!("n\\{id}"),
            }),
            created_ms: 0,
            ended_ms: None,
        };
        for client_id in [Some("cid".to_owned()), None] {
            let stored = StoredMessage {
                from: 2,
                text: "줄\n바꿈 \"#\" \u{1F600}".into(),
                at: 5,
                client_id: client_id.clone(),
                said: Some("hidden".into()),
            };
            let tail = chat_event(&room, &stored).unwrap_or_else(|| panic!("a member"));
            let event = telepathy_engine::Inbound {
                to: vec![1],
                frame: format!("{}1700000000000-3{tail}", bus::CHAT),
            };
            let telepathy_engine::Kind::Chat { id, body } = event.kind() else {
                panic!("a chat event")
            };
            let live = chat_frame(id, body).unwrap_or_else(|| panic!("a chat event"));
            let event = event.frame;
            let resumed = chat_message(&room, "1700000000000-3", &stored)
                .map(|m| frame("chatMessage", &m))
                .unwrap_or_else(|| panic!("a member"));
            assert_eq!(live, resumed);
            assert!(
                !event.contains("hidden"),
                "what the sender said unmasked stays in the stream"
            );
        }
        let stranger = StoredMessage {
            from: 3,
            text: "x".into(),
            at: 5,
            client_id: None,
            said: None,
        };
        assert!(chat_event(&room, &stranger).is_none());
        assert!(chat_frame("1-0", "{not json").is_none());
    }
}
