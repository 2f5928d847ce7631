//! The Telepathy node: HTTP API, configuration, static files. Only this crate knows HTTP.

pub mod api;
pub mod app;
pub mod clock;
pub mod config;
pub mod error;
pub mod megaphones;
pub mod metrics;
pub mod operator_cli;
pub mod operators;
pub mod passwords;
pub mod realtime;
pub mod safety;
pub mod sealing;
pub mod security;
pub mod seed;
pub mod session;
pub mod state;
pub mod totp;
pub mod wordset_cli;
pub mod wordsets;

/// The OpenAPI document of the API, as committed in `openapi/openapi.json`.
pub async fn openapi_json() -> anyhow::Result<String> {
    let config = config::Config::from_lookup(|name| match name {
        "DATABASE_URL" => Some("sqlite::memory:".to_owned()),
        "TELEPATHY_DEMO" => Some("true".to_owned()),
        _ => None,
    })?;
    let state = state::AppState::build(config).await?;
    Ok(api::service(&state).spec())
}
