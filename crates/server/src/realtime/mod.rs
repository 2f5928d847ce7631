//! Real time: the WebSocket at `/ws`, matching, chat relay, presence, round pushes and the
//! archive of conversations. The rules live here; `socket` only reads and writes frames.

pub mod hub;
pub mod protocol;
mod socket;
mod tasks;

use std::sync::atomic::Ordering;

use rand::RngCore;
use serde::{Deserialize, Serialize};
use telepathy_domain::round::RoundAt;
use telepathy_domain::words::topic_for_round;
use telepathy_domain::ErrorCode;
use telepathy_engine::{JoinOutcome, Member, Room};
use telepathy_store::{MatchSide, RoomRecord, User};

pub use socket::ws;
pub use tasks::{archive, start};

use self::protocol::{
    frame, ChatEnded, ChatMessage, EndReason, JoinMatch, MatchState, Matched, RoundState,
    RoundWord, SendChatMessage,
};
use crate::error::internal_code as internal;
use crate::state::AppState;

/// The longest chat message, in characters.
pub const MESSAGE_MAX_CHARS: usize = 1000;

/// An event on the bus between nodes: a frame and who gets it.
#[derive(Debug, Serialize, Deserialize)]
pub struct Envelope {
    /// Receiving users; empty means everyone.
    pub to: Vec<i64>,
    pub frame: String,
    /// Instead of a frame: the receivers' sockets re-check their sessions now (a session
    /// of theirs was revoked somewhere).
    #[serde(default)]
    pub recheck: bool,
}

/// What a chat message stores in its room stream.
#[derive(Debug, Serialize, Deserialize)]
struct StoredMessage {
    from: i64,
    text: String,
    at: i64,
    client_id: Option<String>,
}

fn random_room_id() -> String {
    let mut bytes = [0u8; 16];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    hex::encode(bytes)
}

impl AppState {
    /// The shared clock: the local clock corrected by the engine's offset.
    pub fn shared_now_ms(&self) -> i64 {
        chrono::Utc::now().timestamp_millis() + self.clock_offset_ms.load(Ordering::Relaxed)
    }

    /// The round as everyone sees it now.
    pub fn round_state(&self) -> RoundState {
        let now_ms = self.shared_now_ms();
        let now = chrono::DateTime::from_timestamp_millis(now_ms).unwrap_or_default();
        let at = RoundAt::of(now);
        let window = self.config.service_window;
        let is_open = window.is_open(now);
        let topic = topic_for_round(at.number);
        RoundState {
            is_open,
            round: at.number,
            remaining: at.remaining_secs(),
            words: topic
                .words
                .iter()
                .map(|w| RoundWord {
                    word: (*w).to_owned(),
                    paid: topic.paid,
                    custom: false,
                })
                .collect(),
            server_time: now_ms,
            next_open_at: if is_open {
                None
            } else {
                window.next_opening(now).map(|t| t.to_rfc3339())
            },
        }
    }

    /// Sends a frame to users wherever they are connected.
    pub async fn deliver(&self, to: Vec<i64>, frame: String) {
        self.publish(&Envelope {
            to,
            frame,
            recheck: false,
        })
        .await;
    }

    /// Makes every node's sockets of `user_id` check their session at once, so a logout,
    /// password change or withdrawal closes revoked sockets everywhere, not only at the
    /// next periodic check.
    pub async fn recheck_sessions(&self, user_id: i64) {
        self.publish(&Envelope {
            to: vec![user_id],
            frame: String::new(),
            recheck: true,
        })
        .await;
    }

    async fn publish(&self, envelope: &Envelope) {
        match serde_json::to_string(envelope) {
            Ok(text) => {
                if let Err(e) = self.engine.publish(&text).await {
                    tracing::error!(error = %e, "publishing an event");
                }
            }
            Err(e) => tracing::error!(error = %e, "encoding an event"),
        }
    }

