//! The routes of a node: `/api` (the OpenAPI service), health, and the web app with SPA
//! fallback.

use poem::endpoint::StaticFilesEndpoint;
use poem::http::{header, StatusCode};
use poem::middleware::{CookieJarManager, SetHeader, Tracing};
use poem::web::Json;
use poem::{get, handler, Endpoint, EndpointExt, IntoResponse, Request, Response, Route};
use poem_openapi::types::ToJSON;
use poem_openapi::OperationId;
use telepathy_domain::ErrorCode;

use crate::error::{status_of, ErrorBody};
use crate::security::{check_origin, local_or_bearer};
use crate::state::AppState;
use crate::{api, realtime};

/// The whole HTTP application of a node.
pub fn build(state: AppState) -> impl Endpoint {
    let api = api::service(&state)
        .around(check_origin)
        .catch_all_error(|err: poem::Error| async move { json_error(err) });
    let static_dir = state.config.static_dir.clone();
    let web = StaticFilesEndpoint::new(&static_dir)
        .index_file("index.html")
        .fallback_to_index()
        .no_cache_index();
    Route::new()
        .nest("/api", api)
        .at("/ws", get(realtime::ws))
        .at("/healthz", get(healthz))
        .at("/readyz", get(readyz))
        .at("/metrics", get(metrics))
        .nest("/", web)
        .around(count_request)
        .with(CookieJarManager::new())
        .with(
            SetHeader::new()
                .overriding(header::X_CONTENT_TYPE_OPTIONS, "nosniff")
                .overriding(header::X_FRAME_OPTIONS, "DENY")
                .overriding(header::REFERRER_POLICY, "same-origin"),
        )
        .with(Tracing)
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
        s if s.is_client_error() => ErrorCode::InvalidRequest,
        _ => ErrorCode::Internal,
    };
    Json(ErrorBody::new(code).to_json())
        .with_status(if code == ErrorCode::InvalidRequest {
            status
        } else {
            status_of(code)
        })
        .into_response()
}

#[handler]
fn healthz() -> &'static str {
    "ok"
}

/// Ready when the database and the engine answer.
#[handler]
async fn readyz(state: poem::web::Data<&AppState>) -> Response {
    let store = state.store.ping().await;
    let engine = state.engine.ping().await;
    let body = serde_json::json!({
        "store": store.as_ref().map(|_| "ok").unwrap_or("down"),
        "engine": engine.as_ref().map(|_| state.engine.name()).unwrap_or("down"),
    });
    let status = if store.is_ok() && engine.is_ok() {
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
