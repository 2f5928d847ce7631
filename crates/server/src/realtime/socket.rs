//! One WebSocket: authenticate the upgrade, then read frames and write what the hub sends.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use poem::web::websocket::{Message, WebSocket, WebSocketConfig, WebSocketStream};
use poem::web::Data;
use poem::{handler, IntoResponse, Request, Response};
use telepathy_domain::ErrorCode;
use telepathy_store::User;
use tokio::sync::mpsc;

use super::protocol::{
    frame, parse, ChatEnded, EndReason, Hello, JoinMatch, OnlineCount, Resume, Resumed, RoomRef,
    SendChatMessage, SocketError,
};
use crate::error::ApiError;
use crate::security::origin_allowed;
use crate::state::AppState;

/// The largest frame a client may send.
const MAX_FRAME: usize = 16 * 1024;
/// Frames a user may send per window before being told to slow down.
const FRAMES_PER_WINDOW: u32 = 40;
const FRAME_WINDOW: Duration = Duration::from_secs(10);
/// How often an open socket re-checks that its session still lives.
const SESSION_CHECK: Duration = Duration::from_secs(30);
const PING_EVERY: Duration = Duration::from_secs(25);

/// `GET /ws`: the session cookie and an allowed Origin are required.
#[handler]
pub async fn ws(req: &Request, socket: WebSocket, state: Data<&AppState>) -> Response {
    let state = (*state).clone();
    if !origin_allowed(req, &state.config.public_origins) {
        return ApiError::from(ErrorCode::ForbiddenOrigin).into_response();
    }
    let current = match state.current_user(req).await {
        Ok(Some(current)) => current,
        Ok(None) => return ApiError::from(ErrorCode::Unauthorized).into_response(),
        Err(e) => return e.into_response(),
    };
    let config = WebSocketConfig::default()
        .max_message_size(Some(MAX_FRAME))
        .max_frame_size(Some(MAX_FRAME));
    socket
        .config(config)
        .on_upgrade(move |stream| run(state, current.user, current.token_hash, stream))
        .into_response()
}

async fn run(state: AppState, user: User, token_hash: String, stream: WebSocketStream) {
    let (mut sink, mut incoming) = stream.split();
    let registered = state.hub.register(user.id);
    let (conn, reply, mut outgoing, recheck) = (
        registered.id,
        registered.reply,
        registered.outgoing,
        registered.recheck,
    );
    tracing::debug!(user_id = user.id, conn, "socket open");

    let room = state.engine.room_of(user.id).await.ok().flatten();
    let hello = Hello {
        user_id: user.id,
        room_id: room.map(|r| r.id),
        round: state.round_state(),
    };
    let _ = reply.try_send(frame("hello", &hello));
    if let Ok(count) = state.engine.online_count(state.shared_now_ms()).await {
        let _ = reply.try_send(frame("onlineCount", &OnlineCount { count }));
    }

    let writer = tokio::spawn(async move {
        let mut ping = tokio::time::interval(PING_EVERY);
        loop {
            tokio::select! {
                next = outgoing.recv() => match next {
                    Some(text) => if sink.send(Message::Text(text)).await.is_err() { break },
                    None => break,
                },
                _ = ping.tick() => if sink.send(Message::Ping(Vec::new())).await.is_err() { break },
            }
        }
        let _ = sink.close().await;
    });

    let mut session_check = tokio::time::interval(SESSION_CHECK);
    session_check.tick().await;
    loop {
        let check_session = tokio::select! {
            next = incoming.next() => match next {
                Some(Ok(Message::Text(text))) => {
                    handle(&state, &user, &reply, &text).await;
                    false
                }
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                Some(Ok(_)) => false,
            },
            _ = session_check.tick() => true,
            () = recheck.notified() => true,
            _ = writer_closed(&reply) => break,
        };
        if check_session && !session_lives(&state, &token_hash).await {
            let _ = reply.try_send(frame(
                "error",
                &SocketError::new("session", ErrorCode::Unauthorized),
            ));
            break;
        }
    }
    drop(reply);
    // If this was the user's last socket anywhere, the presence records stop counting
    // them at the next beat, and the away sweep ends their chat after the grace period.
    state.hub.unregister(user.id, conn);
    // Let the writer flush what is queued, then stop it.
    tokio::time::sleep(Duration::from_millis(50)).await;
    writer.abort();
    tracing::debug!(user_id = user.id, conn, "socket closed");
}

