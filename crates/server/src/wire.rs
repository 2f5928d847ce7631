//! The wire format of the WebSocket at `/ws`, JSON text frames `{"event": NAME, "data":
//! {...}}`, and of the HTTP answers that share its types (the round calls' `RoundState`,
//! the `AccountRestricted` of a refused login and of the console's pages, the warnings'
//! `AccountWarned`). It knows nothing of the real-time machinery (`realtime`), which reads
//! and writes these frames.
//!
//! Event names and payload fields follow the product spec; identity fields a client sends
//! (userId, username, nickname) are accepted for compatibility and ignored: the server
//! takes identity from the session. These types are poem-openapi objects so the OpenAPI
//! document, and through it the web app, carries them (see `GET /api/realtime/protocol`).
//!
//! Client → server: `join_match`, `chatMessage`, `typing`, `stopTyping`, `chatRead`,
//! `leaveRoom`, `getOnlineCount`, `resume`, `megaphone:send`, `nextQuestion`.
//! Server → client: `hello`, `round`, `onlineCount`, `matchWaiting`, `matched`,
//! `matchExpired`, `roundEcho`, `againInvite`, `chatMessage`, `typing`, `stopTyping`,
//! `chatRead`,
//! `question`, `chatEnded`, `chatEndedByReport`, `resumed`, `accountRestricted`, `accountWarned`, `megaphone`, `megaphoneSent`,
//! `megaphoneCount`, `megaphoneHidden`, `error`.

use poem_openapi::{Enum, Object};
use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use telepathy_domain::safety::warning_message;
use telepathy_domain::{questions, ErrorCode};

// ---- client → server ----

/// A frame from a client, read once from its text (see [`ClientFrame::parse`]). Identity
/// fields a client sends (`userId`, `username`, `nickname`) are never read, whatever their
/// type: the payload types skip them or do not name them, and unknown fields are ignored.
#[derive(Debug, Deserialize)]
#[serde(tag = "event", content = "data")]
pub enum ClientFrame {
    #[serde(rename = "join_match", deserialize_with = "object")]
    JoinMatch(JoinMatch),
    #[serde(rename = "chatMessage", deserialize_with = "object")]
    ChatMessage(SendChatMessage),
    #[serde(rename = "typing", deserialize_with = "object")]
    Typing(RoomRef),
    #[serde(rename = "stopTyping", deserialize_with = "object")]
    StopTyping(RoomRef),
    #[serde(rename = "chatRead", deserialize_with = "object")]
    ChatRead(ReadMark),
    #[serde(rename = "leaveRoom", deserialize_with = "object")]
    LeaveRoom(RoomRef),
    /// Its data is not read: absent, `null`, `{}` or anything else.
    #[serde(rename = "getOnlineCount")]
    GetOnlineCount(Option<IgnoredAny>),
    #[serde(rename = "megaphone:send", deserialize_with = "object")]
    SendMegaphone(SendMegaphone),
    #[serde(rename = "resume", deserialize_with = "object")]
    Resume(Resume),
    #[serde(rename = "nextQuestion", deserialize_with = "object")]
    NextQuestion(NextQuestion),
}

impl ClientFrame {
    /// The frame in `text`; `None` when it is not JSON, names no event or an unknown one,
    /// or its data does not fit (refuse it, naming [`event_name`]).
    pub fn parse(text: &str) -> Option<Self> {
        from_object(text)
    }

    /// The event's name on the wire.
    pub fn event(&self) -> &'static str {
        match self {
            Self::JoinMatch(_) => "join_match",
            Self::ChatMessage(_) => "chatMessage",
            Self::Typing(_) => "typing",
            Self::StopTyping(_) => "stopTyping",
            Self::ChatRead(_) => "chatRead",
            Self::LeaveRoom(_) => "leaveRoom",
            Self::GetOnlineCount(_) => "getOnlineCount",
            Self::SendMegaphone(_) => "megaphone:send",
            Self::Resume(_) => "resume",
            Self::NextQuestion(_) => "nextQuestion",
        }
    }
}

/// The event a text frame names, for its refusal (`unknown` when it names none).
pub fn event_name(text: &str) -> String {
    #[derive(Deserialize)]
    struct Named {
        event: String,
    }
    from_object::<Named>(text).map_or_else(|| "unknown".to_owned(), |n| n.event)
}

