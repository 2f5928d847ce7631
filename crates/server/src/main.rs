//! `telepathy`: with no arguments (or `serve`) starts a node; `openapi` prints the API
//! document; `seed` makes load-test users; `operator` manages the operations team;
//! `transfer` and `wordset` confirm bank transfers and review custom word sets; `vapid`
//! makes the key pair of the opening bell's pushes.

use clap::Parser;
use poem::Server;
use telepathy_server::cli::setup::configure;
use telepathy_server::cli::{operator, seed, wordset, Cli, Command};
use telepathy_server::config::Config;
use telepathy_server::state::AppState;
use tracing_subscriber::EnvFilter;

/// mimalloc instead of glibc's allocator: under chat load glibc's malloc and free took
/// about a seventh of a node's CPU, and its arenas kept freed memory (see
/// loadtest/RESULTS.md). Built without its transparent huge pages (the `no_thp`
/// feature): at a round's rush, the kernel zeroing a fresh 2 MiB page for each region
/// mimalloc touched first took a fifth of the node's CPU.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    let result = match Cli::parse().into_command() {
        // A node's configuration is read before its runtime starts: it sizes the runtime.
        Command::Serve => {
            configure().and_then(|config| runtime(config.worker_threads)?.block_on(serve(config)))
        }
        Command::Openapi => on_runtime(async {
            println!("{}", telepathy_server::openapi_json().await?);
            Ok(())
        }),
        Command::Seed(args) => on_runtime(seed::run(args)),
        Command::Operator(command) => on_runtime(operator::run(command)),
        Command::Transfer(command) => on_runtime(wordset::run(command.into())),
        Command::Wordset(command) => wordset::Command::try_from(command)
            .and_then(|command| on_runtime(wordset::run(command))),
        Command::Vapid => {
            vapid();
            Ok(())
        }
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("telepathy: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// The runtime: `workers` threads, or one per CPU the process may use.
fn runtime(workers: Option<usize>) -> anyhow::Result<tokio::runtime::Runtime> {
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    if let Some(n) = workers {
        builder.worker_threads(n);
    }
    Ok(builder.enable_all().build()?)
}

/// Runs a command other than `serve` to its end.
fn on_runtime(
    command: impl std::future::Future<Output = anyhow::Result<()>>,
) -> anyhow::Result<()> {
    runtime(None)?.block_on(command)
}

/// `telepathy vapid`: a new key pair, as lines for `.env`.
fn vapid() {
    let keys = telepathy_providers::VapidKeys::generate();
    println!("# The opening bell's VAPID pair. Keep the private key secret and keep it:");
    println!("# a new pair orphans every browser's subscription.");
    println!("TELEPATHY_VAPID_PRIVATE_KEY={}", keys.private_base64());
    println!(
        "# The public key (browsers get it from /api/app-config): {}",
        keys.public_base64()
    );
}

async fn serve(config: Config) -> anyhow::Result<()> {
    init_logs(config.json_logs);
    let mode = if config.redis_url.is_some() {
        "cluster"
    } else {
        "embedded"
    };
    tracing::info!(
        mode,
        backend = ?config.backend,
        demo = config.demo,
        listen = %config.listen,
        "starting telepathy"
    );
    if !config.static_dir.join("index.html").exists() {
        tracing::warn!(dir = %config.static_dir.display(), "the web app is not built here; only the API is served");
    }
    let listen = config.listen;
    let url = config.public_origins.first().cloned().unwrap_or_default();
    let drain = config.drain;
    let state = AppState::build(config).await?;
    let sealed =
        telepathy_server::security::totp::seal_stored_secrets(&state.store, &state.config.data_key)
            .await?;
    if sealed > 0 {
        tracing::info!(sealed, "operators' TOTP secrets sealed with the data key");
    }
    telepathy_server::tasks::start(&state).await?;
    let app = telepathy_server::http::app::build(state.clone());
    let acceptor =
        telepathy_server::http::listener::bind(listen, &state.config, &state.metrics).await?;
    println!("텔레파시 is running at {url}");
    Server::new_with_acceptor(acceptor)
        .run_with_graceful_shutdown(
            app,
            {
                let state = state.clone();
                async move {
                    shutdown_signal().await;
                    // Stop accepting (the server does that next), say not ready to the
                    // requests still coming over open connections, and tell every socket's
                    // client now to reconnect (to another node) and resume: sockets would
                    // otherwise hold the shutdown until its deadline.
                    state.realtime.drain();
                }
            },
            Some(drain),
        )
        .await?;
    // Sockets outlive the server's own shutdown (they were upgraded): each was told to
    // reconnect, and leaves the hub once its close frame is written.
    let closing = tokio::time::Instant::now() + std::time::Duration::from_secs(3);
    while state.realtime.hub.user_count() > 0 && tokio::time::Instant::now() < closing {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    // Leaving on purpose: this node's users stop counting as online at once.
    let instance = state.realtime.hub.instance();
    if let Err(e) = state
        .engine
        .leave(&instance, state.shared_clock.now_ms())
        .await
    {
        tracing::warn!(error = %e, "leaving the presence records");
    }
    Ok(())
}

fn init_logs(json: bool) {
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    if json {
        builder.json().init();
    } else {
        builder.init();
    }
}

async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(s) => s,
                Err(_) => {
                    let _ = ctrl_c.await;
                    return;
                }
            };
        tokio::select! {
            _ = ctrl_c => {},
            _ = term.recv() => {},
        }
    }
    #[cfg(not(unix))]
    let _ = ctrl_c.await;
}
