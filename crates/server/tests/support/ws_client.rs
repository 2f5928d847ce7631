//! A WebSocket client speaking the `/ws` protocol, for the API and cluster tests.

// Each test binary uses a different part of it.
#![allow(dead_code)]

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde::Serialize;
use serde_json::{json, Value};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// How long a test waits for a frame it expects.
pub const SOON: Duration = Duration::from_secs(10);

pub struct Client {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
}

impl Client {
    /// Opens `/ws` on `addr` (`host:port`); an HTTP refusal gives its status.
    pub async fn connect(addr: &str, cookie: Option<&str>, origin: &str) -> Result<Client, u16> {
        let mut req = format!("ws://{addr}/ws").into_client_request().unwrap();
        req.headers_mut().insert("origin", origin.parse().unwrap());
        if let Some(c) = cookie {
            req.headers_mut().insert("cookie", c.parse().unwrap());
        }
        match tokio_tungstenite::connect_async(req).await {
            Ok((ws, _)) => Ok(Client { ws }),
            Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => Err(resp.status().as_u16()),
            Err(e) => panic!("connecting: {e}"),
        }
    }

    /// Sends a text frame as it is, readable or not.
    pub async fn send_text(&mut self, text: &str) {
        self.ws.send(Message::Text(text.into())).await.unwrap();
    }

    /// Sends a binary frame; false once the server has closed the socket.
    pub async fn send_binary(&mut self, bytes: Vec<u8>) -> bool {
        self.ws.send(Message::Binary(bytes.into())).await.is_ok()
    }

    pub async fn send(&mut self, event: &str, data: Value) {
        assert!(self.try_send(event, data).await, "the socket is closed");
    }

    /// Sends `text` to `room` as a chat message and waits for `partner` to get it: the
    /// message as the partner reads it. The sender's own echo is left for it to read.
    pub async fn say(
        &mut self,
        partner: &mut Client,
        room: &(impl Serialize + ?Sized),
        text: &str,
    ) -> Value {
        self.send("chatMessage", json!({ "roomId": room, "message": text }))
            .await;
        partner.expect("chatMessage").await
    }

    /// Sends an event; false once the server has closed the socket.
    pub async fn try_send(&mut self, event: &str, data: Value) -> bool {
        let text = json!({ "event": event, "data": data }).to_string();
        self.ws.send(Message::Text(text.into())).await.is_ok()
    }

    /// The next frame named one of `events` within `within`, skipping others; why not
    /// when the socket closes, a frame is unreadable or nothing comes in time.
    async fn next_of(
        &mut self,
        events: &[&str],
        within: Duration,
    ) -> Result<(String, Value), Missed> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let next = tokio::time::timeout_at(deadline, self.ws.next())
                .await
                .map_err(|_| {
                    Missed::NothingInTime(format!("none of {events:?} within {within:?}"))
                })?;
            match next {
                Some(Ok(Message::Text(text))) => {
                    let v: Value = serde_json::from_str(&text)
                        .map_err(|e| Missed::Broken(format!("unreadable frame {text}: {e}")))?;
                    let name = v["event"].as_str().unwrap_or_default().to_owned();
                    if events.contains(&name.as_str()) {
                        return Ok((name, v["data"].clone()));
                    }
                }
                Some(Ok(_)) => {}
                other => {
                    return Err(Missed::Broken(format!(
                        "socket closed while waiting for {events:?}: {other:?}"
                    )))
                }
            }
        }
    }

    /// The next frame named `event` within `within`, skipping others; `None` when the
    /// socket closes or nothing comes.
    pub async fn try_expect(&mut self, event: &str, within: Duration) -> Option<Value> {
        self.next_of(&[event], within)
            .await
            .ok()
            .map(|(_, data)| data)
    }

    /// The next frame named one of `events`, skipping others.
    pub async fn expect_any_within(
        &mut self,
        events: &[&str],
        within: Duration,
    ) -> (String, Value) {
        self.next_of(events, within)
            .await
            .unwrap_or_else(|why| panic!("{why}"))
    }

    /// The next frame named one of `events`, or why none came (the socket closed, or
    /// nothing within `within`).
    pub async fn try_expect_any(
        &mut self,
        events: &[&str],
        within: Duration,
    ) -> Result<(String, Value), String> {
        self.next_of(events, within)
            .await
            .map_err(|m| m.to_string())
    }

    /// Asserts that no frame named one of `events` comes within `within` and that the
    /// socket stays open meanwhile (a closed socket hears nothing either).
    pub async fn expect_none_within(&mut self, events: &[&str], within: Duration) {
        match self.next_of(events, within).await {
            Ok((event, data)) => panic!("{event} came: {data}"),
            Err(Missed::NothingInTime(_)) => {}
            Err(broken @ Missed::Broken(_)) => panic!("{broken}"),
        }
    }

    pub async fn expect_any(&mut self, events: &[&str]) -> (String, Value) {
        self.expect_any_within(events, SOON).await
    }

    /// The data of the next frame named `event`, skipping others.
    pub async fn expect(&mut self, event: &str) -> Value {
        self.expect_any(&[event]).await.1
    }

    pub async fn expect_within(&mut self, event: &str, within: Duration) -> Value {
        self.expect_any_within(&[event], within).await.1
    }

    /// Waits for the server to close the socket, skipping frames; answers the close code
    /// (none when the connection ended without a close frame, or with one without a code).
    pub async fn expect_close_within(&mut self, within: Duration) -> Option<u16> {
        match self.closing(within).await {
            Closing::Frame(code) => code,
            Closing::Ended(_) => None,
            Closing::Open => panic!("the socket stayed open for {within:?}"),
        }
    }

    /// Waits for the server to close the socket, skipping frames: the close frame's code,
    /// or why no close frame came (the connection ended without one, or nothing in time).
    pub async fn expect_close_frame_within(
        &mut self,
        within: Duration,
    ) -> Result<Option<u16>, String> {
        match self.closing(within).await {
            Closing::Frame(code) => Ok(code),
            Closing::Ended(how) => {
                Err(format!("the connection ended without a close frame: {how}"))
            }
            Closing::Open => Err(format!("no close frame within {within:?}")),
        }
    }

    /// How the socket closes within `within`, skipping frames.
    async fn closing(&mut self, within: Duration) -> Closing {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let Ok(next) = tokio::time::timeout_at(deadline, self.ws.next()).await else {
                return Closing::Open;
            };
            match next {
                Some(Ok(Message::Close(frame))) => {
                    return Closing::Frame(frame.map(|f| u16::from(f.code)))
                }
                Some(Ok(_)) => {}
                other => return Closing::Ended(format!("{other:?}")),
            }
        }
    }

    /// Starts the closing handshake, as a browser does when its tab closes.
    pub async fn start_close(&mut self) {
        let _ = self.ws.close(None).await;
    }

    pub async fn close(mut self) {
        self.start_close().await;
    }
}

/// How a socket ended, as the client saw it.
enum Closing {
    /// A close frame came, with its code if it had one.
    Frame(Option<u16>),
    /// The connection ended without a close frame.
    Ended(String),
    /// Nothing within the wait.
    Open,
}

/// Why no frame of those waited for came: nothing in time, or the socket closed or sent
/// what cannot be read.
enum Missed {
    NothingInTime(String),
    Broken(String),
}

impl std::fmt::Display for Missed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NothingInTime(why) | Self::Broken(why) => f.write_str(why),
        }
    }
}
