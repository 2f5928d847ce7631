//! The HTTP side of the core loop: round answers (the spec's polling fallback of the pushed
//! `round` event), ending a chat, word history and mood feedback.

use poem::Request;
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};
use telepathy_domain::{limits, Emotion, ErrorCode, Notice};

use super::choice::{Choice, EmotionChoices};
use super::{Ack, Tag};
use crate::error::{ApiResult, OrInternal};
use crate::state::AppState;
use crate::wire::{Matched, ProtocolTypes, RoundState, RoundWord};

pub struct GameApi(pub AppState);

/// The current round.
#[derive(Debug, Object)]
pub struct CurrentRound {
    pub round: i64,
    /// Seconds left.
    pub remaining: i64,
    pub words: Vec<RoundWord>,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct EndBody {
    #[oai(default)]
    pub room_id: String,
}

/// The caller's chat as the server knows it: the room they sit in, or else how their last
/// chat went. A page that has no chat of its own (another device, a tab opened later, a
/// page left while the chat ended) learns here what to show.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase", skip_serializing_if_is_none)]
pub struct CurrentChat {
    /// The room the caller sits in, as `matched` told it (`sender*` is the caller).
    pub room: Option<Matched>,
    /// The caller's latest chat, when no room is open: it has ended.
    pub ended: Option<EndedChat>,
}

/// A chat that has ended.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct EndedChat {
    pub room_id: String,
    pub word: String,
    pub partner_nickname: String,
}

/// A line of the word history.
#[derive(Debug, Object)]
pub struct HistoryEntry {
    pub word: String,
    pub partner_nickname: String,
    /// RFC 3339.
    pub connected_at: String,
    /// The chat's room (in the spec's snake case, as the fields before it): a pair made
    /// after it (`GET /api/again/pairs`) names it.
    pub room_id: String,
    /// The chat was a pair's meeting again (an accepted 다시 텔레파시), not a round's match.
    pub again: bool,
}

#[derive(Debug, Object)]
pub struct History {
    pub success: bool,
    /// Newest first, the latest 500 at most.
    pub history: Vec<HistoryEntry>,
    /// Every word shared, counted (the telepathies of My page).
    pub total: i64,
}

/// Tonight's word (My page): of the rooms made since this evening opened (the last
/// evening while closed), the word of the most, and how many people they seated.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct Tonight {
    /// None until someone connects this evening.
    pub word: Option<String>,
    pub people: i64,
    /// How many other words seated as many people: `word` is the one that got there first.
    pub tied: i64,
}

/// The spec's feedback payload. Identity fields are ignored (the session says who), the
/// partner and word find the room, or `roomId` names it.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct FeedbackBody {
    pub room_id: Option<String>,
    pub user_id: Option<i64>,
    pub user_username: Option<String>,
    pub user_nickname: Option<String>,
    pub partner_id: Option<i64>,
    pub partner_username: Option<String>,
    pub partner_nickname: Option<String>,
    pub word: Option<String>,
    #[oai(default)]
    pub emotion: Choice<EmotionChoices>,
}

