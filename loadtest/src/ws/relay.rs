//! `chat-relay`, after the match: each user of every good pair sends `--messages` chat
//! messages at `--rate` per second (all senders evenly phased), each text
//! `run|sender|seq|sent_us|` (padded to ~900 characters with `--long`). The sender's echo is
//! the server's acknowledgement; the partner must get every message exactly once.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use serde::Serialize;

use super::user::{lock, Cmd};
use super::{wait_until, Ctx};
use crate::cli::WsOptions;
use crate::latency::{round2, Summary};

/// Frames the server accepts from one user per 10 s.
const FRAMES_PER_WINDOW: u32 = 40;

#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RelayReport {
    pub senders: usize,
    pub rooms: usize,
    pub messages_per_user: u32,
    pub rate_per_user: f64,
    pub typing: bool,
    pub long: bool,
    pub offered_per_sec: f64,
    pub sent: u64,
    /// Sent messages echoed back to their sender: acknowledged.
    pub echoes: u64,
    /// Sent messages never echoed.
    pub unacknowledged: u64,
    pub duplicate_echoes: u64,
    /// Sent messages the partner got.
    pub delivered: u64,
    /// Sent messages the partner never got, acknowledged or not.
    pub undelivered: u64,
    /// Acknowledged messages the partner never got.
    pub lost: u64,
    /// Second and later copies of a message at the partner.
    pub duplicated: u64,
    /// Messages that reached someone other than the sender's partner.
    pub misrouted: u64,
    /// Chat messages of another run (or not made by a load generator).
    pub foreign: u64,
    /// From the first to the last message written.
    pub send_window_s: f64,
    pub sent_per_sec: f64,
    /// Deliveries over the time from the first send to the last delivery.
    pub delivered_per_sec: f64,
    /// Send → partner receives.
    pub latency_ms: Summary,
    pub latency_cross_node_ms: Summary,
    pub latency_same_node_ms: Summary,
    /// Send → own echo.
    pub echo_ms: Summary,
    /// Send → the server's timestamp, and the server's timestamp → receipt (ms clock).
    pub sender_to_server_ms: Summary,
    pub server_to_receiver_ms: Summary,
    /// How late the generator wrote each message against its schedule.
    pub generator_send_lag_ms: Summary,
    /// Per second from the first send: deliveries and their latency.
    pub timeline: Vec<Second>,
    pub typing_sent: u64,
    pub typing_received: u64,
    pub stop_typing_received: u64,
}

#[derive(Debug, Serialize)]
pub struct Second {
    pub s: u64,
    pub delivered: usize,
    pub p50: f64,
    pub p99: f64,
    pub max: f64,
}

impl RelayReport {
    pub fn lines(&self) -> Vec<String> {
        let mut out = vec![
            format!(
                "relay: {} senders in {} rooms, {} messages each at {}/s{}{} (offered {:.0}/s)",
                self.senders,
                self.rooms,
                self.messages_per_user,
                self.rate_per_user,
                if self.typing { ", typing" } else { "" },
                if self.long { ", long" } else { "" },
                self.offered_per_sec
            ),
            format!(
                "  sent {} echoed {} (unacknowledged {}, duplicate echoes {}), delivered {}, \
                 undelivered {}, lost {}, duplicated {}, misrouted {}, foreign {}",
                self.sent,
                self.echoes,
                self.unacknowledged,
                self.duplicate_echoes,
                self.delivered,
                self.undelivered,
                self.lost,
                self.duplicated,
                self.misrouted,
                self.foreign
            ),
            format!(
                "  {:.0} delivered/s; latency {}; echo {}",
                self.delivered_per_sec,
                self.latency_ms.line(),
                self.echo_ms.line()
            ),
            format!(
                "  cross-node {}; same node {}; generator send lag {}",
                self.latency_cross_node_ms.line(),
                self.latency_same_node_ms.line(),
                self.generator_send_lag_ms.line()
            ),
        ];
        if self.typing {
            out.push(format!(
                "  typing: sent {} (typing + stopTyping), received {} typing, {} stopTyping",
                self.typing_sent, self.typing_received, self.stop_typing_received
            ));
        }
        for t in &self.timeline {
            out.push(format!(
                "  second {:>3}: {:>7} delivered, p50 {:.2} p99 {:.2} max {:.2} ms",
                t.s, t.delivered, t.p50, t.p99, t.max
            ));
        }
        out
    }
}

