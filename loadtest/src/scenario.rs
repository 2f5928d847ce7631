//! The `accounts` scenario: sign-up through the demo SMS flow, then session checks,
//! profile reads and repeated logins.

use std::net::Ipv4Addr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context};
use reqwest::header::{HeaderMap, HeaderValue, ORIGIN};
use reqwest::{Client, RequestBuilder, Url};
use serde::Deserialize;
use serde_json::json;
use tokio::task::JoinSet;

use crate::cli::Options;
use crate::stats::{Endpoint, Report, Stats};

const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// The whole sign-up phase; password hashing of many users at once is slow on purpose.
const SIGNUP_TIMEOUT: Duration = Duration::from_secs(120);

pub(crate) struct Run {
    pub(crate) base: Url,
    pub(crate) origin: HeaderValue,
    pub(crate) id: String,
    pub(crate) seed: u64,
    pub(crate) opts: Options,
}

impl Run {
    /// A run of `opts`, its id and seed fresh.
    pub(crate) fn new(opts: Options) -> anyhow::Result<Self> {
        let seed = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0)
            ^ u64::from(std::process::id()).rotate_left(32);
        Ok(Self {
            origin: HeaderValue::from_str(&opts.base.origin().ascii_serialization())?,
            base: opts.base.clone(),
            id: base36(seed % 36u64.pow(6), 6),
            seed,
            opts,
        })
    }
}

/// One virtual user: its own client, so its own cookie store and connections.
pub(crate) struct User {
    pub(crate) client: Client,
    pub(crate) username: String,
    pub(crate) password: String,
    login_budget: Arc<AtomicU32>,
}

