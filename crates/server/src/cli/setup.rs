//! The start-up the commands share: the configuration of this machine and the store it
//! names. A node builds its own store, with the engine, in `AppState::build`.

use anyhow::{anyhow, Context};
use telepathy_store::Store;

use crate::config::Config;

/// The configuration of this machine: the environment, over `.env` if there is one.
pub fn configure() -> anyhow::Result<Config> {
    // A missing .env is normal; a broken one is not.
    if let Err(e) = dotenvy::dotenv() {
        if !e.not_found() {
            return Err(anyhow!("reading .env: {e}"));
        }
    }
    Ok(Config::from_env()?)
}

/// The store `config` names, for a command (a node builds its own with the engine).
pub async fn open_store(config: &Config) -> anyhow::Result<Store> {
    Store::connect(&config.database_url)
        .await
        .context("connecting to the store")
}
