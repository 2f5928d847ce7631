//! The Telepathy node: HTTP API, configuration, static files. Only this crate serves the
//! app's HTTP (the providers call out, and serve only their test stand-ins).

pub mod accounts;
pub mod api;
pub mod bell;
pub mod cli;
pub mod clock;
pub mod config;
pub mod error;
pub mod http;
pub mod metrics;
pub mod payments;
pub mod realtime;
pub mod security;
pub mod state;
pub mod tasks;
pub mod wire;

/// The OpenAPI document of the API, as committed in `openapi/openapi.json`.
pub async fn openapi_json() -> anyhow::Result<String> {
    // A key of its own: the demo's is kept in a database, and each connection to
    // `sqlite::memory:` is a database of its own.
    let vapid = telepathy_providers::VapidKeys::generate().private_base64();
    let config = config::Config::from_lookup(|name| match name {
        "DATABASE_URL" => Some("sqlite::memory:".to_owned()),
        "TELEPATHY_DEMO" => Some("true".to_owned()),
        "TELEPATHY_VAPID_PRIVATE_KEY" => Some(vapid.clone()),
        _ => None,
    })?;
    let state = state::AppState::build(config).await?;
    Ok(api::service(&state).spec())
}
