//! The bus's format, in one place: what a node publishes to another node's inbox, and how
//! the receiver reads it. A message on the bus carries one event (the receiving users,
//! comma-separated, none for every socket of the node; a newline; the frame) or several,
//! each after an ASCII record separator. A frame is a JSON object the sockets are sent as
//! it is, or one of the markers below: a chat message's [`CHAT`] event is built once per
//! receiving node from a short [`ChatBody`]. The Redis scripts build the same envelopes
//! (`redis/scripts.rs`); the engine's conformance suite reads what they publish through
//! [`decode_events`].

use std::borrow::Cow;
use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::{Room, SocketAt};

// What the bus carries in place of a frame, beside frames (JSON objects, which never start
// with these), read back by [`Inbound::kind`].

/// The receivers' sockets on that node re-check their sessions now (a session of theirs
/// was revoked somewhere).
pub const RECHECK: &str = "recheck";
/// Starts `<instance>/<socket>`: close that socket of the receiver, which a newer one
/// replaced.
pub const REPLACED: &str = "replaced:";
/// Starts a chat message as it travels, `#<stream id>\n<body>`: the node that holds a
/// member builds the message's frame once for its sockets.
pub const CHAT: &str = "#";
/// Starts a new room as it travels to its members' nodes, `m:<body>` ([`MatchedBody`]):
/// each node builds the `matched` frame of each member it holds.
pub const MATCHED: &str = "m:";

/// An event for some users' sockets, as it arrives from the bus. An inbox may also bring
/// events for users the node does not hold (over Redis every node hears every event of
/// its partitions): the node delivers each to the sockets it holds of `to`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inbound {
    /// The users it is for; empty means every socket of the node.
    pub to: Vec<i64>,
    pub frame: String,
}

/// What an inbound event asks of the node, read from its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind<'a> {
    /// A frame for the receivers' sockets.
    Frame(&'a str),
    /// A chat message: its stream id and the body its frame is built from.
    Chat { id: &'a str, body: &'a str },
    /// A new room its members are told of.
    Matched(MatchedBody),
    /// The receivers' sockets re-check their sessions.
    Recheck,
    /// Close this socket of the receiver.
    Replaced(SocketAt),
    /// A marker whose rest cannot be read.
    Unreadable,
}

impl Inbound {
    /// What the event asks of the node.
    pub fn kind(&self) -> Kind<'_> {
        let text = self.frame.as_str();
        if text == RECHECK {
            Kind::Recheck
        } else if let Some(at) = text.strip_prefix(REPLACED) {
            at.rsplit_once('/')
                .and_then(|(instance, socket)| {
                    Some(Kind::Replaced(SocketAt {
                        instance: instance.to_owned(),
                        socket: socket.parse().ok()?,
                    }))
                })
                .unwrap_or(Kind::Unreadable)
        } else if let Some(body) = text.strip_prefix(MATCHED) {
            serde_json::from_str(body).map_or(Kind::Unreadable, Kind::Matched)
        } else if let Some(chat) = text.strip_prefix(CHAT) {
            chat.split_once('\n')
                .map_or(Kind::Unreadable, |(id, body)| Kind::Chat { id, body })
        } else {
            Kind::Frame(text)
        }
    }
}

/// What one message on the bus carries, appended to `out`: one event (the receiving users,
/// comma-separated, none for everyone; a newline; the frame), or several, each after an
/// ASCII record separator (which no frame holds: they are JSON, or a stream id and JSON).
/// False, and nothing appended, when it cannot be read.
pub(crate) fn decode_events(text: &str, out: &mut VecDeque<Inbound>) -> bool {
    let Some(events) = text.strip_prefix(EVENT_SEPARATOR) else {
        return decode_event(text)
            .map(|event| out.push_back(event))
            .is_some();
    };
    let start = out.len();
    for event in events.split(EVENT_SEPARATOR) {
        match decode_event(event) {
            Some(event) => out.push_back(event),
            None => {
                out.truncate(start);
                return false;
            }
        }
    }
    true
}

/// Starts each event of a message on the bus that carries several.
const EVENT_SEPARATOR: char = '\u{1e}';

fn decode_event(text: &str) -> Option<Inbound> {
    let (to, frame) = text.split_once('\n')?;
    Some(Inbound {
        to: decode_to(to)?,
        frame: frame.to_owned(),
    })
}

fn decode_to(to: &str) -> Option<Vec<i64>> {
    if to.is_empty() {
        return Some(Vec::new());
    }
    to.split(',').map(str::parse).collect::<Result<_, _>>().ok()
}