/// Whether the socket's session is still live (not logged out, revoked or expired).
async fn session_lives(state: &AppState, token_hash: &str) -> bool {
    // A database hiccup is not a logout: keep the socket and check again later.
    !matches!(
        state
            .store
            .session_user(token_hash, state.clock.now_ms())
            .await,
        Ok(None)
    )
}

async fn writer_closed(reply: &mpsc::Sender<String>) {
    reply.closed().await;
}

async fn handle(state: &AppState, user: &User, reply: &mpsc::Sender<String>, text: &str) {
    let refuse = |event: &str, code: ErrorCode| {
        let _ = reply.try_send(frame("error", &SocketError::new(event, code)));
    };
    let Ok(value) = serde_json::from_str::<serde_json::Value>(text) else {
        return refuse("unknown", ErrorCode::InvalidRequest);
    };
    let event = value["event"].as_str().unwrap_or("unknown").to_owned();
    let data = value
        .get("data")
        .cloned()
        .unwrap_or(serde_json::Value::Null);
    match state
        .engine
        .hit(&format!("ws:{}", user.id), FRAMES_PER_WINDOW, FRAME_WINDOW)
        .await
    {
        Ok(hit) if !hit.allowed => return refuse(&event, ErrorCode::RateLimited),
        Ok(_) => {}
        Err(e) => tracing::warn!(error = %e, "counting socket frames"),
    }
    let result = match event.as_str() {
        "join_match" => match parse::<JoinMatch>(data) {
            // The nickname may have been set after the socket opened: read the user again.
            Some(join) => match state.store.user_by_id(user.id).await {
                Ok(Some(fresh)) => state.join_match(&fresh, &join).await,
                Ok(None) => Err(ErrorCode::Unauthorized),
                Err(e) => Err(super::internal("reading a user", e)),
            },
            None => Err(ErrorCode::InvalidRequest),
        },
        "chatMessage" => match parse::<SendChatMessage>(data) {
            Some(msg) => state.send_chat(user, &msg).await,
            None => Err(ErrorCode::InvalidRequest),
        },
        "typing" | "stopTyping" => match parse::<RoomRef>(data) {
            Some(r) => state.relay_typing(user.id, &r.room_id, &event).await,
            None => Err(ErrorCode::InvalidRequest),
        },
        "leaveRoom" => match parse::<RoomRef>(data) {
            Some(r) => state.leave_room(user.id, &r.room_id).await,
            None => Err(ErrorCode::InvalidRequest),
        },
        "getOnlineCount" => match state.engine.online_count(state.shared_now_ms()).await {
            Ok(count) => {
                let _ = reply.try_send(frame("onlineCount", &OnlineCount { count }));
                Ok(())
            }
            Err(e) => Err(super::internal("counting users online", e)),
        },
        "resume" => match parse::<Resume>(data) {
            Some(r) => resume(state, user.id, reply, &r).await,
            None => Err(ErrorCode::InvalidRequest),
        },
        _ => Err(ErrorCode::InvalidRequest),
    };
    if let Err(code) = result {
        refuse(&event, code);
    }
}

async fn resume(
    state: &AppState,
    user_id: i64,
    reply: &mpsc::Sender<String>,
    r: &Resume,
) -> Result<(), ErrorCode> {
    let (messages, ended) = match state
        .missed(user_id, &r.room_id, r.last_id.as_deref())
        .await
    {
        Ok(found) => found,
        Err(ErrorCode::NotInRoom) => {
            let gone = ChatEnded {
                room_id: r.room_id.clone(),
                reason: EndReason::Gone,
                by_user_id: None,
            };
            let _ = reply.send(frame("chatEnded", &gone)).await;
            return Ok(());
        }
        Err(e) => return Err(e),
    };
    let count = messages.len() as u64;
    for m in messages {
        // Waiting (not try_send): a long backlog must arrive whole.
        if reply.send(frame("chatMessage", &m)).await.is_err() {
            return Ok(());
        }
    }
    let _ = reply
        .send(frame(
            "resumed",
            &Resumed {
                room_id: r.room_id.clone(),
                count,
            },
        ))
        .await;
    if ended {
        let over = ChatEnded {
            room_id: r.room_id.clone(),
            reason: EndReason::Left,
            by_user_id: None,
        };
        let _ = reply.send(frame("chatEnded", &over)).await;
    }
    Ok(())
}
