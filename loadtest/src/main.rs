//! `loadtest`: drives a Telepathy server on this machine and reports latency and
//! throughput per endpoint. See loadtest/README.md.

mod cli;
mod scenario;
mod stats;

use std::process::ExitCode;

use cli::Command;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let options = match cli::parse(&args) {
        Ok(Command::Help) => {
            println!("{}", cli::USAGE);
            return ExitCode::SUCCESS;
        }
        Ok(Command::Accounts(options)) => options,
        Err(e) => {
            eprintln!("loadtest: {e:#}\n\n{}", cli::USAGE);
            return ExitCode::from(2);
        }
    };
    match run(options) {
        Ok(true) => ExitCode::SUCCESS,
        // The report is printed; a failed request still makes the run fail.
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("loadtest: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(options: cli::Options) -> anyhow::Result<bool> {
    let json = options.json;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(options.threads)
        .enable_all()
        .build()?;
    let report = runtime.block_on(scenario::run(options))?;
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.table());
    }
    Ok(report.errors == 0 && report.users_signed_up == report.users)
}
