//! `connections`: hold the sockets for `--hold` and check that the online count the server
//! pushes converges to exactly the number of users connected; then ask some users for it
//! (`getOnlineCount`) and check the answers too.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use serde::Serialize;

use super::user::{lock, Cmd};
use super::{wait_until, ConnectReport, Ctx, PerConnection};
use crate::latency::round2;
use crate::procstats::Marks;

/// Users asked for the count after the hold, spread over the run.
const PROBES: usize = 200;
/// With `--online-total`: the longest wait for the other generators before the hold.
const MAX_WAIT_FOR_TOTAL: Duration = Duration::from_secs(600);

#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OnlineReport {
    pub hold_s: f64,
    /// Distinct users connected at the end of the hold (or `--online-total`, the sockets of
    /// every generator side by side): what every count must say.
    pub expected: usize,
    /// `onlineCount` frames received over the run.
    pub pushes: u64,
    /// Seconds from the end of the connect phase until every user's last count was
    /// `expected`; none if that never happened during the hold. With `--online-total`, the
    /// wait for the other generators, before the hold.
    pub converged_after_s: Option<f64>,
    pub users_at_expected: usize,
    /// Users whose last pushed count was another number (or none) at the end of the hold.
    pub users_stale: usize,
    /// Their last counts (`none` for no count at all) → users.
    pub stale_values: BTreeMap<String, usize>,
    pub probes: usize,
    pub probe_answers: usize,
    pub probe_mismatched: usize,
    /// Answers to the probes → users.
    pub probe_values: BTreeMap<String, usize>,
}

impl OnlineReport {
    pub fn lines(&self) -> Vec<String> {
        let mut out = vec![format!(
            "online: held {:.1} s; expected {}; {} users at it, {} stale; converged {}; {} pushes",
            self.hold_s,
            self.expected,
            self.users_at_expected,
            self.users_stale,
            self.converged_after_s
                .map(|s| format!("after {s:.2} s"))
                .unwrap_or_else(|| "never".to_owned()),
            self.pushes
        )];
        out.push(format!(
            "  getOnlineCount: {} asked, {} answered, {} wrong {:?}",
            self.probes, self.probe_answers, self.probe_mismatched, self.probe_values
        ));
        if !self.stale_values.is_empty() {
            out.push(format!("  stale last counts: {:?}", self.stale_values));
        }
        out
    }
}

/// Holds, checks the counts, and measures the servers' cost per connection.
pub async fn hold(
    ctx: &mut Ctx,
    marks: &mut Marks,
    connect: &ConnectReport,
) -> (OnlineReport, PerConnection) {
    let mut converged_after_s = None;
    if let Some(total) = ctx.opts.online_total {
        // Side by side with other generators: the hold starts once every user here has been
        // told the total, that is once every generator has connected (or the longest hold
        // passed), so that the holds of all overlap whatever their connect phases took.
        let waiting = Instant::now();
        while waiting.elapsed() < MAX_WAIT_FOR_TOTAL
            && !ctx
                .live()
                .iter()
                .all(|&i| lock(&ctx.users[i].state).online_last == Some(total as u64))
        {
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        converged_after_s = Some(round2(waiting.elapsed().as_secs_f64()));
    }
    let start = Instant::now();
    let end = start + ctx.opts.hold;
    loop {
        if converged_after_s.is_none() {
            let live = ctx.live();
            let expected = ctx.opts.online_total.unwrap_or(live.len()) as u64;
            let all = live
                .iter()
                .all(|&i| lock(&ctx.users[i].state).online_last == Some(expected));
            if all {
                converged_after_s = Some(round2(start.elapsed().as_secs_f64()));
            }
        }
        let now = Instant::now();
        if now >= end {
            break;
        }
        tokio::time::sleep((end - now).min(Duration::from_millis(250))).await;
    }
    let hold_s = start.elapsed().as_secs_f64();
    marks.mark("held");

    let live = ctx.live();
    let expected = ctx.opts.online_total.unwrap_or(live.len());
    let mut report = OnlineReport {
        hold_s: round2(hold_s),
        expected,
        converged_after_s,
        ..OnlineReport::default()
    };
    for &i in &live {
        let last = lock(&ctx.users[i].state).online_last;
        if last == Some(expected as u64) {
            report.users_at_expected += 1;
        } else {
            report.users_stale += 1;
            let key = last.map_or_else(|| "none".to_owned(), |c| c.to_string());
            *report.stale_values.entry(key).or_default() += 1;
        }
    }

    let step = live.len().div_ceil(PROBES).max(1);
    let probed: Vec<usize> = live.iter().copied().step_by(step).collect();
    report.probes = probed
        .iter()
        .filter(|&&i| ctx.users[i].send(Cmd::Probe))
        .count();
    let run = ctx.run.clone();
    let want = report.probes as u64;
    wait_until(Instant::now() + Duration::from_secs(5), || {
        run.progress.probe_answers.load(Ordering::Relaxed) >= want
    })
    .await;
    for &i in &probed {
        if let Some(answer) = lock(&ctx.users[i].state).probe_answer {
            report.probe_answers += 1;
            if answer != expected as u64 {
                report.probe_mismatched += 1;
            }
            *report.probe_values.entry(answer.to_string()).or_default() += 1;
        }
    }
    report.pushes = ctx.users.iter().map(|h| lock(&h.state).online_events).sum();

    if report.users_stale > 0 {
        ctx.fail(format!(
            "{} users' last pushed onlineCount is not {expected} after {:.1} s: {:?}",
            report.users_stale, hold_s, report.stale_values
        ));
    }
    if report.probe_mismatched > 0 {
        ctx.fail(format!(
            "{} getOnlineCount answers are not {expected}: {:?}",
            report.probe_mismatched, report.probe_values
        ));
    }
    if report.probe_answers < report.probes {
        ctx.fail(format!(
            "{} of {} getOnlineCount got no answer",
            report.probes - report.probe_answers,
            report.probes
        ));
    }

    if !ctx.opts.linger.is_zero() {
        tokio::time::sleep(ctx.opts.linger).await;
    }
    let n = connect.connected.max(1) as f64;
    let per = PerConnection {
        server_rss_kb: match (marks.rss_kb_at("start"), marks.rss_kb_at("held")) {
            (Some(a), Some(b)) => Some(round2((b as f64 - a as f64) / n)),
            _ => None,
        },
        server_cpu_ms_to_connect: marks
            .server_cpu_between("start", "connected")
            .map(|s| round2(s * 1000.0 / n)),
        server_cpu_us_per_sec_held: marks
            .server_cpu_between("connected", "held")
            .filter(|_| hold_s > 0.0)
            .map(|s| round2(s * 1e6 / n / hold_s)),
    };
    (report, per)
}