#[OpenApi]
impl GameApi {
    /// Whether the service is open, and the round.
    #[oai(
        path = "/server-time",
        method = "get",
        operation_id = "getServerTime",
        tag = "Tag::Game"
    )]
    async fn server_time(&self) -> ApiResult<RoundState> {
        Ok(Json(self.0.realtime.round_state()))
    }

    /// The current round (polled each second when the socket is down).
    #[oai(
        path = "/match/current-round",
        method = "get",
        operation_id = "getCurrentRound",
        tag = "Tag::Game"
    )]
    async fn current_round(&self) -> ApiResult<CurrentRound> {
        let r = self.0.realtime.round_state();
        Ok(Json(CurrentRound {
            round: r.round,
            remaining: r.remaining,
            words: r.words,
        }))
    }

    /// The caller's chat: the room they sit in (on any of their devices), or else their
    /// latest chat, which has ended; neither for someone who never chatted.
    #[oai(
        path = "/match/current",
        method = "get",
        operation_id = "getCurrentChat",
        tag = "Tag::Game"
    )]
    async fn current_chat(&self, req: &Request) -> ApiResult<CurrentChat> {
        let s = &self.0;
        let user = s.sessions.require_user(req).await?.user;
        let open = s
            .metrics
            .engine("room_of", s.engine.room_of(user.id))
            .await
            .or_internal("reading the caller's room")?;
        if let Some(room) = open.as_ref().and_then(|r| Matched::for_member(r, user.id)) {
            return Ok(Json(CurrentChat {
                room: Some(room),
                ended: None,
            }));
        }
        let latest = s
            .store
            .word_history(user.id, 1)
            .await
            .or_internal("reading the latest chat")?;
        Ok(Json(CurrentChat {
            room: None,
            ended: latest.into_iter().next().map(|h| EndedChat {
                room_id: h.room_id,
                word: h.word,
                partner_nickname: h.partner_nickname,
            }),
        }))
    }

    /// Ends the caller's chat; both members get `chatEnded`. Success again for a room the
    /// caller was in that has ended already; `NOT_IN_ROOM` for a room never theirs.
    #[oai(
        path = "/match/end",
        method = "post",
        operation_id = "endMatch",
        tag = "Tag::Game"
    )]
    async fn end(&self, req: &Request, body: Json<EndBody>) -> ApiResult<Ack> {
        let user = self.0.sessions.require_user(req).await?.user;
        match self.0.realtime.leave_room(user.id, &body.room_id).await {
            Ok(()) => {}
            // Already ended (by the partner, or a second tab): the caller's wish holds, if
            // the room was theirs.
            Err(ErrorCode::NotInRoom)
                if self.0.realtime.was_in_room(user.id, &body.room_id).await? => {}
            Err(code) => return Err(code.into()),
        }
        Ok(Json(Ack::of(Notice::ChatEnded)))
    }

    /// Never matches the caller with the partner of a room they were in again (offered
    /// by the mood feedback after a chat); the block holds both ways, on every node.
    #[oai(
        path = "/match/block",
        method = "post",
        operation_id = "blockPartner",
        tag = "Tag::Game"
    )]
    async fn block(&self, req: &Request, body: Json<EndBody>) -> ApiResult<Ack> {
        let user = self.0.sessions.require_user(req).await?.user;
        self.0
            .realtime
            .block_partner(user.id, &body.room_id)
            .await?;
        Ok(Json(Ack::of(Notice::PartnerBlocked)))
    }

    /// Words the caller shared with partners, newest first.
    #[oai(
        path = "/word-history",
        method = "get",
        operation_id = "getWordHistory",
        tag = "Tag::Game"
    )]
    async fn word_history(&self, req: &Request) -> ApiResult<History> {
        let user = self.0.sessions.require_user(req).await?.user;
        let store = &self.0.store;
        let (items, total) = tokio::try_join!(
            store.word_history(user.id, limits::WORD_HISTORY_SHOWN),
            store.word_history_total(user.id),
        )
        .or_internal("reading word history")?;
        let history = items
            .into_iter()
            .map(|i| HistoryEntry {
                again: i.again(),
                word: i.word,
                partner_nickname: i.partner_nickname,
                connected_at: chrono::DateTime::from_timestamp_millis(i.connected_at)
                    .unwrap_or_default()
                    .to_rfc3339(),
                room_id: i.room_id,
            })
            .collect();
        Ok(Json(History {
            success: true,
            history,
            total,
        }))
    }

    /// The word that connected the most people this evening.
    #[oai(
        path = "/match/tonight",
        method = "get",
        operation_id = "getTonightWord",
        tag = "Tag::Game"
    )]
    async fn tonight(&self, req: &Request) -> ApiResult<Tonight> {
        self.0.sessions.require_user(req).await?;
        let top = self
            .0
            .realtime
            .tonight()
            .await
            .or_internal("reading tonight's word")?;
        Ok(Json(match top {
            Some(top) => Tonight {
                people: top.people(),
                tied: top.tied,
                word: Some(top.word),
            },
            None => Tonight {
                word: None,
                people: 0,
                tied: 0,
            },
        }))
    }

    /// A mood after a chat, for a room the caller was in.
    #[oai(
        path = "/feedback/add",
        method = "post",
        operation_id = "addFeedback",
        tag = "Tag::Game"
    )]
    async fn feedback(&self, req: &Request, body: Json<FeedbackBody>) -> ApiResult<Ack> {
        let s = &self.0;
        let user = s.sessions.require_user(req).await?.user;
        let emotion = Emotion::parse(body.emotion.as_str())?;
        let room = match (&body.room_id, body.partner_id, &body.word) {
            (Some(id), _, _) if !crate::realtime::is_room_id(id) => None,
            (Some(id), _, _) => s
                .store
                .room_record(id)
                .await
                .or_internal("reading a room")?,
            (None, Some(partner), Some(word)) => s
                .store
                .latest_room_with(user.id, partner, word)
                .await
                .or_internal("finding a room")?,
            _ => None,
        };
        let room = room
            .filter(|r| r.has_member(user.id))
            .ok_or(ErrorCode::FeedbackNoRoom)?;
        s.store
            .add_feedback(user.id, &room, emotion.as_korean(), s.clock.now_ms())
            .await
            .or_internal("saving feedback")?;
        Ok(Json(Ack::of(Notice::FeedbackSaved)))
    }

    /// Carries the WebSocket frame types of `/ws` into this document (it answers no data).
    /// Frames are `{"event": NAME, "data": {...}}`; see docs/realtime.md for the events.
    #[oai(
        path = "/realtime/protocol",
        method = "get",
        operation_id = "getRealtimeProtocol",
        tag = "Tag::Game"
    )]
    async fn protocol(&self) -> ApiResult<ProtocolTypes> {
        Ok(Json(ProtocolTypes::default()))
    }
}