/// Reads `text` as one JSON object of type `T`, and nothing after it.
fn from_object<'de, T: Deserialize<'de>>(text: &'de str) -> Option<T> {
    let mut json = serde_json::Deserializer::from_str(text);
    let value = object(&mut json).ok()?;
    json.end().ok()?;
    Some(value)
}

/// Reads a `T` from a JSON object only. serde's derived structs also read arrays (`["r"]`
/// as a `RoomRef`); a frame and its data are objects, as the OpenAPI document says.
fn object<'de, D: Deserializer<'de>, T: Deserialize<'de>>(from: D) -> Result<T, D::Error> {
    struct Only<T>(std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de>> Visitor<'de> for Only<T> {
        type Value = T;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object")
        }

        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
            T::deserialize(serde::de::value::MapAccessDeserializer::new(map))
        }
    }
    from.deserialize_map(Only(std::marker::PhantomData))
}

/// `join_match`: pick a word of the current round.
#[derive(Debug, Clone, Object, Deserialize)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct JoinMatch {
    pub word: String,
    pub round: i64,
    /// Ignored, whatever its type (clients that keep ids in localStorage send strings):
    /// identity comes from the session.
    #[serde(skip_deserializing)]
    pub user_id: Option<serde_json::Value>,
    /// Ignored.
    #[serde(skip_deserializing)]
    pub username: Option<serde_json::Value>,
    /// Ignored.
    #[serde(skip_deserializing)]
    pub nickname: Option<serde_json::Value>,
}

/// `chatMessage` from a client.
#[derive(Debug, Clone, Object, Deserialize)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct SendChatMessage {
    pub room_id: String,
    pub message: String,
    /// The client's own id for the message (at most 64 bytes; a UUID), echoed back so it
    /// can match its pending copy. It makes a retry safe: a message sent again with the
    /// same id in the same room is delivered once, and echoed with its first id.
    pub client_id: Option<String>,
}

/// `typing`, `stopTyping`, `leaveRoom` (both directions for typing).
#[derive(Debug, Clone, Object, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase", skip_serializing_if_is_none)]
pub struct RoomRef {
    pub room_id: String,
    /// Ignored on the way in; on the way out, who is typing.
    // Never read from a client, whatever its type.
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub user_id: Option<i64>,
}

/// `chatRead`, both ways: a member has read the room's messages up to `lastId` (the
/// newest one shown while their page was visible), so the partner's client stops showing
/// "1" beside their own messages up to it. A notice, stored nowhere: a client sends one
/// for the newest message read, not one per message, and after a reconnect asks the
/// partner for theirs (`ask`), which the partner's client answers with its mark.
#[derive(Debug, Clone, Object, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase", skip_serializing_if_is_none)]
pub struct ReadMark {
    pub room_id: String,
    /// The newest message read (a `chatMessage` id); absent when none was yet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_id: Option<String>,
    /// True: "tell me your mark" (the sender's page has just come back).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ask: Option<bool>,
    /// Ignored on the way in; on the way out, whose mark it is.
    // Never read from a client, whatever its type.
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub user_id: Option<i64>,
}

/// `resume`: after a reconnect, ask for what was missed in a room.
#[derive(Debug, Clone, Object, Deserialize)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct Resume {
    pub room_id: String,
    /// Where the client's resume point is: the newest id it holds, taken only outside a
    /// resume or once `resumed` came (live messages may arrive among the resumed ones,
    /// before older ones). Everything after it is sent, and after a hole in the node's bus
    /// from a little before it too (the client drops by id what it has twice).
    pub last_id: Option<String>,
}

/// `megaphone:send`: spend one megaphone on a message to everyone online.
#[derive(Debug, Clone, Object, Deserialize)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct SendMegaphone {
    /// 1 to 20 characters after trimming.
    #[serde(default)]
    #[oai(default)]
    pub message: String,
}

/// `nextQuestion`: "I see draw `draw` of the room's first question; draw the next one".
/// The server draws it (a client never picks the text) and tells both members `question`.
#[derive(Debug, Clone, Object, Deserialize)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct NextQuestion {
    pub room_id: String,
    /// The draw the client shows (`questionDraw` of `matched`, or `draw` of the last
    /// `question`).
    pub draw: u32,
}

// ---- server → client ----