/// A warning when the run would send more frames per user within 10 s than the server
/// accepts (the join, the messages with their typing frames, the leave).
pub fn frame_budget_warning(opts: &WsOptions) -> Option<String> {
    let per_message = if opts.typing { 3 } else { 1 };
    let in_window = (opts.messages as f64).min((10.0 * opts.rate).floor() + 1.0) as u32;
    let frames = in_window * per_message + 2;
    (frames > FRAMES_PER_WINDOW).then(|| {
        format!(
            "up to {frames} frames per user within 10 s ({in_window} messages{}, the join and the \
             leave); the server accepts {FRAMES_PER_WINDOW}, so expect RATE_LIMITED refusals. \
             Lower --messages or --rate{}.",
            if opts.typing { " ×3 with typing" } else { "" },
            if opts.typing {
                ", or drop --typing"
            } else {
                ""
            }
        )
    })
}

pub async fn relay_phase(ctx: &mut Ctx, pairs: &[(usize, usize)]) -> RelayReport {
    let m = ctx.opts.messages;
    let rate = ctx.opts.rate;
    let mut senders = Vec::with_capacity(pairs.len() * 2);
    for &(a, b) in pairs {
        senders.push(a);
        senders.push(b);
    }
    for &i in &senders {
        let mut s = lock(&ctx.users[i].state);
        s.sent_us = vec![0; m as usize];
        s.acked = vec![false; m as usize];
        s.seen = vec![false; m as usize];
    }
    let mut report = RelayReport {
        senders: senders.len(),
        rooms: pairs.len(),
        messages_per_user: m,
        rate_per_user: rate,
        typing: ctx.opts.typing,
        long: ctx.opts.long,
        offered_per_sec: round2(senders.len() as f64 * rate),
        ..RelayReport::default()
    };
    if senders.is_empty() || m == 0 {
        return report;
    }

    let run = ctx.run.clone();
    let interval_us = 1e6 / rate;
    let slot_us = interval_us / senders.len() as f64;
    let start_us = run.now_us() + 100_000;
    let mut pushed = 0u64;
    for k in 0..m {
        for (j, &i) in senders.iter().enumerate() {
            let due_us = start_us + (f64::from(k) * interval_us + j as f64 * slot_us) as u64;
            if due_us > run.now_us() + 500 {
                tokio::time::sleep_until(run.at_us(due_us).into()).await;
            }
            if ctx.users[i].send(Cmd::Chat { seq: k, due_us }) {
                pushed += 1;
            }
        }
    }
    let p = &run.progress;
    wait_until(Instant::now() + ctx.opts.drain, || {
        let sent = p.sent.load(Ordering::Relaxed);
        sent + p.send_failed.load(Ordering::Relaxed) >= pushed
            && p.delivered.load(Ordering::Relaxed) + p.misrouted.load(Ordering::Relaxed) >= sent
            && p.echoes.load(Ordering::Relaxed) >= sent
    })
    .await;
    // Late duplicates.
    tokio::time::sleep(Duration::from_millis(200)).await;

    let nurls = ctx.nurls();
    let (mut latency, mut cross, mut same, mut echo, mut up, mut down, mut lag) = (
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
    );
    let mut receipts = Vec::new();
    let (mut first_send, mut last_send, mut last_recv) = (u64::MAX, 0u64, 0u64);
    for &(a, b) in pairs {
        for (x, y) in [(a, b), (b, a)] {
            let sx = lock(&ctx.users[x].state);
            let sy = lock(&ctx.users[y].state);
            for seq in 0..m as usize {
                let at = sx.sent_us[seq];
                if at == 0 {
                    continue;
                }
                first_send = first_send.min(at);
                last_send = last_send.max(at);
                report.sent += 1;
                let acked = sx.acked[seq];
                if acked {
                    report.echoes += 1;
                } else {
                    report.unacknowledged += 1;
                }
                if sy.seen[seq] {
                    report.delivered += 1;
                } else {
                    report.undelivered += 1;
                    if acked {
                        report.lost += 1;
                    }
                }
            }
            report.duplicate_echoes += sx.duplicate_echoes;
            report.typing_sent += sx.typing_sent;
            echo.extend_from_slice(&sx.echo_us);
            lag.extend_from_slice(&sx.send_lag_us);
            let across = x % nurls != y % nurls;
            for &(at, us) in &sy.deliveries {
                latency.push(us);
                receipts.push((at, us));
                last_recv = last_recv.max(at);
                if across {
                    cross.push(us);
                } else {
                    same.push(us);
                }
            }
            up.extend_from_slice(&sy.up_us);
            down.extend_from_slice(&sy.down_us);
            report.duplicated += sy.duplicated;
            report.typing_received += sy.typing_in;
            report.stop_typing_received += sy.stop_typing_in;
        }
    }
    for h in &ctx.users {
        let s = lock(&h.state);
        report.misrouted += s.misrouted;
        report.foreign += s.foreign;
    }
    if first_send != u64::MAX {
        let window = (last_send - first_send) as f64 / 1e6;
        report.send_window_s = round2(window);
        if window > 0.0 {
            report.sent_per_sec = round2(report.sent as f64 / window);
        }
        if last_recv > first_send {
            let window = (last_recv - first_send) as f64 / 1e6;
            report.delivered_per_sec = round2(report.delivered as f64 / window);
        }
        report.timeline = timeline(first_send, receipts);
    }
    report.latency_ms = Summary::of_us(latency);
    report.latency_cross_node_ms = Summary::of_us(cross);
    report.latency_same_node_ms = Summary::of_us(same);
    report.echo_ms = Summary::of_us(echo);
    report.sender_to_server_ms = Summary::of_us(up);
    report.server_to_receiver_ms = Summary::of_us(down);
    report.generator_send_lag_ms = Summary::of_us(lag);

    if report.undelivered > 0 {
        ctx.fail(format!(
            "{} messages never reached the partner ({} of them acknowledged to the sender: lost)",
            report.undelivered, report.lost
        ));
    }
    for (n, what) in [
        (
            report.unacknowledged,
            "messages never echoed to their sender",
        ),
        (report.duplicate_echoes, "duplicate echoes"),
        (report.duplicated, "duplicate deliveries"),
        (report.misrouted, "misrouted messages"),
    ] {
        if n > 0 {
            ctx.fail(format!("{n} {what}"));
        }
    }
    if report.generator_send_lag_ms.p99 > 20.0 {
        eprintln!(
            "loadtest: warning: the generator wrote messages late (send lag p99 {:.1} ms); \
             latencies include its delay (more --threads, or fewer users)",
            report.generator_send_lag_ms.p99
        );
    }
    report
}

