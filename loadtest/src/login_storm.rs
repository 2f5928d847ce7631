//! The `login-storm` scenario: a storm of logins from many client addresses (usernames
//! nobody has, or wrong passwords for users signed up for it), and, while it lasts, the
//! logins of other users: from the browser they signed up on (it holds their device
//! cookie) and from new browsers on new addresses. What it measures is how long those
//! users wait for their login while the storm is on; it checks that every login from a
//! user's own browser succeeds.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::net::Ipv4Addr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use reqwest::header::ORIGIN;
use reqwest::Client;
use serde::Serialize;
use serde_json::json;
use tokio::task::JoinSet;

use crate::cli::{Options, StormOptions};
use crate::latency::Summary;
use crate::scenario::{self, Run, User};

/// Where the storm's addresses start in 198.18.0.0/15, past the sign-ups' (one per user).
const STORM_OFFSET: u32 = 1_000;
/// Where the new browsers' addresses start, past the storm's.
const NEW_BROWSER_OFFSET: u32 = STORM_OFFSET + 20_000;
/// Logins of one probe user in the run: below the server's 10 a window per account, with
/// the sign-up's session beside them.
const LOGINS_PER_PROBE_USER: usize = 8;

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub base: String,
    pub storm: usize,
    pub concurrency: usize,
    /// What the storm was made of: `unknown usernames` or `wrong passwords of N users`.
    pub storm_kind: String,
    pub storm_seconds: f64,
    /// The storm's answers, by status (or transport failure).
    pub storm_answers: BTreeMap<String, usize>,
    /// Logins of users from the browser they signed up on, during the storm.
    pub own_browser: Probes,
    /// Logins of users from new browsers on new addresses, during the storm.
    pub new_browser: Probes,
    pub failures: Vec<String>,
    pub ok: bool,
}

#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Probes {
    pub latency_ms: Summary,
    pub answers: BTreeMap<String, usize>,
}

impl Report {
    pub fn table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "login-storm against {}: {} logins ({}), {} at once, in {:.2} s",
            self.base, self.storm, self.storm_kind, self.concurrency, self.storm_seconds
        );
        let _ = writeln!(out, "  storm answers: {:?}", self.storm_answers);
        for (name, p) in [
            ("own browser", &self.own_browser),
            ("new browser", &self.new_browser),
        ] {
            let l = &p.latency_ms;
            let _ = writeln!(
                out,
                "  {name:<12} n={:<4} p50={:>8.2} ms  p99={:>8.2} ms  max={:>8.2} ms  {:?}",
                l.n, l.p50, l.p99, l.max, p.answers
            );
        }
        for f in &self.failures {
            let _ = writeln!(out, "  FAILED: {f}");
        }
        let _ = writeln!(out, "  {}", if self.ok { "ok" } else { "FAILED" });
        out
    }
}

/// The address `offset` of the run's share of 198.18.0.0/15 (RFC 2544's benchmarking range).
fn address(run: &Run, offset: u32) -> Ipv4Addr {
    let at = ((run.seed >> 8) as u32).wrapping_add(offset) % (1 << 17);
    Ipv4Addr::from(u32::from(Ipv4Addr::new(198, 18, 0, 0)) + at)
}

/// One login: its status as text ("200", "401 LOGIN_FAILED", "timeout") and how long it took.
async fn login(run: &Run, client: &Client, username: &str, password: &str) -> (String, Duration) {
    let started = Instant::now();
    let url = match run.base.join("/api/auth/login") {
        Ok(url) => url,
        Err(e) => return (format!("bad url: {e}"), started.elapsed()),
    };
    let sent = client
        .post(url)
        .header(ORIGIN, run.origin.clone())
        .json(&json!({ "username": username, "password": password }))
        .send()
        .await;
    let answer = match sent {
        Ok(response) => {
            let status = response.status().as_u16();
            let body: serde_json::Value = response.json().await.unwrap_or_default();
            match body["code"].as_str() {
                Some(code) if status != 200 => format!("{status} {code}"),
                _ => status.to_string(),
            }
        }
        Err(e) if e.is_timeout() => "timeout".to_owned(),
        Err(_) => "transport error".to_owned(),
    };
    (answer, started.elapsed())
}

/// Signs up `n` users from users `from..from + n` of the run, each from its own address.
async fn sign_up(run: &Arc<Run>, from: usize, n: usize) -> anyhow::Result<Vec<User>> {
    let mut signups = JoinSet::new();
    for i in from..from + n {
        let budget = Arc::new(std::sync::atomic::AtomicU32::new(0));
        signups.spawn(scenario::sign_up(Arc::clone(run), i, budget));
    }
    let mut users = Vec::new();
    while let Some(joined) = signups.join_next().await {
        let (user, _) = joined.context("a sign-up task failed")?;
        users.push(user?);
    }
    Ok(users)
}

