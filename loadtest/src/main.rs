//! `loadtest`: drives a Telepathy server on this machine: HTTP accounts (`accounts`), the
//! WebSocket protocol (`connections`, `match-storm`, `chat-relay`) and the round polling
//! fallback (`round-poll`), a storm of logins from many addresses beside the logins of
//! users (`login-storm`), reporting latency, throughput and correctness. See
//! loadtest/README.md.

mod cli;
mod latency;
mod login_storm;
mod poll;
mod procstats;
mod scenario;
mod sessions;
mod stats;
mod ws;
mod wsclient;

use std::process::ExitCode;

use cli::Command;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let command = match cli::parse(&args) {
        Ok(Command::Help) => {
            println!("{}", cli::USAGE);
            return ExitCode::SUCCESS;
        }
        Ok(command) => command,
        Err(e) => {
            eprintln!("loadtest: {e:#}\n\n{}", cli::USAGE);
            return ExitCode::from(2);
        }
    };
    match run(command) {
        Ok(true) => ExitCode::SUCCESS,
        // The report is printed; a failed check still makes the run fail.
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("loadtest: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn runtime(threads: usize) -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .enable_all()
        .build()?)
}

fn print<T: serde::Serialize>(
    json: bool,
    report: &T,
    table: impl FnOnce() -> String,
) -> anyhow::Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(report)?);
    } else {
        print!("{}", table());
    }
    Ok(())
}

fn run(command: Command) -> anyhow::Result<bool> {
    match command {
        Command::Help => Ok(true),
        Command::Accounts(options) => {
            let json = options.json;
            let report = runtime(options.threads)?.block_on(scenario::run(options))?;
            print(json, &report, || report.table())?;
            Ok(report.errors == 0 && report.users_signed_up == report.users)
        }
        Command::Ws(options) => {
            let json = options.json;
            let rt = runtime(options.threads)?;
            let report = rt.block_on(ws::run(options))?;
            // Tasks of sockets that did not close in time end with the runtime.
            rt.shutdown_timeout(std::time::Duration::from_secs(1));
            print(json, &report, || report.table())?;
            Ok(report.ok)
        }
        Command::LoginStorm(options) => {
            let json = options.json;
            let report = runtime(options.threads)?.block_on(login_storm::run(options))?;
            print(json, &report, || report.table())?;
            Ok(report.ok)
        }
        Command::RoundPoll(options) => {
            let json = options.json;
            let report = runtime(options.threads)?.block_on(poll::run(options))?;
            print(json, &report, || report.table())?;
            Ok(report.ok)
        }
    }
}
