//! Latencies and errors per HTTP endpoint, and the `accounts` report made of them.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

use serde::Serialize;

use crate::latency::percentile;

/// The endpoints the scenario calls, in the order of the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Endpoint {
    SendCode,
    Outbox,
    CheckCode,
    Register,
    AuthCheck,
    Profile,
    Login,
    CurrentRound,
    ServerTime,
}

/// Which part of the run an endpoint belongs to; its throughput is over that part's time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    Signup,
    Loop,
}

impl Endpoint {
    pub fn label(self) -> &'static str {
        match self {
            Self::SendCode => "POST /api/verify-mvp/send",
            Self::Outbox => "GET /api/dev/sms-outbox",
            Self::CheckCode => "POST /api/verify-mvp/check",
            Self::Register => "POST /api/register",
            Self::AuthCheck => "GET /api/auth/check",
            Self::Profile => "GET /api/nickname/profile",
            Self::Login => "POST /api/auth/login",
            Self::CurrentRound => "GET /api/match/current-round",
            Self::ServerTime => "GET /api/server-time",
        }
    }

    pub fn phase(self) -> Phase {
        match self {
            Self::SendCode | Self::Outbox | Self::CheckCode | Self::Register => Phase::Signup,
            Self::AuthCheck
            | Self::Profile
            | Self::Login
            | Self::CurrentRound
            | Self::ServerTime => Phase::Loop,
        }
    }
}

#[derive(Debug, Default)]
struct Samples {
    /// Microseconds of every attempt, failed ones included.
    latencies_us: Vec<u64>,
    errors: u64,
    /// Error kind ("HTTP 429 RATE_LIMITED", "timeout", …) → how many.
    error_kinds: BTreeMap<String, u64>,
    /// Calls the scenario left out to stay within the server's rate limits.
    skipped: u64,
}

/// What one virtual user (or the whole run, once merged) measured.
#[derive(Debug, Default)]
pub struct Stats {
    endpoints: BTreeMap<Endpoint, Samples>,
}

impl Stats {
    pub fn record(&mut self, endpoint: Endpoint, elapsed: Duration, error: Option<String>) {
        let s = self.endpoints.entry(endpoint).or_default();
        s.latencies_us
            .push(u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX));
        if let Some(kind) = error {
            s.errors += 1;
            *s.error_kinds.entry(kind).or_default() += 1;
        }
    }

    /// Turns the last recorded call of `endpoint` into an error, keeping its latency.
    pub fn fail_last(&mut self, endpoint: Endpoint, kind: String) {
        let s = self.endpoints.entry(endpoint).or_default();
        s.errors += 1;
        *s.error_kinds.entry(kind).or_default() += 1;
    }

    pub fn skip(&mut self, endpoint: Endpoint) {
        self.endpoints.entry(endpoint).or_default().skipped += 1;
    }

    pub fn merge(&mut self, other: Stats) {
        for (endpoint, o) in other.endpoints {
            let s = self.endpoints.entry(endpoint).or_default();
            s.latencies_us.extend(o.latencies_us);
            s.errors += o.errors;
            s.skipped += o.skipped;
            for (kind, n) in o.error_kinds {
                *s.error_kinds.entry(kind).or_default() += n;
            }
        }
    }

    /// Summarises every endpoint; `signup` and `looped` are the lengths of the two phases.
    pub fn summarise(self, signup: Duration, looped: Duration) -> Vec<EndpointReport> {
        self.endpoints
            .into_iter()
            .map(|(endpoint, mut s)| {
                s.latencies_us.sort_unstable();
                let secs = match endpoint.phase() {
                    Phase::Signup => signup,
                    Phase::Loop => looped,
                }
                .as_secs_f64();
                let count = s.latencies_us.len() as u64;
                let ms = |p: f64| percentile(&s.latencies_us, p) as f64 / 1000.0;
                EndpointReport {
                    endpoint: endpoint.label(),
                    phase: endpoint.phase(),
                    count,
                    errors: s.errors,
                    skipped: s.skipped,
                    per_second: if secs > 0.0 { count as f64 / secs } else { 0.0 },
                    p50_ms: ms(50.0),
                    p95_ms: ms(95.0),
                    p99_ms: ms(99.0),
                    max_ms: s.latencies_us.last().copied().unwrap_or(0) as f64 / 1000.0,
                    error_kinds: s.error_kinds,
                }
            })
            .collect()
    }
}

