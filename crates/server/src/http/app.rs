//! The routes of a node: `/api` (the OpenAPI service), health, and the web app with SPA
//! fallback (`web`).

use poem::http::{header, StatusCode};
use poem::middleware::{CookieJarManager, SetHeader};
use poem::web::Json;
use poem::{get, handler, Endpoint, EndpointExt, IntoResponse, Request, Response, Route};
use poem_openapi::types::ToJSON;
use poem_openapi::OperationId;
use telepathy_domain::ErrorCode;

use crate::error::{status_of, ErrorBody};
use tracing::Instrument;

use crate::api;
use crate::http::guards::{answer_headers, check_origin, limit_body, limit_uri};
use crate::security::{client_ip, local_or_bearer, peer_ip};
use crate::state::AppState;

/// The whole HTTP application of a node.
pub fn build(state: AppState) -> impl Endpoint {
    // No answer of the API is for a cache: most are about a person (a profile, a chat, the
    // console), and a shared or back-button cache must not keep them.
    let body_timeout = state.config.request_timeout;
    let body_cut = state.metrics.connections_cut.body.clone();
    let api = api::service(&state)
        .around(check_origin)
        .around(move |next, req| limit_body(next, req, body_timeout, body_cut.clone()))
        .catch_all_error(|err: poem::Error| async move { json_error(err) })
        .with(SetHeader::new().overriding(header::CACHE_CONTROL, "no-store"));
    let static_dir = state.config.static_dir.clone();
    let headers = answer_headers(&state.config)
        .into_iter()
        .fold(SetHeader::new(), |set, (name, value)| {
            set.overriding(name, value)
        });
    let web = crate::http::web::endpoint(static_dir);
    Route::new()
        .nest("/api", api)
        .at("/ws", get(api::socket::ws))
        .at("/healthz", get(healthz))
        .at("/readyz", get(readyz))
        .at("/metrics", get(metrics))
        .nest("/", web)
        .around(limit_uri)
        .around(count_request)
        .with(CookieJarManager::new())
        .with(headers)
        .around(log_request)
        .data(state)
}

/// Errors poem or poem-openapi raise before a handler (unreadable body, unknown path)
/// answered in the API's one error shape. Our own error answers pass through untouched.
fn json_error(err: poem::Error) -> Response {
    let status = err.status();
    let response = err.into_response();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if is_json {
        return response;
    }
    let code = match status {
        StatusCode::NOT_FOUND | StatusCode::METHOD_NOT_ALLOWED => ErrorCode::NotFound,
        StatusCode::PAYLOAD_TOO_LARGE => ErrorCode::PayloadTooLarge,
        StatusCode::URI_TOO_LONG => ErrorCode::UriTooLong,
        s if s.is_client_error() => ErrorCode::InvalidRequest,
        _ => ErrorCode::Internal,
    };
    // With the code's own status, so that every answer is one the API document lists
    // (a body of another media type, say, is an unreadable request: 400, not 415).
    Json(ErrorBody::new(code).to_json())
        .with_status(status_of(code))
        .into_response()
}

/// The longest `/readyz` takes to answer.
const READY_WITHIN: std::time::Duration = std::time::Duration::from_secs(3);

#[handler]
fn healthz() -> &'static str {
    "ok"
}

/// Ready when the database and the engine answer in time and the node is not leaving.
#[handler]
async fn readyz(state: poem::web::Data<&AppState>) -> Response {
    let (store, engine) = tokio::join!(within(state.store.ping()), within(state.engine.ping()));
    let draining = state.realtime.draining();
    let body = serde_json::json!({
        "store": store.as_ref().map(|_| "ok").unwrap_or("down"),
        "engine": engine.as_ref().map(|_| state.engine.name()).unwrap_or("down"),
        "draining": draining,
    });
    let status = if store.is_ok() && engine.is_ok() && !draining {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    if let Err(e) = &store {
        tracing::warn!(error = %e, "store not ready");
    }
    if let Err(e) = &engine {
        tracing::warn!(error = %e, "engine not ready");
    }
    Json(body).with_status(status).into_response()
}

/// Each part bounds its own calls; this bounds `/readyz`'s answer whatever they do.
async fn within<E: std::fmt::Display>(
    call: impl std::future::Future<Output = Result<(), E>>,
) -> Result<(), String> {
    match tokio::time::timeout(READY_WITHIN, call).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err("no answer in time".to_owned()),
    }
}

/// Logs every request when it is answered, within a span that the handler's own logs
/// share: method, path (not the query, which may hold a phone number), status, duration,
/// the peer (the connection's other end, perhaps our proxy) and the client as the trusted
/// proxies tell it.
async fn log_request<E: Endpoint>(next: E, req: Request) -> poem::Result<Response> {
    /// Paths are cut here in the log.
    const PATH_LOGGED: usize = 200;
    let started = std::time::Instant::now();
    let path: String = req.uri().path().chars().take(PATH_LOGGED).collect();
    let peer = peer_ip(&req);
    let client = match req.data::<AppState>() {
        Some(state) => client_ip(&req, state.config.trusted_proxies),
        None => peer.clone(),
    };
    let span = tracing::info_span!(
        "request",
        method = %req.method(),
        path = %path,
        peer = %peer,
        client = %client,
    );
    async move {
        let resp = next.get_response(req).await;
        tracing::info!(
            status = resp.status().as_u16(),
            duration_ms = started.elapsed().as_secs_f64() * 1000.0,
            "answered"
        );
        Ok(resp)
    }
    .instrument(span)
    .await
}

/// Counts every request by route: the API's operation id, or the kind of path.
async fn count_request<E: Endpoint>(next: E, req: Request) -> poem::Result<Response> {
    let started = std::time::Instant::now();
    let state = req.data::<AppState>().cloned();
    let path = req.uri().path().to_owned();
    let result = next.get_response(req).await;
    if let Some(state) = state {
        let route = match result.data::<OperationId>() {
            Some(op) => op.0.to_owned(),
            None => match path.as_str() {
                "/ws" => "ws".to_owned(),
                "/healthz" | "/readyz" | "/metrics" => path[1..].to_owned(),
                p if p.starts_with("/api/") => "api_other".to_owned(),
                _ => "web".to_owned(),
            },
        };
        state.metrics.http(
            route,
            result.status().as_u16(),
            started.elapsed().as_secs_f64(),
        );
    }
    Ok(result)
}

/// `GET /metrics`: the Prometheus text format, for this machine (a loopback peer that
/// came through no proxy) or a scraper with the configured bearer token.
#[handler]
fn metrics(req: &Request, state: poem::web::Data<&AppState>) -> Response {
    if !local_or_bearer(req, state.config.metrics_token.as_ref()) {
        return json_error(poem::Error::from_status(StatusCode::NOT_FOUND));
    }
    state
        .metrics
        .encode()
        .with_content_type("text/plain; version=0.0.4; charset=utf-8")
        .into_response()
}