/// The head of an event for `to` (none: every socket of the node), to which its frame is
/// appended.
pub(crate) fn head(to: &[i64]) -> String {
    let mut head = to.iter().map(i64::to_string).collect::<Vec<_>>().join(",");
    head.push('\n');
    head
}

/// What a node needs to build a chat message's frame, without the frame's repeated names
/// and fields: a third of its bytes, which Redis copies to every node. It follows the
/// stream id after a newline in a [`CHAT`] event.
#[derive(Debug, Serialize, Deserialize)]
pub struct ChatBody<'a> {
    #[serde(rename = "r", borrow)]
    pub room_id: Cow<'a, str>,
    #[serde(rename = "w", borrow)]
    pub word: Cow<'a, str>,
    /// The sender: user id and nickname.
    #[serde(rename = "f")]
    pub from: (i64, Cow<'a, str>),
    /// The receiver: user id and nickname.
    #[serde(rename = "t")]
    pub to: (i64, Cow<'a, str>),
    #[serde(rename = "m", borrow)]
    pub text: Cow<'a, str>,
    /// When it was sent, ms.
    #[serde(rename = "a")]
    pub at: i64,
    #[serde(rename = "c", default, skip_serializing_if = "Option::is_none", borrow)]
    pub client_id: Option<Cow<'a, str>>,
}

impl<'a> ChatBody<'a> {
    /// A message of `room` from `from`; `None` when the sender is not a member.
    pub fn of(
        room: &'a Room,
        from: i64,
        text: &'a str,
        at: i64,
        client_id: Option<&'a str>,
    ) -> Option<Self> {
        let sender = room.members.iter().find(|m| m.user_id == from)?;
        let receiver = room.partner_of(from)?;
        Some(Self {
            room_id: room.id.as_str().into(),
            word: room.word.as_str().into(),
            from: (sender.user_id, sender.nickname.as_str().into()),
            to: (receiver.user_id, receiver.nickname.as_str().into()),
            text: text.into(),
            at,
            client_id: client_id.map(Into::into),
        })
    }

    /// What follows the stream id in the message's [`CHAT`] event: a newline and the body.
    pub fn tail(&self) -> String {
        let json = serde_json::to_string(self).unwrap_or_default();
        format!("\n{json}")
    }

    /// Reads the body of a [`Kind::Chat`] event; `None` when it is not one.
    pub fn read(body: &'a str) -> Option<Self> {
        serde_json::from_str(body).ok()
    }
}

/// A new room as its members' nodes are told of it (a [`MATCHED`] event): what each
/// member's `matched` frame is built from.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct MatchedBody {
    #[serde(rename = "r")]
    pub room_id: String,
    #[serde(rename = "w")]
    pub word: String,
    #[serde(rename = "n")]
    pub round: i64,
    #[serde(rename = "c")]
    pub created_ms: i64,
    /// A meeting the two asked for (`Engine::seat_pair`), not a queue's match.
    #[serde(rename = "g")]
    pub asked: bool,
    /// The room's first member (who waited), then the second.
    #[serde(rename = "a")]
    pub first: crate::Member,
    #[serde(rename = "b")]
    pub second: crate::Member,
}

impl MatchedBody {
    /// The room it tells of.
    pub fn room(self) -> Room {
        Room {
            id: self.room_id,
            word: self.word,
            round: self.round,
            members: [self.first, self.second],
            created_ms: self.created_ms,
            ended_ms: None,
        }
    }
}

/// The text of `room`'s [`MATCHED`] event.
pub fn matched(room: &Room, asked: bool) -> String {
    let [first, _] = &room.members;
    let mut text = matched_before_first(room, asked);
    text.push_str(&serde_json::to_string(first).unwrap_or_default());
    text.push('}');
    text
}

