//! Command-line arguments, and the rule that the target is this machine.

use std::net::IpAddr;
use std::time::Duration;

use anyhow::{anyhow, bail, Context};
use reqwest::Url;

pub const USAGE: &str = "\
usage: loadtest accounts [options]

Signs up --users accounts through the demo SMS flow, then has each one loop on
GET /api/auth/check and GET /api/nickname/profile, logging in again every
--login-every iterations, for --duration. Prints latency and throughput per endpoint.

options:
  --base URL            server to drive; loopback only (default http://127.0.0.1:8080)
  --users N             virtual users, 1..=1000 (default 20)
  --duration D          length of the loop phase, e.g. 30s, 2m, 500ms; at most 10m (default 30s)
  --think D             pause between iterations of one user (default 0)
  --login-every N       log in again every N-th iteration; 0 never (default 10)
  --login-budget N      logins per client address per run (default 50, the server's limit
                        per 10 minutes); further logins are skipped and counted
  --forwarded-for       give each user its own client address in X-Forwarded-For, as a load
                        balancer would; the server must run with TELEPATHY_TRUST_PROXY=true
  --threads N           threads of the load generator (default 1)
  --json                print the report as JSON instead of a table";

/// The most users one run may create.
pub const MAX_USERS: usize = 1000;
/// The longest loop phase one run may last.
pub const MAX_DURATION: Duration = Duration::from_secs(600);
/// SMS codes the server sends to one client address per day.
pub const SMS_PER_ADDRESS: usize = 30;
/// Logins the server accepts from one client address per 10 minutes.
pub const LOGINS_PER_ADDRESS: u32 = 50;

#[derive(Debug, PartialEq)]
pub enum Command {
    Help,
    Accounts(Options),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    pub base: Url,
    pub users: usize,
    pub duration: Duration,
    pub think: Duration,
    pub login_every: u64,
    pub login_budget: u32,
    pub forwarded_for: bool,
    pub threads: usize,
    pub json: bool,
}

pub fn parse(args: &[String]) -> anyhow::Result<Command> {
    let mut it = args.iter();
    match it.next().map(String::as_str) {
        None | Some("-h" | "--help" | "help") => return Ok(Command::Help),
        Some("accounts") => {}
        Some(other) => bail!("unknown scenario `{other}`"),
    }
    let mut o = Options {
        base: loopback_base("http://127.0.0.1:8080")?,
        users: 20,
        duration: Duration::from_secs(30),
        think: Duration::ZERO,
        login_every: 10,
        login_budget: LOGINS_PER_ADDRESS,
        forwarded_for: false,
        threads: 1,
        json: false,
    };
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .map(String::as_str)
                .ok_or_else(|| anyhow!("{flag} needs a value"))
        };
        match flag.as_str() {
            "--base" => o.base = loopback_base(value()?)?,
            "--users" => o.users = number(flag, value()?)?,
            "--duration" => o.duration = duration(value()?)?,
            "--think" => o.think = duration(value()?)?,
            "--login-every" => o.login_every = number(flag, value()?)?,
            "--login-budget" => o.login_budget = number(flag, value()?)?,
            "--threads" => o.threads = number(flag, value()?)?,
            "--forwarded-for" => o.forwarded_for = true,
            "--json" => o.json = true,
            "-h" | "--help" => return Ok(Command::Help),
            other => bail!("unknown option `{other}`"),
        }
    }
    if !(1..=MAX_USERS).contains(&o.users) {
        bail!("--users must be between 1 and {MAX_USERS}");
    }
    if o.duration.is_zero() || o.duration > MAX_DURATION {
        bail!("--duration must be more than 0 and at most 10m");
    }
    if !(1..=64).contains(&o.threads) {
        bail!("--threads must be between 1 and 64");
    }
    if !o.forwarded_for && o.users > SMS_PER_ADDRESS {
        bail!(
            "the server sends at most {SMS_PER_ADDRESS} SMS codes a day to one client address, so \
             --users {} cannot all sign up from this one address. Use --users {SMS_PER_ADDRESS} or \
             fewer, or start the server with TELEPATHY_TRUST_PROXY=true and pass --forwarded-for \
             to give each user its own address.",
            o.users
        );
    }
    Ok(Command::Accounts(o))
}

