//! The WebSocket at `/ws`, real time's way in: the upgrade is authenticated here, and the
//! socket's life is `realtime::session`'s, with the services it speaks for above real
//! time (the session's store, safety's restrictions and counts, the megaphones).

use std::sync::Arc;

use poem::web::websocket::{WebSocket, WebSocketConfig};
use poem::web::Data;
use poem::{handler, IntoResponse, Request, Response};
use telepathy_domain::limits::{SOCKET_FRAME_MAX_BYTES, SOCKET_OPENS_PER_USER, SOCKET_OPEN_WINDOW};
use telepathy_domain::ErrorCode;
use telepathy_store::User;

use crate::error::ApiError;
use crate::payments::megaphones::Refused;
use crate::realtime::session::{self, Opened, Services};
use crate::security::origin_allowed;
use crate::state::AppState;
use crate::wire::{frame, AccountRestricted, SocketError};

/// `GET /ws`: the session cookie and an allowed Origin are required, and the account may
/// open at most `SOCKET_OPENS_PER_USER` sockets a window (429 `RATE_LIMITED` past them).
#[handler]
pub async fn ws(req: &Request, socket: WebSocket, state: Data<&AppState>) -> Response {
    let state = (*state).clone();
    if !origin_allowed(req, &state.config.public_origins) {
        return ApiError::from(ErrorCode::ForbiddenOrigin).into_response();
    }
    // Nor while the bus is being subscribed again: a socket that resumed then could miss
    // what was published in the meantime and be handed what came after.
    if state.realtime.draining() || !state.engine.bus_ready() {
        return ApiError::from(ErrorCode::Unavailable).into_response();
    }
    let (current, apart) = match state.sessions.current_user_apart(req).await {
        Ok(Some(found)) => found,
        Ok(None) => return ApiError::from(ErrorCode::Unauthorized).into_response(),
        Err(e) => return e.into_response(),
    };
    let opens = format!("ws-open:{}", current.user.id);
    if let Err(code) = state
        .limits
        .limit_code(
            &opens,
            SOCKET_OPENS_PER_USER,
            SOCKET_OPEN_WINDOW,
            ErrorCode::RateLimited,
        )
        .await
    {
        return ApiError::from(code).into_response();
    }
    let config = WebSocketConfig::default()
        .read_buffer_size(READ_BUFFER)
        .write_buffer_size(WRITE_BUFFER)
        .max_message_size(Some(SOCKET_FRAME_MAX_BYTES))
        .max_frame_size(Some(SOCKET_FRAME_MAX_BYTES));
    // One pointer for what the socket starts with (see `session::run`).
    let opened = Box::new(Opened {
        realtime: state.realtime.clone(),
        services: Arc::new(NodeServices(state)),
        user: current.user,
        token_hash: current.token_hash,
        apart,
    });
    socket
        .config(config)
        .on_upgrade(move |stream| session::run(opened, stream))
        .into_response()
}

/// The read and write buffers of each socket. tungstenite's defaults (128 KiB each) are
/// sized for bulk transfer; chat frames are at most 16 KiB and usually a few hundred
/// bytes, and an idle socket should cost a few KiB. The read buffer is allocated up front
/// and grows only while a larger frame passes; the write buffer grows as frames queue.
const READ_BUFFER: usize = 1024;
const WRITE_BUFFER: usize = 4 * 1024;

/// What a socket of this node speaks for above real time.
struct NodeServices(AppState);

#[async_trait::async_trait]
impl Services for NodeServices {
    async fn session_user(&self, token_hash: &str) -> Result<Option<User>, ()> {
        let state = &self.0;
        let found = state.store.session_user(token_hash, state.clock.now_ms());
        state
            .metrics
            .store("session_user", found)
            .await
            .map_err(drop)
    }

    async fn why_it_ended(&self, user_id: i64) -> String {
        match self.0.safety.restriction(user_id).await {
            Ok(Some(r)) => frame("accountRestricted", &AccountRestricted::from(&r)),
            _ => frame(
                "error",
                &SocketError::new("session", ErrorCode::Unauthorized),
            ),
        }
    }

    async fn send_megaphone(
        &self,
        user: &User,
        text: &str,
        event: &str,
    ) -> Result<String, ErrorCode> {
        match self.0.payments.send_megaphone(user, text).await {
            Ok(sent) => Ok(frame("megaphoneSent", &sent)),
            Err(Refused {
                code,
                message: Some(message),
            }) => Ok(frame(
                "error",
                &SocketError {
                    message,
                    ..SocketError::new(event, code)
                },
            )),
            Err(Refused { code, .. }) => Err(code),
        }
    }

    fn count_masked(&self, room_id: &str, user_id: i64) {
        self.0.safety.count_masked(room_id, user_id);
    }
}