/// One of the round's four words.
#[derive(Debug, Clone, Object, Serialize)]
pub struct RoundWord {
    pub word: String,
    /// A personal-name (paid) topic.
    pub paid: bool,
    /// From an approved custom word set.
    pub custom: bool,
}

/// `round`: pushed when a round starts and on connect; also the body of the round calls.
#[derive(Debug, Clone, Object, Serialize)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase", skip_serializing_if_is_none)]
pub struct RoundState {
    pub is_open: bool,
    pub round: i64,
    /// Seconds left in the round.
    pub remaining: i64,
    pub words: Vec<RoundWord>,
    /// Milliseconds since the Unix epoch of the shared clock.
    pub server_time: i64,
    /// When the service next opens (RFC 3339), while closed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_open_at: Option<String>,
}

/// `hello`: the first frame of every connection.
#[derive(Debug, Clone, Object, Serialize)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase", skip_serializing_if_is_none)]
pub struct Hello {
    pub user_id: i64,
    /// The room the user sits in, if any: a client that lost it can resume.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub room_id: Option<String>,
    pub round: RoundState,
}

/// `onlineCount`: distinct users online across all nodes.
#[derive(Debug, Clone, Object, Serialize)]
pub struct OnlineCount {
    pub count: u64,
}

/// `matchWaiting`: the user waits on a word for a partner.
#[derive(Debug, Clone, Object, Serialize)]
pub struct MatchState {
    pub word: String,
    pub round: i64,
}

/// `matchExpired`: the round ended before anyone else picked the word.
#[derive(Debug, Clone, Object, Serialize)]
pub struct MatchExpired {
    pub round: i64,
}

/// `roundEcho`: how many people picked each word of a round that just closed, in the
/// round's order. Pushed to everyone shortly after the round closes, when anyone picked.
/// Counts only: nobody is named.
#[derive(Debug, Clone, Object, Serialize)]
pub struct RoundEcho {
    pub round: i64,
    pub words: Vec<WordPicks>,
}

/// A word of a closed round and how many people picked it.
#[derive(Debug, Clone, Object, Serialize)]
pub struct WordPicks {
    pub word: String,
    pub count: u64,
}

/// `matched`: both users receive it. `sender*` is the user receiving this frame and
/// `receiver*` the partner, so a client stores `sender*` as "my" and `receiver*` as
/// "partner".
#[derive(Debug, Clone, Object, Serialize)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase", skip_serializing_if_is_none)]
pub struct Matched {
    pub room_id: String,
    pub word: String,
    pub round: i64,
    pub sender_id: i64,
    /// The spec's field, kept for its clients; it carries the nickname: no frame ever
    /// tells a user another user's login ID.
    pub sender_username: String,
    pub sender_nickname: String,
    pub receiver_id: i64,
    /// The spec's field, kept for its clients; it carries the nickname: no frame ever
    /// tells a user another user's login ID.
    pub receiver_username: String,
    pub receiver_nickname: String,
    /// The room's first question, drawn from the shared word alone: the same for both.
    pub question: String,
    /// Which draw `question` is (0): give it back in `nextQuestion` for another.
    pub question_draw: u32,
    /// True when the two asked to meet again (다시 텔레파시) rather than a round matching
    /// them; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub again: Option<bool>,
}

impl Matched {
    /// `room` as `matched` tells it to its member `user_id`; `None` for anyone else.
    pub fn for_member(room: &telepathy_engine::Room, user_id: i64) -> Option<Self> {
        let partner = room.partner_of(user_id)?;
        let me = room.members.iter().find(|m| m.user_id == user_id)?;
        Some(Self {
            room_id: room.id.clone(),
            word: room.word.clone(),
            round: room.round,
            sender_id: me.user_id,
            sender_username: me.nickname.clone(),
            sender_nickname: me.nickname.clone(),
            receiver_id: partner.user_id,
            receiver_username: partner.nickname.clone(),
            receiver_nickname: partner.nickname.clone(),
            question: questions::question(&room.word, &room.id, 0),
            question_draw: 0,
            again: None,
        })
    }
}

/// `againInvite`: the other of a pair asks to meet again under the word they first
/// shared (다시 텔레파시). Answer it with `POST /api/again/answer` before `expiresAt`.
/// It names nobody.
#[derive(Debug, Clone, Object, Serialize)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct AgainInvite {
    pub invite_id: String,
    pub word: String,
    /// Milliseconds since the Unix epoch of the shared clock.
    pub expires_at: i64,
}

