//! Command-line arguments, and the rule that the target is this machine.

use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{anyhow, bail, Context};
use reqwest::Url;

pub const USAGE: &str = "\
usage: loadtest SCENARIO [options]      (README.md describes every scenario and field)

scenarios:
  accounts      sign-up through the demo SMS flow, then session checks, profile reads and
                logins over HTTP
  connections   open --users WebSockets, wait for every `hello`, hold them --hold, check
                that the pushed onlineCount converges to the number of users
  match-storm   connect, then every user sends join_match at once; check the pairs
  chat-relay    match (paced joins), then each pair chats --messages at --rate; check
                every message reaches the partner once; then half the users leave
  round-poll    GET /api/match/current-round and /api/server-time in a closed loop
  login-storm   sign up --probes users, then --storm logins from as many client addresses,
                --concurrency at once, while the probe users log in from their own browser
                and from new ones; reports how long the probes' logins took

accounts options:
  --base URL            server to drive; loopback only (default http://127.0.0.1:8080)
  --users N             virtual users, 1..=1000 (default 20)
  --duration D          length of the loop phase, e.g. 30s, 2m, 500ms; at most 10m (default 30s)
  --think D             pause between iterations of one user (default 0)
  --login-every N       log in again every N-th iteration; 0 never (default 10)
  --login-budget N      logins per client address per run (default 50, the server's limit
                        per 10 minutes); further logins are skipped and counted
  --forwarded-for       give each user its own client address in X-Forwarded-For, as a load
                        balancer would; the server must run with TELEPATHY_TRUSTED_PROXIES=1

WebSocket scenario options (connections, match-storm, chat-relay):
  --urls URL,URL...     nodes, loopback only; user i goes to urls[i % n]
                        (default http://127.0.0.1:8080; --base is the same with one url)
  --sessions FILE       sessions written by `telepathy seed` (required)
  --users N             virtual users, 1..=120000 (default 100)
  --skip K              start at the K-th session of the file (default 0), so that
                        consecutive runs can use different users
  --origin URL          Origin header of every socket (default: the url it goes to)
  --source-addrs N      spread sockets over client addresses 127.0.0.2 .. 127.0.0.(N+1),
                        1..=250 (default: enough for the ephemeral ports of each address)
  --source-offset K     start at 127.0.0.(K+2) instead, so that generators run side by side
                        use addresses of their own (default 0)
  --connect-concurrency C   handshakes in flight at once (default 200)
  --hold D              connections: how long to hold the sockets (default 10s)
  --online-total N      connections: the count every user must be told (default: this
                        run's sockets): the sockets of every generator run side by side;
                        the hold starts once every user here has been told it
  --linger D            connections: keep the sockets open this long after the checks, so
                        that generators side by side check while the others still hold
  --min-remaining D     match-storm, chat-relay: seconds the round must still have before
                        the joins, else wait for the next round (default 8s)
  --match-timeout D     longest wait for `matched` after the joins (default 15s)
  --join-rate J         joins per second; 0 sends all at once, a storm (default 0 for
                        match-storm, 2000 for chat-relay)
  --seed S              seed of the shuffled join order (default 1)
  --messages M          chat-relay: messages each matched user sends (default 20)
  --rate R              chat-relay: messages per second per user, up to 100 (default 2)
  --typing              chat-relay: typing before and stopTyping after each message
  --long                chat-relay: messages of ~900 characters (the limit is 1000)
  --drain D             chat-relay: longest wait for deliveries after the last send (default 10s)

login-storm options (the server must run with TELEPATHY_TRUSTED_PROXIES=1 and demo mode):
  --base URL            server to drive; loopback only (default http://127.0.0.1:8080)
  --storm N             logins of the storm, each from its own address, 1..=20000 (default 1500)
  --concurrency C       storm logins in flight, 1..=1000 (default 128)
  --probes N            users who log in during the storm, 2..=200 (default 20)
  --victims K           storm with wrong passwords for K users signed up for it, 1..=200,
                        instead of usernames nobody has (default 0: unknown usernames)
  --probe-every D       pause between two probe logins (default 100ms)
  --min-probes N        logins of each kind at least, storm or not (default 2); each probe
                        user logs in at most 8 times

round-poll options:
  --urls URL,URL...     as above
  --duration D          length of the loop (default 10s, at most 10m)
  --concurrency C       requests in flight, each worker on its own keep-alive connection,
                        1..=1000 (default 16)

every scenario:
  --pids NAME=PID,...   server processes to sample (CPU from /proc/PID/stat, VmRSS and VmHWM
                        from /proc/PID/status) at each phase mark; a bare PID names itself
  --threads N           threads of the load generator (default 1, so that it leaves the other
                        cores to a server on the same machine)
  --json                print the report as one JSON object instead of a table

The exit status is 1 when a correctness check fails (see the report's `failures`), 2 on a
usage error.";

/// The most users one run may create.
pub const MAX_USERS: usize = 1000;
/// The most sockets one WebSocket run may open.
pub const MAX_WS_USERS: usize = 120_000;
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
    Ws(WsOptions),
    RoundPoll(PollOptions),
    LoginStorm(StormOptions),
}

/// Options of `login-storm`.
#[derive(Debug, Clone, PartialEq)]
pub struct StormOptions {
    pub base: Url,
    pub storm: usize,
    pub concurrency: usize,
    pub probes: usize,
    pub victims: usize,
    pub probe_every: Duration,
    pub min_probes: usize,
    pub threads: usize,
    pub json: bool,
}

/// Options of the `accounts` scenario.
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WsScenario {
    Connections,
    MatchStorm,
    ChatRelay,
}

impl WsScenario {
    pub fn name(self) -> &'static str {
        match self {
            Self::Connections => "connections",
            Self::MatchStorm => "match-storm",
            Self::ChatRelay => "chat-relay",
        }
    }
}

/// A server process to sample.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pid {
    pub name: String,
    pub pid: u32,
}

/// Options of the WebSocket scenarios.
#[derive(Debug, Clone, PartialEq)]
pub struct WsOptions {
    pub scenario: WsScenario,
    pub urls: Vec<Url>,
    pub sessions: PathBuf,
    pub users: usize,
    pub skip: usize,
    pub origin: Option<String>,
    /// `None`: as many as the user count needs.
    pub source_addrs: Option<usize>,
    /// The first source address is 127.0.0.(2 + this).
    pub source_offset: usize,
    pub connect_concurrency: usize,
    pub hold: Duration,
    /// The online count every user must see; `None`: this run's live sockets.
    pub online_total: Option<usize>,
    pub linger: Duration,
    pub min_remaining: Duration,
    pub match_timeout: Duration,
    /// Joins per second; 0 is a storm.
    pub join_rate: u32,
    pub seed: u64,
    pub messages: u32,
    pub rate: f64,
    pub typing: bool,
    pub long: bool,
    pub drain: Duration,
    pub pids: Vec<Pid>,
    pub threads: usize,
    pub json: bool,
}

/// Options of `round-poll`.
#[derive(Debug, Clone, PartialEq)]
pub struct PollOptions {
    pub urls: Vec<Url>,
    pub duration: Duration,
    pub concurrency: usize,
    pub pids: Vec<Pid>,
    pub threads: usize,
    pub json: bool,
}

pub fn parse(args: &[String]) -> anyhow::Result<Command> {
    let Some(first) = args.first() else {
        return Ok(Command::Help);
    };
    let rest = &args[1..];
    if rest.iter().any(|a| a == "-h" || a == "--help") {
        return Ok(Command::Help);
    }
    match first.as_str() {
        "-h" | "--help" | "help" => Ok(Command::Help),
        "accounts" => parse_accounts(rest).map(Command::Accounts),
        "connections" => parse_ws(WsScenario::Connections, rest).map(Command::Ws),
        "match-storm" => parse_ws(WsScenario::MatchStorm, rest).map(Command::Ws),
        "chat-relay" => parse_ws(WsScenario::ChatRelay, rest).map(Command::Ws),
        "round-poll" => parse_poll(rest).map(Command::RoundPoll),
        "login-storm" => parse_storm(rest).map(Command::LoginStorm),
        other => bail!("unknown scenario `{other}`"),
    }
}

/// Walks `flag value` pairs and bare flags, handing each to `apply`.
fn each_flag(
    args: &[String],
    bare: &[&str],
    mut apply: impl FnMut(&str, &str) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        if bare.contains(&flag.as_str()) {
            apply(flag, "")?;
            continue;
        }
        if !flag.starts_with("--") {
            bail!("unexpected argument `{flag}`");
        }
        let value = it
            .next()
            .ok_or_else(|| anyhow!("{flag} needs a value (or is unknown)"))?;
        apply(flag, value)?;
    }
    Ok(())
}

fn parse_accounts(args: &[String]) -> anyhow::Result<Options> {
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
    each_flag(args, &["--forwarded-for", "--json"], |flag, value| {
        match flag {
            "--base" => o.base = loopback_base(value)?,
            "--users" => o.users = number(flag, value)?,
            "--duration" => o.duration = duration(value)?,
            "--think" => o.think = duration(value)?,
            "--login-every" => o.login_every = number(flag, value)?,
            "--login-budget" => o.login_budget = number(flag, value)?,
            "--threads" => o.threads = number(flag, value)?,
            "--forwarded-for" => o.forwarded_for = true,
            "--json" => o.json = true,
            other => bail!("unknown option `{other}`"),
        }
        Ok(())
    })?;
    if !(1..=MAX_USERS).contains(&o.users) {
        bail!("--users must be between 1 and {MAX_USERS}");
    }
    if o.duration.is_zero() || o.duration > MAX_DURATION {
        bail!("--duration must be more than 0 and at most 10m");
    }
    check_threads(o.threads)?;
    if !o.forwarded_for && o.users > SMS_PER_ADDRESS {
        bail!(
            "the server sends at most {SMS_PER_ADDRESS} SMS codes a day to one client address, so \
             --users {} cannot all sign up from this one address. Use --users {SMS_PER_ADDRESS} or \
             fewer, or start the server with TELEPATHY_TRUSTED_PROXIES=1 and pass --forwarded-for \
             to give each user its own address.",
            o.users
        );
    }
    Ok(o)
}

fn parse_ws(scenario: WsScenario, args: &[String]) -> anyhow::Result<WsOptions> {
    let mut o = WsOptions {
        scenario,
        urls: vec![loopback_base("http://127.0.0.1:8080")?],
        sessions: PathBuf::new(),
        users: 100,
        skip: 0,
        origin: None,
        source_addrs: None,
        source_offset: 0,
        connect_concurrency: 200,
        hold: Duration::from_secs(10),
        online_total: None,
        linger: Duration::ZERO,
        min_remaining: Duration::from_secs(8),
        match_timeout: Duration::from_secs(15),
        join_rate: if scenario == WsScenario::ChatRelay {
            2000
        } else {
            0
        },
        seed: 1,
        messages: 20,
        rate: 2.0,
        typing: false,
        long: false,
        drain: Duration::from_secs(10),
        pids: Vec::new(),
        threads: 1,
        json: false,
    };
    let mut sessions = None;
    each_flag(args, &["--typing", "--long", "--json"], |flag, value| {
        match flag {
            "--urls" | "--base" => o.urls = urls(flag, value)?,
            "--sessions" => sessions = Some(PathBuf::from(value)),
            "--users" => o.users = number(flag, value)?,
            "--skip" => o.skip = number(flag, value)?,
            "--origin" => {
                let origin = value.trim_end_matches('/');
                if !(origin.starts_with("http://") || origin.starts_with("https://")) {
                    bail!("--origin `{value}` is not an origin like http://127.0.0.1:8080");
                }
                o.origin = Some(origin.to_owned());
            }
            "--source-addrs" => o.source_addrs = Some(number(flag, value)?),
            "--source-offset" => o.source_offset = number(flag, value)?,
            "--online-total" => o.online_total = Some(number(flag, value)?),
            "--linger" => o.linger = duration(value)?,
            "--connect-concurrency" => o.connect_concurrency = number(flag, value)?,
            "--hold" => o.hold = duration(value)?,
            "--min-remaining" => o.min_remaining = duration(value)?,
            "--match-timeout" => o.match_timeout = duration(value)?,
            "--join-rate" => o.join_rate = number(flag, value)?,
            "--seed" => o.seed = number(flag, value)?,
            "--messages" => o.messages = number(flag, value)?,
            "--rate" => {
                o.rate = value
                    .parse()
                    .map_err(|_| anyhow!("--rate: `{value}` is not a number"))?
            }
            "--typing" => o.typing = true,
            "--long" => o.long = true,
            "--drain" => o.drain = duration(value)?,
            "--pids" => o.pids = pids(value)?,
            "--threads" => o.threads = number(flag, value)?,
            "--json" => o.json = true,
            other => bail!("unknown option `{other}`"),
        }
        Ok(())
    })?;
    o.sessions = sessions.ok_or_else(|| {
        anyhow!(
            "--sessions FILE is required (write one with `telepathy seed --users N --out FILE`)"
        )
    })?;
    if !(1..=MAX_WS_USERS).contains(&o.users) {
        bail!("--users must be between 1 and {MAX_WS_USERS}");
    }
    if let Some(n) = o.source_addrs {
        if !(1..=250).contains(&n) {
            bail!("--source-addrs must be between 1 and 250");
        }
    }
    if !(1..=5000).contains(&o.connect_concurrency) {
        bail!("--connect-concurrency must be between 1 and 5000");
    }
    if o.hold > MAX_DURATION || o.linger > MAX_DURATION {
        bail!("--hold and --linger must be at most 10m");
    }
    if o.source_offset + o.source_addrs.unwrap_or(1) > 250 {
        bail!("--source-offset and --source-addrs together must stay within 250 addresses");
    }
    if o.min_remaining > Duration::from_secs(27) {
        bail!("--min-remaining must be at most 27s (a round lasts 30 s)");
    }
    if o.match_timeout.is_zero() || o.match_timeout > Duration::from_secs(60) {
        bail!("--match-timeout must be more than 0 and at most 60s");
    }
    if o.join_rate > 1_000_000 {
        bail!("--join-rate must be at most 1000000 (0 sends all joins at once)");
    }
    if o.messages > 10_000 {
        bail!("--messages must be at most 10000");
    }
    if !(o.rate > 0.0 && o.rate <= 100.0) {
        bail!("--rate must be more than 0 and at most 100 per second");
    }
    if f64::from(o.messages) / o.rate > MAX_DURATION.as_secs_f64() {
        bail!("--messages / --rate must be at most 10 minutes of sending");
    }
    if o.drain > Duration::from_secs(60) {
        bail!("--drain must be at most 60s");
    }
    check_threads(o.threads)?;
    Ok(o)
}

fn parse_poll(args: &[String]) -> anyhow::Result<PollOptions> {
    let mut o = PollOptions {
        urls: vec![loopback_base("http://127.0.0.1:8080")?],
        duration: Duration::from_secs(10),
        concurrency: 16,
        pids: Vec::new(),
        threads: 1,
        json: false,
    };
    each_flag(args, &["--json"], |flag, value| {
        match flag {
            "--urls" | "--base" => o.urls = urls(flag, value)?,
            "--duration" => o.duration = duration(value)?,
            "--concurrency" => o.concurrency = number(flag, value)?,
            "--pids" => o.pids = pids(value)?,
            "--threads" => o.threads = number(flag, value)?,
            "--json" => o.json = true,
            other => bail!("unknown option `{other}`"),
        }
        Ok(())
    })?;
    if o.duration.is_zero() || o.duration > MAX_DURATION {
        bail!("--duration must be more than 0 and at most 10m");
    }
    if !(1..=1000).contains(&o.concurrency) {
        bail!("--concurrency must be between 1 and 1000");
    }
    check_threads(o.threads)?;
    Ok(o)
}

fn parse_storm(args: &[String]) -> anyhow::Result<StormOptions> {
    let mut o = StormOptions {
        base: loopback_base("http://127.0.0.1:8080")?,
        storm: 1500,
        concurrency: 128,
        probes: 20,
        victims: 0,
        probe_every: Duration::from_millis(100),
        min_probes: 2,
        threads: 1,
        json: false,
    };
    each_flag(args, &["--json"], |flag, value| {
        match flag {
            "--base" => o.base = loopback_base(value)?,
            "--storm" => o.storm = number(flag, value)?,
            "--concurrency" => o.concurrency = number(flag, value)?,
            "--probes" => o.probes = number(flag, value)?,
            "--victims" => o.victims = number(flag, value)?,
            "--probe-every" => o.probe_every = duration(value)?,
            "--min-probes" => o.min_probes = number(flag, value)?,
            "--threads" => o.threads = number(flag, value)?,
            "--json" => o.json = true,
            other => bail!("unknown option `{other}`"),
        }
        Ok(())
    })?;
    if !(1..=20_000).contains(&o.storm) {
        bail!("--storm must be between 1 and 20000");
    }
    if !(1..=1000).contains(&o.concurrency) {
        bail!("--concurrency must be between 1 and 1000");
    }
    if !(2..=200).contains(&o.probes) {
        bail!("--probes must be between 2 and 200");
    }
    if o.victims > 200 {
        bail!("--victims must be at most 200");
    }
    check_threads(o.threads)?;
    Ok(o)
}

fn check_threads(threads: usize) -> anyhow::Result<()> {
    if !(1..=64).contains(&threads) {
        bail!("--threads must be between 1 and 64");
    }
    Ok(())
}

/// `http://127.0.0.1:8081,http://127.0.0.1:8082`: each on this machine.
fn urls(flag: &str, raw: &str) -> anyhow::Result<Vec<Url>> {
    let list = raw
        .split(',')
        .map(str::trim)
        .filter(|u| !u.is_empty())
        .map(|u| loopback_url(flag, u.trim_end_matches('/')))
        .collect::<anyhow::Result<Vec<_>>>()?;
    if list.is_empty() {
        bail!("{flag} names no url");
    }
    if list.len() > 64 {
        bail!("{flag}: at most 64 urls");
    }
    Ok(list)
}

/// `node1=123,node2=456` or `123`.
fn pids(raw: &str) -> anyhow::Result<Vec<Pid>> {
    raw.split(',')
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .map(|entry| {
            let (name, pid) = entry.split_once('=').unwrap_or((entry, entry));
            let pid = pid
                .trim()
                .parse::<u32>()
                .map_err(|_| anyhow!("--pids: `{entry}` is not NAME=PID"))?;
            Ok(Pid {
                name: name.trim().to_owned(),
                pid,
            })
        })
        .collect()
}

/// Parses `raw` and refuses anything but a server on this machine: 127.0.0.0/8, ::1 or
/// localhost.
pub fn loopback_base(raw: &str) -> anyhow::Result<Url> {
    loopback_url("--base", raw)
}

fn loopback_url(flag: &str, raw: &str) -> anyhow::Result<Url> {
    let url = Url::parse(raw).with_context(|| format!("{flag} `{raw}` is not a URL"))?;
    if !matches!(url.scheme(), "http" | "https") {
        bail!("{flag} must be http:// or https://");
    }
    let host = url.host_str().unwrap_or_default();
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let loopback = host.eq_ignore_ascii_case("localhost")
        || bare.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback());
    if !loopback {
        bail!("{flag} `{raw}`: only a server on this machine (127.0.0.0/8, ::1, localhost) may be driven");
    }
    if url.path() != "/" || url.query().is_some() || url.fragment().is_some() {
        bail!("{flag} is the server's origin, like http://127.0.0.1:8080, without a path");
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
        assert_eq!(parse(&args("chat-relay --help")).unwrap(), Command::Help);
    }

    #[test]
    fn generators_side_by_side_take_their_own_addresses_and_share_a_total() {
        let Command::Ws(o) = parse(&args(
            "connections --sessions s.json --users 15000 --source-offset 12 --source-addrs 2 \
             --online-total 100000 --linger 20s",
        ))
        .unwrap() else {
            panic!("not a socket scenario");
        };
        assert_eq!((o.source_offset, o.source_addrs), (12, Some(2)));
        assert_eq!(o.online_total, Some(100_000));
        assert_eq!(o.linger, Duration::from_secs(20));
        assert!(parse(&args(
            "connections --sessions s --source-offset 249 --source-addrs 2"
        ))
        .is_err());
        assert!(parse(&args("connections --sessions s --linger 11m")).is_err());
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

    #[test]
    fn parses_the_websocket_scenarios() {
        let Command::Ws(o) = parse(&args(
            "chat-relay --urls http://127.0.0.1:8081,http://localhost:8082/ --sessions s.json \
             --users 3000 --skip 10 --messages 30 --rate 4 --typing --long --source-addrs 3 \
             --pids n1=11,22 --json",
        ))
        .unwrap() else {
            panic!("not a socket scenario");
        };
        assert_eq!(o.scenario, WsScenario::ChatRelay);
        assert_eq!(o.urls.len(), 2);
        assert_eq!(o.urls[1].as_str(), "http://localhost:8082/");
        assert_eq!((o.users, o.skip, o.messages), (3000, 10, 30));
        assert_eq!(o.rate, 4.0);
        assert_eq!(o.join_rate, 2000);
        assert!(o.typing && o.long && o.json);
        assert_eq!(o.source_addrs, Some(3));
        assert_eq!(
            o.pids,
            [
                Pid {
                    name: "n1".into(),
                    pid: 11
                },
                Pid {
                    name: "22".into(),
                    pid: 22
                }
            ]
        );
        let Command::Ws(storm) = parse(&args("match-storm --sessions s.json")).unwrap() else {
            panic!("not a socket scenario");
        };
        assert_eq!(storm.join_rate, 0);
        assert_eq!(storm.urls[0].as_str(), "http://127.0.0.1:8080/");
    }

    #[test]
    fn bounds_the_websocket_scenarios() {
        for bad in [
            "connections",
            "connections --sessions s --users 120001",
            "connections --sessions s --users 0",
            "connections --sessions s --hold 11m",
            "connections --sessions s --urls http://10.1.1.1:80",
            "connections --sessions s --urls http://127.0.0.1:80,http://example.com",
            "connections --sessions s --source-addrs 0",
            "chat-relay --sessions s --rate 0",
            "chat-relay --sessions s --messages 1000 --rate 1",
            "chat-relay --sessions s --pids x=y",
            "match-storm --sessions s --min-remaining 28s",
            "round-poll --concurrency 0",
            "round-poll --duration 11m",
            "round-poll --urls http://192.168.1.1:1",
            "connections --sessions s --bogus 1",
        ] {
            assert!(parse(&args(bad)).is_err(), "{bad}");
        }
        assert!(parse(&args("connections --sessions s --users 120000")).is_ok());
        let Command::RoundPoll(p) =
            parse(&args("round-poll --duration 2s --concurrency 4")).unwrap()
        else {
            panic!("not round-poll");
        };
        assert_eq!((p.duration, p.concurrency), (Duration::from_secs(2), 4));
    }
}