pub async fn run(opts: StormOptions) -> anyhow::Result<Report> {
    let run = Arc::new(Run::new(Options {
        base: opts.base.clone(),
        users: opts.probes + opts.victims,
        duration: Duration::from_secs(1),
        think: Duration::ZERO,
        login_every: 0,
        login_budget: 0,
        forwarded_for: true,
        threads: opts.threads,
        json: opts.json,
    })?);
    scenario::preflight(&run).await?;
    let probes = sign_up(&run, 0, opts.probes).await?;
    let victims = sign_up(&run, opts.probes, opts.victims).await?;
    if probes.len() < 2 {
        bail!("too few probe users signed up");
    }

    let storming = Arc::new(AtomicBool::new(true));
    let next = Arc::new(AtomicUsize::new(0));
    let victims: Arc<Vec<String>> = Arc::new(victims.into_iter().map(|u| u.username).collect());
    let started = Instant::now();
    let mut storm = JoinSet::new();
    for _ in 0..opts.concurrency {
        let (run, next, victims) = (Arc::clone(&run), Arc::clone(&next), Arc::clone(&victims));
        let total = opts.storm;
        storm.spawn(async move {
            let mut answers: BTreeMap<String, usize> = BTreeMap::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= total {
                    return answers;
                }
                let Ok(client) = scenario::client(Some(address(&run, STORM_OFFSET + i as u32)))
                else {
                    *answers.entry("client error".to_owned()).or_default() += 1;
                    continue;
                };
                let username = if victims.is_empty() {
                    format!("ls_{}_{i}", run.id)
                } else {
                    victims[i % victims.len()].clone()
                };
                let (answer, _) = login(&run, &client, &username, "wrong-pass1").await;
                *answers.entry(answer).or_default() += 1;
            }
        });
    }

    // The probes: in turn one user's own browser and another's new one, until the storm
    // ends (and at least `--min-probes` of each).
    let prober = {
        let (run, storming) = (Arc::clone(&run), Arc::clone(&storming));
        let (every, min_probes) = (opts.probe_every, opts.min_probes);
        tokio::spawn(async move {
            let (mut own, mut new) = (Probes::default(), Probes::default());
            let (mut own_ms, mut new_ms) = (Vec::new(), Vec::new());
            let mut k = 0usize;
            let half = probes.len() / 2;
            while (storming.load(Ordering::Relaxed) || k < 2 * min_probes)
                && k / 2 < half * LOGINS_PER_PROBE_USER
            {
                let turn = k / 2;
                if k.is_multiple_of(2) {
                    let user = &probes[turn % half];
                    let (answer, took) =
                        login(&run, &user.client, &user.username, &user.password).await;
                    own_ms.push(took.as_micros() as i64);
                    *own.answers.entry(answer).or_default() += 1;
                } else {
                    let user = &probes[half + turn % (probes.len() - half)];
                    let fresh =
                        scenario::client(Some(address(&run, NEW_BROWSER_OFFSET + turn as u32)));
                    if let Ok(client) = fresh {
                        let (answer, took) =
                            login(&run, &client, &user.username, &user.password).await;
                        new_ms.push(took.as_micros() as i64);
                        *new.answers.entry(answer).or_default() += 1;
                    }
                }
                k += 1;
                tokio::time::sleep(every).await;
            }
            own.latency_ms = Summary::of_us(own_ms);
            new.latency_ms = Summary::of_us(new_ms);
            (own, new)
        })
    };

    let mut storm_answers: BTreeMap<String, usize> = BTreeMap::new();
    while let Some(joined) = storm.join_next().await {
        for (answer, n) in joined.context("a storm task failed")? {
            *storm_answers.entry(answer).or_default() += n;
        }
    }
    let storm_seconds = started.elapsed().as_secs_f64();
    storming.store(false, Ordering::Relaxed);
    let (own_browser, new_browser) = prober.await.context("the probe task failed")?;

    let mut failures = Vec::new();
    let refused: usize = own_browser
        .answers
        .iter()
        .filter(|(answer, _)| answer.as_str() != "200")
        .map(|(_, n)| n)
        .sum();
    if refused > 0 {
        failures.push(format!(
            "{refused} logins from a user's own browser did not succeed: {:?}",
            own_browser.answers
        ));
    }
    let new_failed: usize = new_browser
        .answers
        .iter()
        .filter(|(answer, _)| !matches!(answer.as_str(), "200" | "429 RATE_LIMITED"))
        .map(|(_, n)| n)
        .sum();
    if new_failed > 0 {
        failures.push(format!(
            "{new_failed} logins from a new browser failed otherwise than \"try again shortly\": {:?}",
            new_browser.answers
        ));
    }
    Ok(Report {
        base: run.base.origin().ascii_serialization(),
        storm: opts.storm,
        concurrency: opts.concurrency,
        storm_kind: if opts.victims == 0 {
            "unknown usernames".to_owned()
        } else {
            format!("wrong passwords of {} users", opts.victims)
        },
        storm_seconds,
        storm_answers,
        own_browser,
        new_browser,
        ok: failures.is_empty(),
        failures,
    })
}