    /// `join_match`: the current round, one of its words, the service open.
    pub async fn join_match(&self, user: &User, join: &JoinMatch) -> Result<(), ErrorCode> {
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
            username: user.username.clone(),
            nickname,
        };
        let now = self.shared_now_ms();
        let outcome = self
            .engine
            .join(round.round, &join.word, &me, &random_room_id(), now)
            .await
            .map_err(|e| internal("joining a queue", e))?;
        match outcome {
            JoinOutcome::Waiting => {
                let state = MatchState {
                    word: join.word.clone(),
                    round: round.round,
                };
                self.deliver(vec![user.id], frame("matchWaiting", &state))
                    .await;
                Ok(())
            }
            JoinOutcome::AlreadyInRoom(_) => Err(ErrorCode::AlreadyInRoom),
            JoinOutcome::Matched(room) => {
                self.record_match(&room).await;
                for me in &room.members {
                    let Some(partner) = room.partner_of(me.user_id) else {
                        continue;
                    };
                    let matched = Matched {
                        room_id: room.id.clone(),
                        word: room.word.clone(),
                        round: room.round,
                        sender_id: me.user_id,
                        sender_username: me.username.clone(),
                        sender_nickname: me.nickname.clone(),
                        receiver_id: partner.user_id,
                        receiver_username: partner.username.clone(),
                        receiver_nickname: partner.nickname.clone(),
                    };
                    self.deliver(vec![me.user_id], frame("matched", &matched))
                        .await;
                }
                tracing::info!(room = %room.id, word = %room.word, round = room.round, "matched");
                Ok(())
            }
        }
    }

    async fn record_match(&self, room: &Room) {
        let [a, b] = &room.members;
        let record = RoomRecord {
            id: room.id.clone(),
            word: room.word.clone(),
            round: room.round,
            user_a: a.user_id,
            user_b: b.user_id,
            created_at: room.created_ms,
            ended_at: None,
        };
        let sides = [
            MatchSide {
                user_id: a.user_id,
                nickname: &a.nickname,
            },
            MatchSide {
                user_id: b.user_id,
                nickname: &b.nickname,
            },
        ];
        if let Err(e) = self.store.record_match(&record, sides).await {
            // The chat goes on; only the durable record is missing, and the log says so.
            tracing::error!(error = %e, room = %room.id, "recording a match");
        }
    }

    /// The open room `room_id` if `user_id` sits in it.
    async fn my_room(&self, user_id: i64, room_id: &str) -> Result<Room, ErrorCode> {
        let room = self
            .engine
            .room_of(user_id)
            .await
            .map_err(|e| internal("finding a room", e))?;
        room.filter(|r| r.id == room_id).ok_or(ErrorCode::NotInRoom)
    }

    /// `chatMessage`: appended to the room stream (the acknowledgement), then relayed to both.
    pub async fn send_chat(&self, user: &User, msg: &SendChatMessage) -> Result<(), ErrorCode> {
        let text = msg.message.trim();
        if text.is_empty() {
            return Err(ErrorCode::MessageEmpty);
        }
        if text.chars().count() > MESSAGE_MAX_CHARS {
            return Err(ErrorCode::MessageTooLong);
        }
        let room = self.my_room(user.id, &msg.room_id).await?;
        let stored = StoredMessage {
            from: user.id,
            text: text.to_owned(),
            at: self.shared_now_ms(),
            client_id: msg.client_id.clone().filter(|c| c.len() <= 64),
        };
        let data = serde_json::to_string(&stored).map_err(|e| internal("encoding a message", e))?;
        let id = self
            .engine
            .append(&room.id, &data)
            .await
            .map_err(|e| internal("appending a message", e))?;
        if let Some(out) = chat_message(&room, &id, &stored) {
            let to = room.members.iter().map(|m| m.user_id).collect();
            self.deliver(to, frame("chatMessage", &out)).await;
        }
        Ok(())
    }

    /// `typing` / `stopTyping`: relayed to the partner only.
    pub async fn relay_typing(
        &self,
        user_id: i64,
        room_id: &str,
        event: &str,
    ) -> Result<(), ErrorCode> {
        let room = self.my_room(user_id, room_id).await?;
        if let Some(partner) = room.partner_of(user_id) {
            let data = protocol::RoomRef {
                room_id: room.id.clone(),
                user_id: Some(user_id),
            };
            self.deliver(vec![partner.user_id], frame(event, &data))
                .await;
        }
        Ok(())
    }

    /// Ends a room the user sits in and tells both members.
    pub async fn leave_room(&self, user_id: i64, room_id: &str) -> Result<(), ErrorCode> {
        let room = self.my_room(user_id, room_id).await?;
        self.end_room(&room.id, EndReason::Left, Some(user_id))
            .await
    }

    /// Ends a room for whatever reason; only the call that ends it tells anyone.
    pub async fn end_room(
        &self,
        room_id: &str,
        reason: EndReason,
        by: Option<i64>,
    ) -> Result<(), ErrorCode> {
        let now = self.shared_now_ms();
        let ended = self
            .engine
            .end_room(room_id, now)
            .await
            .map_err(|e| internal("ending a room", e))?;
        let Some(room) = ended else {
            return Ok(());
        };
        if let Err(e) = self.store.mark_room_ended(room_id, now).await {
            tracing::error!(error = %e, room = room_id, "recording a room's end");
        }
        let ended = ChatEnded {
            room_id: room.id.clone(),
            reason,
            by_user_id: by,
        };
        let to = room.members.iter().map(|m| m.user_id).collect();
        self.deliver(to, frame("chatEnded", &ended)).await;
        tracing::info!(room = room_id, ?reason, "chat ended");
        Ok(())
    }

    /// The messages of a room after `last_id`, for a member reconnecting; and whether the
    /// room has ended.
    pub async fn missed(
        &self,
        user_id: i64,
        room_id: &str,
        last_id: Option<&str>,
    ) -> Result<(Vec<ChatMessage>, bool), ErrorCode> {
        let room = self
            .engine
            .room(room_id)
            .await
            .map_err(|e| internal("reading a room", e))?;
        let Some(room) = room.filter(|r| r.members.iter().any(|m| m.user_id == user_id)) else {
            return Err(ErrorCode::NotInRoom);
        };
        let mut out = Vec::new();
        let mut after = last_id.map(str::to_owned);
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

fn chat_message(room: &Room, id: &str, stored: &StoredMessage) -> Option<ChatMessage> {
    let sender = room.members.iter().find(|m| m.user_id == stored.from)?;
    let receiver = room.partner_of(stored.from)?;
    Some(ChatMessage {
        id: id.to_owned(),
        room_id: room.id.clone(),
        sender_id: sender.user_id,
        sender_username: sender.username.clone(),
        sender_nickname: sender.nickname.clone(),
        receiver_id: receiver.user_id,
        receiver_username: receiver.username.clone(),
        receiver_nickname: receiver.nickname.clone(),
        word: room.word.clone(),
        message: stored.text.clone(),
        timestamp: stored.at,
        client_id: stored.client_id.clone(),
    })
}

/// Reads a stored message back, for the archive.
fn decode(data: &str) -> Option<(i64, String, i64)> {
    let s: StoredMessage = serde_json::from_str(data).ok()?;
    Some((s.from, s.text, s.at))
}
