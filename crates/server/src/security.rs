//! Request guards shared by the API: the Origin check of state changes, client addresses,
//! and rate limits over the shared engine.

use std::time::Duration;

use poem::http::{header, Method};
use poem::{Endpoint, IntoResponse, Request, Response};
use sha2::{Digest, Sha256};
use telepathy_domain::limits::{LOOKUPS_PER_IP, LOOKUP_WINDOW};
use telepathy_domain::ErrorCode;
use telepathy_providers::Secret;

use crate::error::{ApiError, OrInternal};
use crate::state::AppState;

/// The client's address: the first X-Forwarded-For hop behind a trusted proxy, else the
/// peer address.
pub fn client_ip(req: &Request, trust_proxy: bool) -> String {
    if trust_proxy {
        if let Some(first) = req
            .headers()
            .get("x-forwarded-for")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(',').next())
        {
            let first = first.trim();
            if !first.is_empty() {
                return first.to_owned();
            }
        }
    }
    req.remote_addr()
        .as_socket_addr()
        .map(|a| a.ip().to_string())
        .unwrap_or_else(|| "unknown".to_owned())
}

/// Whether a request comes from this machine (a loopback peer that came through no proxy)
/// or carries `Authorization: Bearer <token>` with the configured `token`. The guard of
/// what only operators may read: `/metrics` and the demo SMS outbox.
pub fn local_or_bearer(req: &Request, token: Option<&Secret>) -> bool {
    // A proxy on this machine connects from loopback too; the headers it adds tell.
    let proxied = ["x-forwarded-for", "forwarded", "x-real-ip"]
        .iter()
        .any(|h| req.headers().contains_key(*h));
    let local = !proxied
        && req
            .remote_addr()
            .as_socket_addr()
            .is_some_and(|a| a.ip().is_loopback());
    let bearer = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    let token_ok = match (token, bearer) {
        // Compared as digests, so the time taken says nothing about the token.
        (Some(token), Some(given)) => {
            Sha256::digest(token.expose().as_bytes()) == Sha256::digest(given.as_bytes())
        }
        _ => false,
    };
    local || token_ok
}

/// Whether a request's Origin, when it has one, is ours. Browsers send Origin on every
/// cross-site state change, so refusing foreign ones stops cross-site request forgery
/// together with the SameSite=Lax cookie.
pub fn origin_allowed(req: &Request, allowed: &[String]) -> bool {
    match req
        .headers()
        .get(header::ORIGIN)
        .and_then(|v| v.to_str().ok())
    {
        None => true,
        Some(origin) => allowed.iter().any(|a| a == origin.trim_end_matches('/')),
    }
}

/// Refuses state changes from foreign origins, before any handler runs.
pub async fn check_origin<E: Endpoint>(next: E, req: Request) -> poem::Result<Response> {
    let safe = matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    if !safe {
        let allowed = req
            .data::<AppState>()
            .map(|s| s.config.public_origins.clone())
            .unwrap_or_default();
        if !origin_allowed(&req, &allowed) {
            return Ok(ApiError::from(ErrorCode::ForbiddenOrigin).into_response());
        }
    }
    next.call(req).await.map(IntoResponse::into_response)
}

impl AppState {
    /// Counts one account look-up (username check, find password, whether a phone or
    /// username is taken at sign-up) of the request's client address, so that usernames and
    /// phone numbers cannot be enumerated quickly.
    pub async fn limit_lookups(&self, req: &Request) -> Result<(), ApiError> {
        let ip = client_ip(req, self.config.trust_proxy);
        self.limit(
            &format!("lookup:ip:{ip}"),
            LOOKUPS_PER_IP,
            LOOKUP_WINDOW,
            ErrorCode::RateLimited,
        )
        .await
    }

    /// Counts one event under each `(key, limit, window)`, all shared by all nodes. When
    /// any is past its limit the event is refused with `code` and every count taken back:
    /// a refused event counts nowhere.
    pub async fn limit_all(
        &self,
        limits: &[(&str, u32, Duration)],
        code: ErrorCode,
    ) -> Result<(), ApiError> {
        for (i, (key, limit, window)) in limits.iter().enumerate() {
            if let Err(e) = self.limit(key, *limit, *window, code).await {
                let counted: Vec<&str> = limits[..=i].iter().map(|(k, _, _)| *k).collect();
                self.refund(&counted).await;
                return Err(e);
            }
        }
        Ok(())
    }

    /// Takes back one count of each of `keys`, for an event that did not happen. A failure
    /// is only logged: the count then errs on the safe side until its window ends.
    pub async fn refund(&self, keys: &[&str]) {
        for key in keys {
            if let Err(e) = self.engine.refund(key).await {
                tracing::warn!(key, error = %e, "a rate-limit count could not be taken back");
            }
        }
    }

    /// Counts one event against a limit shared by all nodes; refuses with `code` beyond it.
    pub async fn limit(
        &self,
        key: &str,
        limit: u32,
        window: Duration,
        code: ErrorCode,
    ) -> Result<(), ApiError> {
        let hit = self
            .engine
            .hit(key, limit, window)
            .await
            .or_internal("counting a rate limit")?;
        if hit.allowed {
            Ok(())
        } else {
            tracing::info!(key, count = hit.count, "rate limit reached");
            Err(code.into())
        }
    }
}