/// `question`: another question of the room, told to both members when one asked for it
/// (`nextQuestion`).
#[derive(Debug, Clone, Object, Serialize)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct Question {
    pub room_id: String,
    /// Which draw this is; give it back in `nextQuestion` for the next one.
    pub draw: u32,
    pub question: String,
}

impl Question {
    /// Draw `draw` of `room`'s questions.
    pub fn of(room: &telepathy_engine::Room, draw: u32) -> Self {
        Self {
            room_id: room.id.clone(),
            draw,
            question: questions::question(&room.word, &room.id, draw),
        }
    }
}

/// `chatMessage` to clients: the spec's fields plus the server-assigned id.
#[derive(Debug, Clone, Object, Serialize)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase", skip_serializing_if_is_none)]
pub struct ChatMessage {
    /// Server-assigned, increasing within the room; give it back in `resume`.
    pub id: String,
    pub room_id: String,
    pub sender_id: i64,
    /// The spec's field, kept for its clients; it carries the nickname: no frame ever
    /// tells a user another user's login ID.
    pub sender_username: String,
    pub sender_nickname: String,
    pub receiver_id: i64,
    /// The spec's field, kept for its clients; it carries the nickname: no frame ever
    /// tells a user another user's login ID.
    pub receiver_username: String,
    pub receiver_nickname: String,
    pub word: String,
    pub message: String,
    /// Milliseconds since the Unix epoch.
    pub timestamp: i64,
    /// Echo of the sender's `clientId`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
}

impl ChatMessage {
    /// The message `id` as the members see it, from its body on the bus.
    pub fn of(id: &str, body: telepathy_engine::bus::ChatBody<'_>) -> Self {
        let (sender, receiver) = (body.from.1.into_owned(), body.to.1.into_owned());
        Self {
            id: id.to_owned(),
            room_id: body.room_id.into_owned(),
            sender_id: body.from.0,
            sender_username: sender.clone(),
            sender_nickname: sender,
            receiver_id: body.to.0,
            receiver_username: receiver.clone(),
            receiver_nickname: receiver,
            word: body.word.into_owned(),
            message: body.text.into_owned(),
            timestamp: body.at,
            client_id: body.client_id.map(std::borrow::Cow::into_owned),
        }
    }
}

/// Why a chat ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum, Serialize)]
#[serde(rename_all = "lowercase")]
#[oai(rename_all = "lowercase")]
pub enum EndReason {
    /// A member left (leaveRoom or POST /api/match/end).
    Left,
    /// A member stayed disconnected past the grace period.
    Disconnected,
    /// The room no longer exists.
    Gone,
    /// A member reported the other (sent as `chatEndedByReport`, to the reporter only).
    Report,
}

impl EndReason {
    /// The event that tells the members.
    pub fn event(self) -> &'static str {
        match self {
            Self::Report => "chatEndedByReport",
            _ => "chatEnded",
        }
    }
}

/// `chatEnded`.
#[derive(Debug, Clone, Object, Serialize)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase", skip_serializing_if_is_none)]
pub struct ChatEnded {
    pub room_id: String,
    pub reason: EndReason,
    /// Who ended it, when a member did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by_user_id: Option<i64>,
}

/// `resumed`: everything missed in the room has been sent.
#[derive(Debug, Clone, Object, Serialize)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct Resumed {
    pub room_id: String,
    /// Messages sent in this resume.
    pub count: u64,
}

/// `error`: a frame was refused.
#[derive(Debug, Clone, Object, Serialize)]
pub struct SocketError {
    /// The event that was refused.
    pub event: String,
    pub code: ErrorCode,
    pub message: String,
}

impl SocketError {
    pub fn new(event: &str, code: ErrorCode) -> Self {
        Self {
            event: event.to_owned(),
            code,
            message: code.message().to_owned(),
        }
    }
}

/// `accountRestricted`: the account was suspended or banned; the socket closes next. Also
/// the `restriction` of a refused login.
#[derive(Debug, Clone, Object, Serialize)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase", skip_serializing_if_is_none)]
pub struct AccountRestricted {
    /// `suspend` or `ban`.
    pub kind: String,
    /// The operator's reason.
    pub reason: String,
    /// When a suspension ends (RFC 3339); none for a ban.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
    /// The Korean sentence to show: why and until when.
    pub message: String,
}

