//! `round-poll`: what browsers do while their socket is down. `--concurrency` workers, each
//! with its own keep-alive connection to urls[w % n], loop on GET /api/match/current-round
//! and GET /api/server-time for `--duration`, checking each body.

use std::time::{Duration, Instant};

use reqwest::{Client, Url};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::task::JoinSet;

use crate::cli::PollOptions;
use crate::latency::round2;
use crate::procstats::{CpuReport, Marks};
use crate::stats::{Endpoint, EndpointReport, Stats};

const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Deserialize)]
struct CurrentRound {
    round: i64,
    remaining: f64,
    words: Vec<Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ServerTime {
    round: i64,
    server_time: i64,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PollReport {
    pub scenario: &'static str,
    pub urls: Vec<String>,
    pub concurrency: usize,
    pub generator_threads: usize,
    pub duration_s: f64,
    pub requests: u64,
    pub errors: u64,
    pub per_sec: f64,
    pub endpoints: Vec<EndpointReport>,
    pub cpu: CpuReport,
    pub warnings: Vec<String>,
    pub failures: Vec<String>,
    pub ok: bool,
}

impl PollReport {
    pub fn table(&self) -> String {
        let mut out = vec![format!(
            "round-poll: {} workers at {} for {:.1} s: {} requests, {} errors, {:.1} req/s",
            self.concurrency,
            self.urls.join(", "),
            self.duration_s,
            self.requests,
            self.errors,
            self.per_sec
        )];
        out.push(format!(
            "{:<30} {:>8} {:>6} {:>9} {:>8} {:>8} {:>8} {:>8}",
            "endpoint", "count", "errors", "req/s", "p50 ms", "p95 ms", "p99 ms", "max ms"
        ));
        for e in &self.endpoints {
            out.push(format!(
                "{:<30} {:>8} {:>6} {:>9.1} {:>8.2} {:>8.2} {:>8.2} {:>8.2}",
                e.endpoint, e.count, e.errors, e.per_second, e.p50_ms, e.p95_ms, e.p99_ms, e.max_ms
            ));
            for (kind, n) in &e.error_kinds {
                out.push(format!("  error {}: {kind} ×{n}", e.endpoint));
            }
        }
        out.extend(self.cpu.lines());
        for w in &self.warnings {
            out.push(format!("warning: {w}"));
        }
        if self.ok {
            out.push("correctness: ok".to_owned());
        } else {
            out.push("correctness: FAILED".to_owned());
            for f in &self.failures {
                out.push(format!("  - {f}"));
            }
        }
        let mut text = out.join("\n");
        text.push('\n');
        text
    }
}

pub async fn run(opts: PollOptions) -> anyhow::Result<PollReport> {
    let mut marks = Marks::new(opts.pids.clone());
    marks.mark("start");
    let started = Instant::now();
    let deadline = started + opts.duration;
    let mut workers = JoinSet::new();
    for w in 0..opts.concurrency {
        // One client per worker: its own keep-alive connection.
        let client = Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(REQUEST_TIMEOUT)
            .pool_max_idle_per_host(1)
            .build()?;
        let base = opts.urls[w % opts.urls.len()].clone();
        workers.spawn(worker(client, base, deadline));
    }
    let mut stats = Stats::default();
    while let Some(done) = workers.join_next().await {
        stats.merge(done??);
    }
    let elapsed = started.elapsed();
    marks.mark("polled");
    let cpu = marks.report();
    let endpoints = stats.summarise(Duration::ZERO, elapsed);
    let requests: u64 = endpoints.iter().map(|e| e.count).sum();
    let errors: u64 = endpoints.iter().map(|e| e.errors).sum();
    let mut failures = Vec::new();
    if errors > 0 {
        failures.push(format!("{errors} requests failed"));
    }
    if requests == 0 {
        failures.push("no request was made".to_owned());
    }
    Ok(PollReport {
        scenario: "round-poll",
        urls: opts
            .urls
            .iter()
            .map(|u| u.origin().ascii_serialization())
            .collect(),
        concurrency: opts.concurrency,
        generator_threads: opts.threads,
        duration_s: round2(elapsed.as_secs_f64()),
        requests,
        errors,
        per_sec: round2(requests as f64 / elapsed.as_secs_f64().max(1e-9)),
        endpoints,
        warnings: cpu.disturbed().into_iter().collect(),
        cpu,
        ok: failures.is_empty(),
        failures,
    })
}

async fn worker(client: Client, base: Url, deadline: Instant) -> anyhow::Result<Stats> {
    let round_url = base.join("/api/match/current-round")?;
    let time_url = base.join("/api/server-time")?;
    let mut stats = Stats::default();
    while Instant::now() < deadline {
        call(
            &client,
            &round_url,
            Endpoint::CurrentRound,
            &mut stats,
            |b| {
                serde_json::from_slice::<CurrentRound>(b).is_ok_and(|r| {
                    r.round > 0 && (0.0..=30.0).contains(&r.remaining) && r.words.len() == 4
                })
            },
        )
        .await;
        if Instant::now() >= deadline {
            break;
        }
        call(&client, &time_url, Endpoint::ServerTime, &mut stats, |b| {
            serde_json::from_slice::<ServerTime>(b).is_ok_and(|t| t.round > 0 && t.server_time > 0)
        })
        .await;
    }
    Ok(stats)
}

async fn call(
    client: &Client,
    url: &Url,
    endpoint: Endpoint,
    stats: &mut Stats,
    valid: impl Fn(&[u8]) -> bool,
) {
    let started = Instant::now();
    let outcome = match client.get(url.clone()).send().await {
        Ok(resp) => {
            let status = resp.status();
            match resp.bytes().await {
                Ok(body) if status.is_success() && valid(&body) => None,
                Ok(_) if status.is_success() => Some("unexpected body".to_owned()),
                Ok(_) => Some(format!("HTTP {}", status.as_u16())),
                Err(e) if e.is_timeout() => Some("timeout".to_owned()),
                Err(_) => Some("body cut short".to_owned()),
            }
        }
        Err(e) if e.is_timeout() => Some("timeout".to_owned()),
        Err(e) if e.is_connect() => Some("connect".to_owned()),
        Err(_) => Some("request failed".to_owned()),
    };
    stats.record(endpoint, started.elapsed(), outcome);
}