/// Parses `url` and refuses anything but a server on this machine: 127.0.0.0/8, ::1 or
/// localhost.
pub fn loopback_base(raw: &str) -> anyhow::Result<Url> {
    let url = Url::parse(raw).with_context(|| format!("--base `{raw}` is not a URL"))?;
    if !matches!(url.scheme(), "http" | "https") {
        bail!("--base must be http:// or https://");
    }
    let host = url.host_str().unwrap_or_default();
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let loopback = host.eq_ignore_ascii_case("localhost")
        || bare.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback());
    if !loopback {
        bail!("--base `{raw}`: only a server on this machine (127.0.0.0/8, ::1, localhost) may be driven");
    }
    if url.path() != "/" || url.query().is_some() || url.fragment().is_some() {
        bail!("--base is the server's origin, like http://127.0.0.1:8080, without a path");
    }
    Ok(url)
}

fn number<T: std::str::FromStr>(flag: &str, raw: &str) -> anyhow::Result<T> {
    raw.parse()
        .map_err(|_| anyhow!("{flag}: `{raw}` is not a whole number"))
}

/// `500ms`, `30s`, `2m`, or a bare number of seconds.
pub fn duration(raw: &str) -> anyhow::Result<Duration> {
    let raw = raw.trim();
    let split = raw.find(|c: char| !c.is_ascii_digit()).unwrap_or(raw.len());
    let (digits, unit) = raw.split_at(split);
    let n: u64 = digits
        .parse()
        .map_err(|_| anyhow!("`{raw}` is not a duration like 30s"))?;
    Ok(match unit {
        "ms" => Duration::from_millis(n),
        "" | "s" => Duration::from_secs(n),
        "m" => Duration::from_secs(n.saturating_mul(60)),
        _ => bail!("`{raw}` is not a duration like 30s (units: ms, s, m)"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn accepts_only_loopback_targets() {
        for ok in [
            "http://127.0.0.1:8080",
            "http://127.1.2.3:1/",
            "http://localhost:18090",
            "http://LOCALHOST",
            "http://[::1]:8080",
            "https://127.0.0.1",
        ] {
            assert!(loopback_base(ok).is_ok(), "{ok}");
        }
        for bad in [
            "http://10.0.0.1:8080",
            "http://example.com",
            "http://localhost.example.com",
            "http://128.0.0.1",
            "http://[::2]:8080",
            "http://0.0.0.0:8080",
            "ftp://127.0.0.1",
            "http://127.0.0.1:8080/api",
            "127.0.0.1:8080",
        ] {
            assert!(loopback_base(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn parses_durations() {
        assert_eq!(duration("30s").unwrap(), Duration::from_secs(30));
        assert_eq!(duration("45").unwrap(), Duration::from_secs(45));
        assert_eq!(duration("2m").unwrap(), Duration::from_secs(120));
        assert_eq!(duration("250ms").unwrap(), Duration::from_millis(250));
        assert!(duration("1h").is_err());
        assert!(duration("s").is_err());
    }

    #[test]
    fn parses_the_accounts_scenario() {
        let Command::Accounts(o) = parse(&args(
            "accounts --base http://127.0.0.1:18090 --users 50 --duration 30s --forwarded-for --json",
        ))
        .unwrap() else {
            panic!("not the accounts scenario");
        };
        assert_eq!(o.users, 50);
        assert_eq!(o.duration, Duration::from_secs(30));
        assert!(o.forwarded_for && o.json);
        assert_eq!(o.base.as_str(), "http://127.0.0.1:18090/");
        assert_eq!(parse(&[]).unwrap(), Command::Help);
    }

    #[test]
    fn stays_within_the_limits_of_one_address() {
        let err = parse(&args("accounts --users 50")).unwrap_err().to_string();
        assert!(err.contains("--forwarded-for"), "{err}");
        assert!(parse(&args("accounts --users 30")).is_ok());
        assert!(parse(&args("accounts --users 1001 --forwarded-for")).is_err());
        assert!(parse(&args("accounts --duration 11m")).is_err());
        assert!(parse(&args("accounts --base http://192.168.0.1")).is_err());
    }
}