impl From<&telepathy_domain::safety::Restriction> for AccountRestricted {
    fn from(r: &telepathy_domain::safety::Restriction) -> Self {
        Self {
            kind: r.kind.code().to_owned(),
            reason: r.reason.clone(),
            until: r.until.map(|ms| {
                chrono::DateTime::from_timestamp_millis(ms)
                    .unwrap_or_default()
                    .to_rfc3339()
            }),
            message: r.message(),
        }
    }
}

/// `accountWarned`: an operator warned the user; nothing is stopped.
#[derive(Debug, Clone, Object, Serialize)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct AccountWarned {
    /// The warning, to confirm with `POST /api/warnings/{id}/seen`.
    pub id: i64,
    /// The operator's reason.
    pub reason: String,
    /// The Korean sentence to show.
    pub message: String,
    /// When it was given, RFC 3339.
    pub given_at: String,
}

impl AccountWarned {
    pub fn of(id: i64, reason: &str, given_at_ms: i64) -> Self {
        Self {
            id,
            reason: reason.to_owned(),
            message: warning_message(reason),
            given_at: chrono::DateTime::from_timestamp_millis(given_at_ms)
                .unwrap_or_default()
                .to_rfc3339(),
        }
    }
}

/// `megaphone`: a megaphone, pushed to everyone online on every node; shown for 5 s, and
/// to a screen that opens during its turn (or its wait), with the time it has left.
#[derive(Debug, Clone, Object, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct Megaphone {
    pub id: i64,
    /// The sender's nickname (from the session, never from the frame).
    pub nickname: String,
    pub message: String,
    /// When it was sent, Unix milliseconds.
    pub sent_at: i64,
    /// How long after this frame its turn on screen starts: megaphones take turns, each
    /// alone on air.
    pub wait_ms: i64,
    /// How long it stays on screen.
    pub show_ms: i64,
}

/// `megaphoneSent`: the sender's megaphone went out.
#[derive(Debug, Clone, Object, Serialize)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct MegaphoneSent {
    pub id: i64,
    /// Megaphones the sender has left.
    pub remaining: i64,
    /// How long until it shows, after the megaphones before it.
    pub wait_ms: i64,
    /// The Korean sentence to show.
    pub message: String,
}

/// `megaphoneHidden`: an operator hid a megaphone; screens showing it drop it.
#[derive(Debug, Clone, Object, Serialize)]
#[oai(rename_all = "camelCase")]
pub struct MegaphoneHidden {
    pub id: i64,
}

/// `megaphoneCount`: the user's megaphone count changed (bought, spent in another tab).
#[derive(Debug, Clone, Object, Serialize)]
#[oai(rename_all = "camelCase")]
pub struct MegaphoneCount {
    pub count: i64,
}

/// Every frame type, so one OpenAPI operation can carry them into the document.
#[derive(Debug, Clone, Default, Object)]
#[oai(rename_all = "camelCase", skip_serializing_if_is_none)]
pub struct ProtocolTypes {
    pub join_match: Option<JoinMatch>,
    pub send_chat_message: Option<SendChatMessage>,
    pub room_ref: Option<RoomRef>,
    pub read_mark: Option<ReadMark>,
    pub resume: Option<Resume>,
    pub next_question: Option<NextQuestion>,
    pub hello: Option<Hello>,
    pub round: Option<RoundState>,
    pub online_count: Option<OnlineCount>,
    pub match_state: Option<MatchState>,
    pub match_expired: Option<MatchExpired>,
    pub round_echo: Option<RoundEcho>,
    pub again_invite: Option<AgainInvite>,
    pub matched: Option<Matched>,
    pub question: Option<Question>,
    pub chat_message: Option<ChatMessage>,
    pub chat_ended: Option<ChatEnded>,
    pub resumed: Option<Resumed>,
    pub account_restricted: Option<AccountRestricted>,
    pub account_warned: Option<AccountWarned>,
    pub send_megaphone: Option<SendMegaphone>,
    pub megaphone: Option<Megaphone>,
    pub megaphone_sent: Option<MegaphoneSent>,
    pub megaphone_count: Option<MegaphoneCount>,
    pub megaphone_hidden: Option<MegaphoneHidden>,
    pub error: Option<SocketError>,
}