/// Deliveries per second since `t0` (µs), with their latency percentiles.
fn timeline(t0: u64, receipts: Vec<(u64, i64)>) -> Vec<Second> {
    let mut buckets: BTreeMap<u64, Vec<i64>> = BTreeMap::new();
    for (at, us) in receipts {
        buckets
            .entry(at.saturating_sub(t0) / 1_000_000)
            .or_default()
            .push(us);
    }
    let last = buckets.keys().next_back().copied().unwrap_or(0);
    (0..=last)
        .map(|s| {
            let sum = Summary::of_us(buckets.remove(&s).unwrap_or_default());
            Second {
                s,
                delivered: sum.n,
                p50: sum.p50,
                p99: sum.p99,
                max: sum.max,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{parse, Command};

    fn opts(line: &str) -> WsOptions {
        let args: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
        match parse(&args).unwrap() {
            Command::Ws(o) => o,
            _ => panic!("not a socket scenario"),
        }
    }

    #[test]
    fn warns_past_the_frame_limit() {
        assert!(
            frame_budget_warning(&opts("chat-relay --sessions s --messages 30 --rate 4")).is_none()
        );
        assert!(
            frame_budget_warning(&opts("chat-relay --sessions s --messages 40 --rate 5")).is_some()
        );
        assert!(frame_budget_warning(&opts(
            "chat-relay --sessions s --messages 5 --rate 2 --typing"
        ))
        .is_none());
        let w = frame_budget_warning(&opts(
            "chat-relay --sessions s --messages 20 --rate 2 --typing",
        ))
        .unwrap();
        assert!(w.contains("--typing"), "{w}");
    }

    #[test]
    fn buckets_deliveries_by_second() {
        let t = timeline(
            1_000_000,
            vec![(1_100_000, 1000), (1_900_000, 3000), (3_500_000, 2000)],
        );
        assert_eq!(t.len(), 3);
        assert_eq!((t[0].delivered, t[0].max), (2, 3.0));
        assert_eq!(t[1].delivered, 0);
        assert_eq!((t[2].s, t[2].p50), (2, 2.0));
    }
}