#[derive(Deserialize)]
struct OutboxEntry {
    code: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct LoginState {
    logged_in: bool,
}

#[derive(Deserialize)]
struct Profile {
    username: String,
}

#[derive(Deserialize)]
struct AppConfig {
    demo: bool,
}

#[derive(Deserialize)]
struct ErrorBody {
    code: Option<String>,
}

pub async fn run(opts: Options) -> anyhow::Result<Report> {
    let run = Arc::new(Run::new(opts)?);
    preflight(&run).await?;

    // A login budget per client address: one shared, or one per user behind --forwarded-for.
    let shared_budget = Arc::new(AtomicU32::new(run.opts.login_budget));
    let started = Instant::now();
    let mut signups = JoinSet::new();
    for n in 0..run.opts.users {
        let budget = if run.opts.forwarded_for {
            Arc::new(AtomicU32::new(run.opts.login_budget))
        } else {
            shared_budget.clone()
        };
        signups.spawn(tokio::time::timeout(
            SIGNUP_TIMEOUT,
            sign_up(run.clone(), n, budget),
        ));
    }
    let mut stats = Stats::default();
    let mut users = Vec::new();
    let mut failures = Vec::new();
    while let Some(joined) = signups.join_next().await {
        match joined.context("a sign-up task failed")? {
            Ok((user, s)) => {
                stats.merge(s);
                match user {
                    Ok(user) => users.push(user),
                    Err(e) => failures.push(format!("{e:#}")),
                }
            }
            Err(_) => failures.push("the sign-up did not finish in time".to_owned()),
        }
    }
    let signup_time = started.elapsed();
    if users.is_empty() {
        let first = failures.first().map(String::as_str).unwrap_or("no users");
        bail!("no user could sign up; the first failure: {first}");
    }
    if let Some(first) = failures.first() {
        eprintln!(
            "loadtest: {} of {} users could not sign up; the first failure: {first}",
            failures.len(),
            run.opts.users
        );
    }

    let signed_up = users.len();
    let loop_start = Instant::now();
    let deadline = loop_start + run.opts.duration;
    let mut loops = JoinSet::new();
    for user in users {
        loops.spawn(user_loop(run.clone(), user, deadline));
    }
    while let Some(joined) = loops.join_next().await {
        stats.merge(joined.context("a user task failed")?);
    }
    let loop_time = loop_start.elapsed();

    let endpoints = stats.summarise(signup_time, loop_time);
    Ok(Report {
        base: run.base.origin().ascii_serialization(),
        users: run.opts.users,
        users_signed_up: signed_up,
        forwarded_for: run.opts.forwarded_for,
        generator_threads: run.opts.threads,
        signup_seconds: signup_time.as_secs_f64(),
        loop_seconds: loop_time.as_secs_f64(),
        requests: endpoints.iter().map(|e| e.count).sum(),
        errors: endpoints.iter().map(|e| e.errors).sum(),
        endpoints,
    })
}

pub(crate) fn client(forwarded_for: Option<Ipv4Addr>) -> anyhow::Result<Client> {
    let mut headers = HeaderMap::new();
    if let Some(ip) = forwarded_for {
        headers.insert("x-forwarded-for", HeaderValue::from_str(&ip.to_string())?);
    }
    // No proxy and no redirects: every request must reach the loopback server named.
    Client::builder()
        .cookie_store(true)
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(REQUEST_TIMEOUT)
        .default_headers(headers)
        .build()
        .context("building the HTTP client")
}

/// Refuses to start unless the server answers and runs the demo providers.
pub(crate) async fn preflight(run: &Run) -> anyhow::Result<()> {
    let client = client(None)?;
    let ready = client
        .get(run.base.join("/readyz")?)
        .send()
        .await
        .with_context(|| {
            format!(
                "nothing answers at {}; start the server first (cargo run --bin telepathy)",
                run.base
            )
        })?;
    if !ready.status().is_success() {
        bail!(
            "{} answers /readyz with {}: the server is not ready",
            run.base,
            ready.status()
        );
    }
    let config: AppConfig = client
        .get(run.base.join("/api/app-config")?)
        .send()
        .await?
        .error_for_status()?
        .json()
        .await
        .context("reading /api/app-config")?;
    if !config.demo {
        bail!("the server is not in demo mode: sign-up reads codes from the demo SMS outbox (TELEPATHY_DEMO=true)");
    }
    Ok(())
}

/// Sends one request, records it, and returns the body of a success.
async fn call(stats: &mut Stats, endpoint: Endpoint, request: RequestBuilder) -> Option<Vec<u8>> {
    let start = Instant::now();
    let result = match request.send().await {
        Ok(response) => {
            let status = response.status();
            match response.bytes().await {
                Ok(body) if status.is_success() => Ok(body.to_vec()),
                Ok(body) => {
                    let code = serde_json::from_slice::<ErrorBody>(&body)
                        .ok()
                        .and_then(|b| b.code)
                        .unwrap_or_default();
                    Err(format!("HTTP {} {code}", status.as_u16()).trim().to_owned())
                }
                Err(e) => Err(transport_error(&e)),
            }
        }
        Err(e) => Err(transport_error(&e)),
    };
    let elapsed = start.elapsed();
    match result {
        Ok(body) => {
            stats.record(endpoint, elapsed, None);
            Some(body)
        }
        Err(kind) => {
            stats.record(endpoint, elapsed, Some(kind));
            None
        }
    }
}

fn transport_error(e: &reqwest::Error) -> String {
    if e.is_timeout() {
        "timeout".into()
    } else if e.is_connect() {
        "connection failed".into()
    } else {
        "transport error".into()
    }
}

/// Counts a success whose body is not what the API promises as an error.
fn wrong_body(stats: &mut Stats, endpoint: Endpoint, what: &str) {
    stats.fail_last(endpoint, what.to_owned());
}

pub(crate) async fn sign_up(
    run: Arc<Run>,
    n: usize,
    login_budget: Arc<AtomicU32>,
) -> (anyhow::Result<User>, Stats) {
    let mut stats = Stats::default();
    let user = sign_up_steps(&run, n, login_budget, &mut stats).await;
    (user, stats)
}

async fn sign_up_steps(
    run: &Run,
    n: usize,
    login_budget: Arc<AtomicU32>,
    stats: &mut Stats,
) -> anyhow::Result<User> {
    // Addresses of 198.18.0.0/15, the range set aside for benchmarks (RFC 2544), offset per
    // run so that a rerun does not meet the limits counted for the previous one.
    let forwarded = run.opts.forwarded_for.then(|| {
        let offset = ((run.seed >> 8) as u32).wrapping_add(n as u32) % (1 << 17);
        Ipv4Addr::from(u32::from(Ipv4Addr::new(198, 18, 0, 0)) + offset)
    });
    let client = client(forwarded)?;
    let username = format!("lt_{}_{n}", run.id);
    let password = format!("lt{}pw9", run.id);
    let phone = format!(
        "010{:08}",
        (run.seed % (100_000_000 - crate::cli::MAX_USERS as u64)) + n as u64
    );
    let post = |path: &str| -> anyhow::Result<RequestBuilder> {
        Ok(client
            .post(run.base.join(path)?)
            .header(ORIGIN, run.origin.clone()))
    };

    let sent = call(
        stats,
        Endpoint::SendCode,
        post("/api/verify-mvp/send")?.json(&json!({ "phone": phone })),
    )
    .await;
    if sent.is_none() {
        bail!("{username}: the code could not be sent to {phone}");
    }

    // The outbox is filled as the send answers; a few tries cover a node that has not got it.
    // It answers only this machine, so it is read without the forwarded address.
    let outbox = if forwarded.is_some() {
        self::client(None)?
    } else {
        client.clone()
    };
    let mut code = None;
    for _ in 0..5 {
        let url = run.base.join("/api/dev/sms-outbox")?;
        let request = outbox.get(url).query(&[("phone", &phone)]);
        if let Some(body) = call(stats, Endpoint::Outbox, request).await {
            match serde_json::from_slice::<OutboxEntry>(&body) {
                Ok(entry) => {
                    code = Some(entry.code);
                    break;
                }
                Err(_) => wrong_body(stats, Endpoint::Outbox, "no code in the answer"),
            }
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let Some(code) = code else {
        bail!("{username}: the demo outbox holds no code for {phone}");
    };

    call(
        stats,
        Endpoint::CheckCode,
        post("/api/verify-mvp/check")?.json(&json!({ "phone": phone, "code": code })),
    )
    .await
    .with_context(|| format!("{username}: the code was refused"))?;

    call(
        stats,
        Endpoint::Register,
        post("/api/register")?.json(&json!({
            "username": username,
            "password": password,
            "phone": phone,
            "gender": "여성",
            "birthdate": "2000-01-01",
            "service": true,
            "privacy": true,
            "youth": true,
        })),
    )
    .await
    .with_context(|| format!("{username}: registration was refused"))?;

    Ok(User {
        client,
        username,
        password,
        login_budget,
    })
}

async fn user_loop(run: Arc<Run>, user: User, deadline: Instant) -> Stats {
    let mut stats = Stats::default();
    let mut iteration: u64 = 0;
    while Instant::now() < deadline {
        iteration += 1;
        if let Err(e) = iterate(&run, &user, iteration, &mut stats).await {
            // Only a URL join can fail here, and it fails for every iteration alike.
            eprintln!("loadtest: {}: {e:#}", user.username);
            break;
        }
        if !run.opts.think.is_zero() {
            tokio::time::sleep(run.opts.think).await;
        }
    }
    stats
}

async fn iterate(run: &Run, user: &User, iteration: u64, stats: &mut Stats) -> anyhow::Result<()> {
    let check = user.client.get(run.base.join("/api/auth/check")?);
    if let Some(body) = call(stats, Endpoint::AuthCheck, check).await {
        let logged_in = serde_json::from_slice::<LoginState>(&body).is_ok_and(|s| s.logged_in);
        if !logged_in {
            wrong_body(stats, Endpoint::AuthCheck, "session not recognised");
        }
    }

    let profile = user.client.get(run.base.join("/api/nickname/profile")?);
    if let Some(body) = call(stats, Endpoint::Profile, profile).await {
        let same =
            serde_json::from_slice::<Profile>(&body).is_ok_and(|p| p.username == user.username);
        if !same {
            wrong_body(stats, Endpoint::Profile, "profile of another user");
        }
    }

    if run.opts.login_every > 0 && iteration.is_multiple_of(run.opts.login_every) {
        let spent = user
            .login_budget
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                left.checked_sub(1)
            })
            .is_err();
        if spent {
            stats.skip(Endpoint::Login);
        } else {
            let login = user
                .client
                .post(run.base.join("/api/auth/login")?)
                .header(ORIGIN, run.origin.clone())
                .json(&json!({ "username": user.username, "password": user.password }));
            call(stats, Endpoint::Login, login).await;
        }
    }
    Ok(())
}

fn base36(mut n: u64, width: usize) -> String {
    const DIGITS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = vec![b'0'; width];
    for slot in out.iter_mut().rev() {
        *slot = DIGITS[(n % 36) as usize];
        n /= 36;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usernames_fit_the_rule() {
        let id = base36(36u64.pow(6) - 1, 6);
        assert_eq!(id, "zzzzzz");
        let longest = format!("lt_{id}_{}", crate::cli::MAX_USERS - 1);
        assert!(longest.len() <= 20, "{longest}");
        assert!(longest
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'));
    }
}