/// A frame's text. Encoded with serde straight from the typed value (the poem-openapi
/// `ToJSON` path builds a `serde_json::Value` tree first, a seventh of a node's CPU under
/// chat load); a test keeps the two encodings equal, so the OpenAPI document stays true.
pub fn frame<T: Serialize>(event: &str, data: &T) -> String {
    #[derive(Serialize)]
    struct Frame<'a, T> {
        event: &'a str,
        data: &'a T,
    }
    serde_json::to_string(&Frame { event, data }).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use poem_openapi::types::ToJSON;

    use super::*;

    /// The frames' serde encoding is the one the OpenAPI document describes.
    fn same<T: Serialize + ToJSON>(value: &T) {
        let ours: serde_json::Value = serde_json::from_str(&frame("x", value)).unwrap_or_default();
        assert_eq!(ours["data"], value.to_json().unwrap_or_default());
        assert_eq!(ours["event"], "x");
    }

    /// The event `text` is read as, or the name its refusal gives.
    fn check(text: &str, expected: Result<&str, &str>) {
        let got = ClientFrame::parse(text).map(|f| f.event());
        match expected {
            Ok(event) => assert_eq!(got, Some(event), "{text}"),
            Err(named) => {
                assert_eq!(got, None, "{text}");
                assert_eq!(event_name(text), named, "{text}");
            }
        }
    }

    #[test]
    fn each_client_event_is_read() {
        let r = r#""roomId":"0123456789abcdef0123456789abcdef""#;
        check(
            r#"{"event":"join_match","data":{"word":"봄","round":7}}"#,
            Ok("join_match"),
        );
        check(
            &format!(r#"{{"event":"chatMessage","data":{{{r},"message":"안녕"}}}}"#),
            Ok("chatMessage"),
        );
        check(
            &format!(r#"{{"event":"typing","data":{{{r}}}}}"#),
            Ok("typing"),
        );
        check(
            &format!(r#"{{"event":"stopTyping","data":{{{r}}}}}"#),
            Ok("stopTyping"),
        );
        check(
            &format!(r#"{{"event":"leaveRoom","data":{{{r}}}}}"#),
            Ok("leaveRoom"),
        );
        check(
            &format!(r#"{{"event":"resume","data":{{{r},"lastId":"1-0"}}}}"#),
            Ok("resume"),
        );
        check(
            r#"{"event":"megaphone:send","data":{"message":"모두 안녕"}}"#,
            Ok("megaphone:send"),
        );
        check(
            &format!(r#"{{"event":"nextQuestion","data":{{{r},"draw":0}}}}"#),
            Ok("nextQuestion"),
        );
        // The data may come before the event, and the frame may carry more.
        check(
            &format!(r#"{{"data":{{{r}}},"event":"typing","extra":1}}"#),
            Ok("typing"),
        );

        let Some(ClientFrame::JoinMatch(join)) =
            ClientFrame::parse(r#"{"event":"join_match","data":{"word":"봄","round":7}}"#)
        else {
            panic!("a join");
        };
        assert_eq!((join.word.as_str(), join.round), ("봄", 7));
        let Some(ClientFrame::ChatMessage(msg)) = ClientFrame::parse(
            r#"{"event":"chatMessage","data":{"roomId":"r","message":"안녕","clientId":"c1"}}"#,
        ) else {
            panic!("a chat message");
        };
        assert_eq!(
            (
                msg.room_id.as_str(),
                msg.message.as_str(),
                msg.client_id.as_deref()
            ),
            ("r", "안녕", Some("c1"))
        );
        let Some(ClientFrame::Resume(resume)) =
            ClientFrame::parse(r#"{"event":"resume","data":{"roomId":"r"}}"#)
        else {
            panic!("a resume");
        };
        assert_eq!((resume.room_id.as_str(), resume.last_id), ("r", None));
        // A megaphone without a message is read as an empty one (refused as empty).
        let Some(ClientFrame::SendMegaphone(m)) =
            ClientFrame::parse(r#"{"event":"megaphone:send","data":{}}"#)
        else {
            panic!("a megaphone");
        };
        assert_eq!(m.message, "");
        let Some(ClientFrame::NextQuestion(next)) =
            ClientFrame::parse(r#"{"event":"nextQuestion","data":{"roomId":"r","draw":4}}"#)
        else {
            panic!("a next question");
        };
        assert_eq!((next.room_id.as_str(), next.draw), ("r", 4));
    }

    #[test]
    fn get_online_count_reads_no_data() {
        for data in [
            "",
            r#","data":null"#,
            r#","data":{}"#,
            r#","data":{"userId":"x"}"#,
        ] {
            check(
                &format!(r#"{{"event":"getOnlineCount"{data}}}"#),
                Ok("getOnlineCount"),
            );
        }
    }

    #[test]
    fn identity_fields_of_any_type_are_ignored() {
        for id in ["\"12\"", "12", "{}", "{\"id\":1}", "[]", "null", "true"] {
            let identity = format!(r#""userId":{id},"username":{id},"nickname":{id}"#);
            let join =
                format!(r#"{{"event":"join_match","data":{{"word":"봄","round":7,{identity}}}}}"#);
            let Some(ClientFrame::JoinMatch(join)) = ClientFrame::parse(&join) else {
                panic!("{join}");
            };
            assert!(join.user_id.is_none() && join.username.is_none() && join.nickname.is_none());
            for event in ["typing", "stopTyping", "leaveRoom"] {
                let text = format!(r#"{{"event":"{event}","data":{{"roomId":"r",{identity}}}}}"#);
                check(&text, Ok(event));
                if let Some(
                    ClientFrame::Typing(r) | ClientFrame::StopTyping(r) | ClientFrame::LeaveRoom(r),
                ) = ClientFrame::parse(&text)
                {
                    assert_eq!(r.user_id, None, "{text}");
                }
            }
            let read = format!(
                r#"{{"event":"chatRead","data":{{"roomId":"r","lastId":"1-0",{identity}}}}}"#
            );
            let Some(ClientFrame::ChatRead(mark)) = ClientFrame::parse(&read) else {
                panic!("{read}");
            };
            assert_eq!((mark.user_id, mark.last_id.as_deref()), (None, Some("1-0")));
            let chat = r#""roomId":"r","message":"안녕""#;
            check(
                &format!(r#"{{"event":"chatMessage","data":{{{chat},{identity}}}}}"#),
                Ok("chatMessage"),
            );
            check(
                &format!(r#"{{"event":"resume","data":{{"roomId":"r",{identity}}}}}"#),
                Ok("resume"),
            );
            check(
                &format!(r#"{{"event":"megaphone:send","data":{{"message":"안녕",{identity}}}}}"#),
                Ok("megaphone:send"),
            );
        }
    }

    #[test]
    fn an_unknown_event_is_refused_with_its_name() {
        check(
            r#"{"event":"no_such_event","data":{}}"#,
            Err("no_such_event"),
        );
        check(
            r#"{"event":"joinMatch","data":{"word":"봄","round":7}}"#,
            Err("joinMatch"),
        );
    }

    #[test]
    fn what_does_not_fit_is_refused() {
        // Not JSON, or no event: `unknown`.
        check("{not json", Err("unknown"));
        check(r#"{"data":{"roomId":"r"}}"#, Err("unknown"));
        check(r#"{"event":5,"data":{}}"#, Err("unknown"));
        check(r#"["typing",{"roomId":"r"}]"#, Err("unknown"));
        check(
            r#"{"event":"typing","data":{"roomId":"r"}} more"#,
            Err("unknown"),
        );
        // Data that does not fit: the event is named.
        check(
            r#"{"event":"join_match","data":{"word":3}}"#,
            Err("join_match"),
        );
        check(
            r#"{"event":"join_match","data":{"word":"봄","round":"7"}}"#,
            Err("join_match"),
        );
        check(r#"{"event":"typing"}"#, Err("typing"));
        check(r#"{"event":"typing","data":null}"#, Err("typing"));
        check(r#"{"event":"typing","data":["r"]}"#, Err("typing"));
        check(r#"{"event":"leaveRoom","data":{}}"#, Err("leaveRoom"));
        check(
            r#"{"event":"chatMessage","data":{"roomId":"r"}}"#,
            Err("chatMessage"),
        );
        check(
            r#"{"event":"resume","data":{"roomId":"r","lastId":5}}"#,
            Err("resume"),
        );
        check(
            r#"{"event":"megaphone:send","data":"안녕"}"#,
            Err("megaphone:send"),
        );
        // A draw is a count from 0; the question's text is never the client's to give.
        for data in [
            r#"{"roomId":"r"}"#,
            r#"{"roomId":"r","draw":-1}"#,
            r#"{"roomId":"r","draw":"1"}"#,
            r#"{"roomId":"r","draw":4294967296}"#,
            r#"{"draw":1}"#,
        ] {
            check(
                &format!(r#"{{"event":"nextQuestion","data":{data}}}"#),
                Err("nextQuestion"),
            );
        }
    }

    #[test]
    fn serde_frames_match_the_documented_shapes() {
        let word = RoundWord {
            word: "봄".into(),
            paid: true,
            custom: false,
        };
        let round = RoundState {
            is_open: true,
            round: 7,
            remaining: 12,
            words: vec![word.clone()],
            server_time: 1_700_000_000_000,
            next_open_at: None,
        };
        same(&word);
        same(&round);
        same(&RoundState {
            next_open_at: Some("2026-11-23T20:00:00+09:00".into()),
            ..round.clone()
        });
        same(&Hello {
            user_id: 1,
            room_id: Some("r".into()),
            round: round.clone(),
        });
        same(&Hello {
            user_id: 1,
            room_id: None,
            round,
        });
        same(&OnlineCount { count: 3 });
        same(&MatchState {
            word: "봄".into(),
            round: 7,
        });
        same(&MatchExpired { round: 7 });
        same(&RoundEcho {
            round: 7,
            words: vec![WordPicks {
                word: "봄".into(),
                count: 12,
            }],
        });
        same(&Matched {
            room_id: "r".into(),
            word: "봄".into(),
            round: 7,
            sender_id: 1,
            sender_username: "a".into(),
            sender_nickname: "에이".into(),
            receiver_id: 2,
            receiver_username: "b".into(),
            receiver_nickname: "비".into(),
            question: "봄 하면 생각나는 노래가 있어요?".into(),
            question_draw: 0,
            again: Some(true),
        });
        same(&AgainInvite {
            invite_id: "i".into(),
            word: "봄".into(),
            expires_at: 1_700_000_060_000,
        });
        same(&Question {
            room_id: "r".into(),
            draw: 3,
            question: "‘노을빛’ 하면 어떤 색깔이 떠올라요?".into(),
        });
        let message = ChatMessage {
            id: "1-0".into(),
            room_id: "r".into(),
            sender_id: 1,
            sender_username: "a".into(),
            sender_nickname: "에이".into(),
            receiver_id: 2,
            receiver_username: "b".into(),
            receiver_nickname: "비".into(),
            word: "봄".into(),
            message: "안녕 \"따옴표\" \n 줄".into(),
            timestamp: 5,
            client_id: Some("c1".into()),
        };
        same(&message);
        same(&ChatMessage {
            client_id: None,
            ..message
        });
        for reason in [
            EndReason::Left,
            EndReason::Disconnected,
            EndReason::Gone,
            EndReason::Report,
        ] {
            same(&ChatEnded {
                room_id: "r".into(),
                reason,
                by_user_id: Some(1),
            });
        }
        same(&Resumed {
            room_id: "r".into(),
            count: 2,
        });
        same(&RoomRef {
            room_id: "r".into(),
            user_id: None,
        });
        same(&ReadMark {
            room_id: "r".into(),
            last_id: Some("1700000000000-3".into()),
            ask: Some(true),
            user_id: Some(7),
        });
        same(&ReadMark {
            room_id: "r".into(),
            last_id: None,
            ask: None,
            user_id: Some(7),
        });
        for code in ErrorCode::ALL {
            same(&SocketError::new("chatMessage", *code));
        }
        same(&Megaphone {
            id: 3,
            nickname: "별빛".into(),
            message: "다들 안녕 \"하세요\"".into(),
            sent_at: 1_700_000_000_000,
            wait_ms: 4_200,
            show_ms: 5_000,
        });
        same(&MegaphoneSent {
            id: 3,
            remaining: 4,
            wait_ms: 4_200,
            message: telepathy_domain::Notice::MegaphoneSent.message().into(),
        });
        same(&MegaphoneCount { count: 5 });
        same(&MegaphoneHidden { id: 3 });
        same(&AccountWarned::of(12, "욕설", 1_700_000_000_000));
        use telepathy_domain::safety::{Restriction, SanctionKind};
        for until in [Some(1_700_000_000_000), None] {
            same(&AccountRestricted::from(&Restriction {
                kind: SanctionKind::Suspend,
                reason: "욕설".into(),
                until,
            }));
        }
    }
}