/// The text of `room`'s [`MATCHED`] event up to its first member's JSON, which follows
/// with a closing `}`: how the one-server join's script, which alone learns the waiter,
/// writes the event (and [`matched`] too, so the two cannot part).
pub(crate) fn matched_before_first(room: &Room, asked: bool) -> String {
    #[derive(Serialize)]
    struct Head<'a> {
        r: &'a str,
        w: &'a str,
        n: i64,
        c: i64,
        g: bool,
        b: &'a crate::Member,
    }
    let [_, second] = &room.members;
    let head = Head {
        r: &room.id,
        w: &room.word,
        n: room.round,
        c: room.created_ms,
        g: asked,
        b: second,
    };
    let mut text = String::from(MATCHED);
    text.push_str(&serde_json::to_string(&head).unwrap_or_default());
    text.pop();
    text.push_str(",\"a\":");
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Member;

    #[test]
    fn an_event_says_what_it_asks() {
        let event = |text: &str| Inbound {
            to: vec![1],
            frame: text.to_owned(),
        };
        let frame = event("{\"event\":\"x\"}");
        assert_eq!(frame.kind(), Kind::Frame("{\"event\":\"x\"}"));
        assert_eq!(event(RECHECK).kind(), Kind::Recheck);
        assert_eq!(
            event(&format!("{}n1.ab.3/42", REPLACED)).kind(),
            Kind::Replaced(SocketAt {
                instance: "n1.ab.3".into(),
                socket: 42
            })
        );
        assert_eq!(event(&format!("{}n1/x", REPLACED)).kind(), Kind::Unreadable);
        let chat = event(&format!("{}1-0\n{{}}", CHAT));
        assert_eq!(
            chat.kind(),
            Kind::Chat {
                id: "1-0",
                body: "{}"
            }
        );
        assert_eq!(event(CHAT).kind(), Kind::Unreadable);
    }

    #[test]
    fn decodes_bus_events() {
        let event = decode_event("1,22\n{\"a\":\"x\ny\"}").unwrap_or_else(|| panic!("decodes"));
        assert_eq!(event.to, [1, 22]);
        assert_eq!(event.frame, "{\"a\":\"x\ny\"}");
        assert_eq!(decode_event("\nall").map(|e| e.to), Some(vec![]));
        assert_eq!(decode_event("x\nf"), None);
        assert_eq!(decode_event("no newline"), None);
    }

    #[test]
    fn decodes_a_batch_of_events_in_order() {
        let mut out = std::collections::VecDeque::new();
        assert!(decode_events(
            "\u{1e}1,2\n#1-0\n{}\u{1e}3\n#1-1\n{}",
            &mut out
        ));
        assert!(decode_events("4\n{\"n\":3}", &mut out));
        let got: Vec<(Vec<i64>, &str)> = out
            .iter()
            .map(|e| (e.to.clone(), e.frame.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (vec![1, 2], "#1-0\n{}"),
                (vec![3], "#1-1\n{}"),
                (vec![4], "{\"n\":3}")
            ]
        );
        // A batch that cannot be read whole is not read in part.
        assert!(!decode_events("\u{1e}1\n{}\u{1e}x\n{}", &mut out));
        assert!(!decode_events("\u{1e}1\n{}\u{1e}2", &mut out));
        assert_eq!(out.len(), 3);
    }

    #[test]
    fn a_head_names_its_receivers() {
        assert_eq!(head(&[1, 22]), "1,22\n");
        assert_eq!(head(&[]), "\n");
        let event =
            decode_event(&format!("{}{{}}", head(&[7, 8]))).unwrap_or_else(|| panic!("decodes"));
        assert_eq!(event.to, [7, 8]);
    }

    #[test]
    fn a_new_room_reads_back_as_it_was_made() {
        let room = Room {
            id: "r\"}".into(),
            word: "봄 \"꽃\"}".into(),
            round: 3,
            members: [1, 2].map(|id| Member {
                user_id: id,
                nickname: format!("n\\{id}\"}},\"a\":"),
            }),
            created_ms: 9,
            ended_ms: None,
        };
        for asked in [false, true] {
            let event = Inbound {
                to: vec![2],
                frame: matched(&room, asked),
            };
            let Kind::Matched(body) = event.kind() else {
                panic!("a new room's event")
            };
            assert_eq!(body.asked, asked);
            assert_eq!(body.room(), room);
        }
        let cut = Inbound {
            to: vec![2],
            frame: matched_before_first(&room, false),
        };
        assert_eq!(cut.kind(), Kind::Unreadable, "without its first member");
    }

    #[test]
    fn a_chat_body_reads_back_as_it_was_written() {
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
        let body = ChatBody::of(&room, 2, "줄\n바꿈", 5, Some("cid"))
            .unwrap_or_else(|| panic!("a member"));
        let tail = body.tail();
        let event = Inbound {
            to: vec![1],
            frame: format!("{CHAT}1-0{tail}"),
        };
        let Kind::Chat { id, body } = event.kind() else {
            panic!("a chat event")
        };
        assert_eq!(id, "1-0");
        let read = ChatBody::read(body).unwrap_or_else(|| panic!("reads"));
        assert_eq!(
            (read.from.0, read.to.0, &*read.text, read.at),
            (2, 1, "줄\n바꿈", 5)
        );
        assert_eq!(read.client_id.as_deref(), Some("cid"));
        assert!(
            ChatBody::of(&room, 3, "x", 5, None).is_none(),
            "not a member"
        );
        assert!(ChatBody::read("{not json").is_none());
    }
}