#[derive(Debug, Serialize)]
pub struct EndpointReport {
    pub endpoint: &'static str,
    pub phase: Phase,
    pub count: u64,
    pub errors: u64,
    pub skipped: u64,
    pub per_second: f64,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    pub error_kinds: BTreeMap<String, u64>,
}

#[derive(Debug, Serialize)]
pub struct Report {
    pub base: String,
    pub users: usize,
    pub users_signed_up: usize,
    pub forwarded_for: bool,
    pub generator_threads: usize,
    pub signup_seconds: f64,
    pub loop_seconds: f64,
    pub requests: u64,
    pub errors: u64,
    pub endpoints: Vec<EndpointReport>,
}

impl Report {
    pub fn table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{} users at {} ({} signed up{}); sign-up phase {:.1} s, loop phase {:.1} s",
            self.users,
            self.base,
            self.users_signed_up,
            if self.forwarded_for {
                ", one X-Forwarded-For address each"
            } else {
                ", one client address"
            },
            self.signup_seconds,
            self.loop_seconds,
        );
        let _ = writeln!(
            out,
            "{:<28} {:>7} {:>6} {:>7} {:>8} {:>8} {:>8} {:>8} {:>8}",
            "endpoint",
            "count",
            "errors",
            "skipped",
            "req/s",
            "p50 ms",
            "p95 ms",
            "p99 ms",
            "max ms"
        );
        for e in &self.endpoints {
            let _ = writeln!(
                out,
                "{:<28} {:>7} {:>6} {:>7} {:>8.1} {:>8.2} {:>8.2} {:>8.2} {:>8.2}",
                e.endpoint,
                e.count,
                e.errors,
                e.skipped,
                e.per_second,
                e.p50_ms,
                e.p95_ms,
                e.p99_ms,
                e.max_ms
            );
        }
        let loop_requests: u64 = self
            .endpoints
            .iter()
            .filter(|e| e.phase == Phase::Loop)
            .map(|e| e.count)
            .sum();
        let _ = writeln!(
            out,
            "total: {} requests, {} errors; loop phase {:.1} req/s",
            self.requests,
            self.errors,
            if self.loop_seconds > 0.0 {
                loop_requests as f64 / self.loop_seconds
            } else {
                0.0
            }
        );
        for e in self.endpoints.iter().filter(|e| !e.error_kinds.is_empty()) {
            for (kind, n) in &e.error_kinds {
                let _ = writeln!(out, "  error {}: {kind} ×{n}", e.endpoint);
            }
        }
        let limited = self
            .endpoints
            .iter()
            .any(|e| e.error_kinds.keys().any(|k| k.starts_with("HTTP 429")));
        if limited {
            let _ = writeln!(
                out,
                "  HTTP 429: the server's limits per client address were reached, perhaps by an \
                 earlier run (SMS codes count for a day, logins for 10 minutes). Restart an \
                 embedded server to reset them, or use --forwarded-for."
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_and_summarises() {
        let mut a = Stats::default();
        a.record(Endpoint::Login, Duration::from_millis(10), None);
        let mut b = Stats::default();
        b.record(
            Endpoint::Login,
            Duration::from_millis(30),
            Some("HTTP 429 RATE_LIMITED".into()),
        );
        b.skip(Endpoint::Login);
        a.merge(b);
        let r = a.summarise(Duration::from_secs(1), Duration::from_secs(2));
        assert_eq!(r.len(), 1);
        assert_eq!((r[0].count, r[0].errors, r[0].skipped), (2, 1, 1));
        assert_eq!(r[0].per_second, 1.0);
        assert_eq!(r[0].max_ms, 30.0);
        assert_eq!(r[0].error_kinds["HTTP 429 RATE_LIMITED"], 1);
    }
}
