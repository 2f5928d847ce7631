//! The guards every request passes before a handler runs (body and path limits, the
//! Origin check of state changes) and the security headers of every answer.

use std::time::Duration;

use poem::error::ReadBodyError;
use poem::http::{header, HeaderValue, Method};
use poem::{Body, Endpoint, IntoResponse, Request, Response};
use prometheus_client::metrics::counter::Counter;
use telepathy_domain::ErrorCode;

use crate::config::Config;
use crate::error::ApiError;
use crate::security::origin_allowed;
use crate::state::AppState;

/// Where the web app's pages may load scripts from: PortOne's V2 browser SDK (identity
/// verification) and the V1 iamport SDK (card payments). docs/security.md lists why.
const SCRIPT_HOSTS: &str = "https://cdn.portone.io https://cdn.iamport.kr";

/// What the pages may call besides their own origin: PortOne's APIs, which the V2 SDK and
/// the V1 payment window's script call.
const CONNECT_HOSTS: &str = "https://api.portone.io https://*.iamport.kr";

/// What the pages may frame: PortOne's and iamport's payment and verification windows, and
/// the windows of the payment gateways and identity services they open.
const FRAME_HOSTS: &str = "https://*.portone.io https://service.iamport.kr https://*.iamport.kr \
     https://*.inicis.com https://*.kcp.co.kr https://*.nicepay.co.kr https://*.danal.co.kr \
     https://*.tosspayments.com https://*.kakaopay.com";

/// The Content-Security-Policy of every answer. Scripts and styles come only from files
/// (no inline code); sockets go to our own origins; nothing may frame the app.
pub fn content_security_policy(public_origins: &[String]) -> String {
    let mut sockets: Vec<String> = Vec::new();
    for origin in public_origins {
        let socket = origin
            .strip_prefix("https://")
            .map(|host| format!("wss://{host}"))
            .or_else(|| {
                origin
                    .strip_prefix("http://")
                    .map(|host| format!("ws://{host}"))
            });
        if let Some(socket) = socket.filter(|s| !sockets.contains(s)) {
            sockets.push(socket);
        }
    }
    [
        "default-src 'self'".to_owned(),
        format!("script-src 'self' {SCRIPT_HOSTS}"),
        "style-src 'self'".to_owned(),
        "img-src 'self' data:".to_owned(),
        "font-src 'self'".to_owned(),
        format!("connect-src 'self' {} {CONNECT_HOSTS}", sockets.join(" ")),
        format!("frame-src {FRAME_HOSTS}"),
        "form-action 'self' https://*.portone.io https://*.iamport.kr".to_owned(),
        "object-src 'none'".to_owned(),
        "base-uri 'self'".to_owned(),
        "frame-ancestors 'none'".to_owned(),
    ]
    .join("; ")
}

/// Browser features the pages do not use are off; payment only for the app and iamport's
/// payment window.
pub const PERMISSIONS_POLICY: &str =
    "camera=(), microphone=(), geolocation=(), payment=(self \"https://service.iamport.kr\")";

/// HSTS, for a node whose public origin is https.
pub const STRICT_TRANSPORT_SECURITY: &str = "max-age=31536000; includeSubDomains";

/// The headers every answer of the node carries, whoever writes it (the app, or hyper
/// itself: see `listener`).
pub fn answer_headers(config: &Config) -> Vec<(&'static str, String)> {
    let mut headers = vec![
        ("x-content-type-options", "nosniff".to_owned()),
        ("x-frame-options", "DENY".to_owned()),
        ("referrer-policy", "same-origin".to_owned()),
        (
            "content-security-policy",
            content_security_policy(&config.public_origins),
        ),
        ("permissions-policy", PERMISSIONS_POLICY.to_owned()),
    ];
    // Only over https: a browser told so by a plain-http origin would refuse it later.
    if config.secure_cookies() {
        headers.push((
            "strict-transport-security",
            STRICT_TRANSPORT_SECURITY.to_owned(),
        ));
    }
    headers
}

/// The largest request body the API reads.
pub const BODY_MAX: usize = 64 * 1024;

/// The longest path and query a node reads.
pub const URI_MAX: usize = 8 * 1024;

/// Reads a request's body before its handler runs: refuses one larger than [`BODY_MAX`]
/// (at once when its declared length says so) and one that does not arrive within the
/// `timeout` (a client sending slowly to hold a connection).
pub async fn limit_body<E: Endpoint>(
    next: E,
    mut req: Request,
    timeout: Duration,
    cut: Counter,
) -> poem::Result<Response> {
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    match declared {
        Some(n) if n > BODY_MAX as u64 => {
            return Ok(ApiError::from(ErrorCode::PayloadTooLarge).into_response());
        }
        Some(0) => {}
        // A declared length, or none (a body in chunks, or no body).
        Some(_) | None => {
            let read = req.take_body().into_bytes_limit(BODY_MAX);
            match tokio::time::timeout(timeout, read).await {
                Ok(Ok(bytes)) => req.set_body(Body::from_bytes(bytes)),
                Ok(Err(ReadBodyError::PayloadTooLarge)) => {
                    return Ok(ApiError::from(ErrorCode::PayloadTooLarge).into_response());
                }
                Ok(Err(_)) => return Ok(ApiError::from(ErrorCode::InvalidRequest).into_response()),
                Err(_) => {
                    cut.inc();
                    let mut answer = ApiError::from(ErrorCode::RequestTimeout).into_response();
                    // The rest of the body may still come: the connection is not reused.
                    answer
                        .headers_mut()
                        .insert(header::CONNECTION, HeaderValue::from_static("close"));
                    return Ok(answer);
                }
            }
        }
    }
    next.call(req).await.map(IntoResponse::into_response)
}

/// Refuses a path and query longer than [`URI_MAX`] before anything reads them.
pub async fn limit_uri<E: Endpoint>(next: E, req: Request) -> poem::Result<Response> {
    let length = req.uri().path_and_query().map_or(0, |p| p.as_str().len());
    if length > URI_MAX {
        return Ok(ApiError::from(ErrorCode::UriTooLong).into_response());
    }
    next.call(req).await.map(IntoResponse::into_response)
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

#[cfg(test)]
mod tests {
    use super::content_security_policy;

    #[test]
    fn sockets_go_to_our_own_origins_in_kind() {
        let csp = content_security_policy(&[
            "https://telepathy.example".to_owned(),
            "http://localhost:5173".to_owned(),
            "https://telepathy.example".to_owned(),
        ]);
        assert!(
            csp.contains("connect-src 'self' wss://telepathy.example ws://localhost:5173 "),
            "{csp}"
        );
        assert!(!csp.contains('\n') && !csp.contains("  "), "{csp}");
    }
}
