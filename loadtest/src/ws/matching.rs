//! Matching (the `match-storm` scenario, and the first part of `chat-relay`) and leaving.
//!
//! The run waits for a round with enough time left, then every live user sends
//! `join_match {word, round}`: user i picks word (i / nurls) % 4, so that each word's users
//! are on every node. All at once (a storm) or paced at `--join-rate`. Then it checks
//! that everybody who could be was matched exactly once, into rooms of exactly two that
//! both partners agree on.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use reqwest::Url;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::user::{lock, Cmd};
use super::{wait_until, Ctx};
use crate::latency::{round2, Summary};
use crate::wsclient::frame;

#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MatchReport {
    pub round: i64,
    pub words: Vec<String>,
    pub remaining_at_start_s: f64,
    pub joins: usize,
    /// Joins per second; none for a storm.
    pub join_rate: Option<u32>,
    pub expected_matched: usize,
    pub matched: usize,
    pub unmatched: usize,
    /// One per word with an odd number of joins.
    pub expected_unmatched: usize,
    /// Whether every expected match came before the wait ended.
    pub complete: bool,
    /// Users with more than one `matched`.
    pub double_matched: usize,
    /// `matched` without a join.
    pub unsolicited_matched: u64,
    pub rooms: usize,
    /// Rooms not held by exactly two users of the run.
    pub bad_rooms: usize,
    /// Users whose partner's `matched` does not name them back, or names another room.
    pub pairs_disagree: usize,
    /// Users matched with someone outside the run (a user an earlier run left waiting).
    pub partner_outside_run: usize,
    pub good_pairs: usize,
    /// Good pairs whose users are on different urls.
    pub cross_node_pairs: usize,
    /// Good pairs matched on another word than they joined.
    pub pairs_with_wrong_word: usize,
    pub match_waiting: u64,
    pub match_expired: u64,
    /// Time between the first and the last join written.
    pub join_send_ms: f64,
    /// From the first join to the last `matched`.
    pub match_window_ms: f64,
    pub matched_per_sec: f64,
    /// Per user, from its own join to its `matched`.
    pub latency_ms: Summary,
}

impl MatchReport {
    pub fn lines(&self) -> Vec<String> {
        vec![
            format!(
                "match: round {} ({:.1} s left), {} joins ({}), {} matched, {} unmatched (expected {}), \
                 {:.0} matched/s",
                self.round,
                self.remaining_at_start_s,
                self.joins,
                self.join_rate
                    .map(|r| format!("{r}/s"))
                    .unwrap_or_else(|| "storm".to_owned()),
                self.matched,
                self.unmatched,
                self.expected_unmatched,
                self.matched_per_sec
            ),
            format!(
                "  double {}, unsolicited {}, pairs disagreeing {}, bad rooms {}, outside run {}, \
                 wrong word {}; {} good pairs, {} across nodes",
                self.double_matched,
                self.unsolicited_matched,
                self.pairs_disagree,
                self.bad_rooms,
                self.partner_outside_run,
                self.pairs_with_wrong_word,
                self.good_pairs,
                self.cross_node_pairs
            ),
            format!(
                "  join→matched {}; joins written in {:.1} ms",
                self.latency_ms.line(),
                self.join_send_ms
            ),
        ]
    }
}

#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LeaveReport {
    /// Users who sent `leaveRoom` (one per good pair) while the partner was connected.
    pub leaves: usize,
    /// Partners told by `chatEnded`.
    pub chat_ended_to_partner: usize,
    pub missing: usize,
    /// Leavers who got their own `chatEnded` too.
    pub chat_ended_to_leaver: u64,
    pub duration_ms: f64,
    /// From the leaver's `leaveRoom` to the partner's `chatEnded`.
    pub latency_ms: Summary,
}

impl LeaveReport {
    pub fn lines(&self) -> Vec<String> {
        vec![format!(
            "leave: {} left, {} partners told ({} missing), {} leavers told; {}",
            self.leaves,
            self.chat_ended_to_partner,
            self.missing,
            self.chat_ended_to_leaver,
            self.latency_ms.line()
        )]
    }
}

/// The pairs of a match: `(a, b)` user indexes, `a < b`.
pub struct MatchOutcome {
    pub report: MatchReport,
    pub pairs: Vec<(usize, usize)>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ServerTime {
    is_open: bool,
}

#[derive(Deserialize)]
struct CurrentRound {
    round: i64,
    remaining: f64,
    words: Vec<Value>,
}

struct Round {
    round: i64,
    remaining_s: f64,
    words: Vec<String>,
}

async fn get_json<T: serde::de::DeserializeOwned>(
    ctx: &Ctx,
    base: &Url,
    path: &str,
) -> anyhow::Result<T> {
    let resp = ctx
        .http
        .get(base.join(path)?)
        .header("cookie", &ctx.sessions[0].cookie)
        .send()
        .await
        .with_context(|| format!("GET {path}"))?;
    let status = resp.status();
    let body = resp.bytes().await?;
    if !status.is_success() {
        bail!(
            "GET {path}: HTTP {status} {}",
            String::from_utf8_lossy(&body[..body.len().min(160)])
        );
    }
    serde_json::from_slice(&body).with_context(|| format!("GET {path}: unexpected body"))
}

async fn current_round(ctx: &Ctx) -> anyhow::Result<Round> {
    let base = &ctx.opts.urls[0];
    let r: CurrentRound = get_json(ctx, base, "/api/match/current-round").await?;
    let words: Vec<String> = r
        .words
        .iter()
        .filter_map(|w| match w {
            Value::String(s) => Some(s.clone()),
            other => other.get("word")?.as_str().map(str::to_owned),
        })
        .collect();
    if words.is_empty() {
        bail!("GET /api/match/current-round gave no words");
    }
    Ok(Round {
        round: r.round,
        // Seconds; a value over 60 would be milliseconds.
        remaining_s: if r.remaining > 60.0 {
            r.remaining / 1000.0
        } else {
            r.remaining
        },
        words,
    })
}

/// A seeded shuffle (xorshift32), so that runs can repeat an order.
fn shuffle<T>(items: &mut [T], seed: u64) {
    let mut x = (seed as u32) | 1;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        f64::from(x) / 4_294_967_296.0
    };
    for i in (1..items.len()).rev() {
        let j = (next() * (i + 1) as f64) as usize;
        items.swap(i, j.min(i));
    }
}

pub async fn match_phase(ctx: &mut Ctx) -> anyhow::Result<MatchOutcome> {
    let live = ctx.live();
    let join_rate = ctx.opts.join_rate;
    let mut need_s = ctx.opts.min_remaining.as_secs_f64();
    if join_rate > 0 {
        need_s = need_s.max(live.len() as f64 / f64::from(join_rate) + 3.0);
    }
    if need_s > 27.0 {
        bail!(
            "{} joins at --join-rate {join_rate} do not fit in one 30 s round",
            live.len()
        );
    }
    let time: ServerTime = get_json(ctx, &ctx.opts.urls[0], "/api/server-time").await?;
    if !time.is_open {
        bail!(
            "the service is closed now, so every join would be refused; run the server in demo \
             mode (TELEPATHY_DEMO=true) or with TELEPATHY_SERVICE_HOURS=always"
        );
    }
    let mut r = current_round(ctx).await?;
    for _ in 0..3 {
        if r.remaining_s >= need_s {
            break;
        }
        eprintln!(
            "loadtest: {:.1} s left in round {}; waiting for the next round",
            r.remaining_s, r.round
        );
        tokio::time::sleep(Duration::from_secs_f64(r.remaining_s.max(0.0) + 0.3)).await;
        r = current_round(ctx).await?;
    }

    let nurls = ctx.nurls();
    let mut per_word: HashMap<&str, usize> = HashMap::new();
    let mut frames = HashMap::new();
    for &i in &live {
        let word = &r.words[(i / nurls) % r.words.len()];
        *per_word.entry(word).or_default() += 1;
        lock(&ctx.users[i].state).word = Some(word.clone());
        frames.insert(
            i,
            frame("join_match", json!({ "word": word, "round": r.round })),
        );
    }
    let expected_unmatched: usize = per_word.values().map(|c| c % 2).sum();
    let expected_matched = live.len() - expected_unmatched;
    let mut order = live.clone();
    shuffle(&mut order, ctx.opts.seed);

    let t0 = Instant::now();
    if join_rate == 0 {
        for &i in &order {
            if let Some(f) = frames.remove(&i) {
                ctx.users[i].send(Cmd::Join(f));
            }
        }
    } else {
        let gap = Duration::from_secs_f64(1.0 / f64::from(join_rate));
        let mut k = 0;
        while k < order.len() {
            while k < order.len() && t0 + gap * k as u32 <= Instant::now() {
                let i = order[k];
                if let Some(f) = frames.remove(&i) {
                    ctx.users[i].send(Cmd::Join(f));
                }
                k += 1;
            }
            if k < order.len() {
                let due = t0 + gap * k as u32;
                tokio::time::sleep(due.saturating_duration_since(Instant::now())).await;
            }
        }
    }
    let sent_in = t0.elapsed().as_secs_f64();
    let budget = ctx
        .opts
        .match_timeout
        .as_secs_f64()
        .min(r.remaining_s - sent_in - 0.5)
        .max(1.0);
    let run = ctx.run.clone();
    let complete = wait_until(t0 + Duration::from_secs_f64(sent_in + budget), || {
        run.progress.matched.load(Ordering::Relaxed) >= expected_matched as u64
    })
    .await;
    // Late duplicates.
    tokio::time::sleep(Duration::from_millis(500)).await;

    let mut report = MatchReport {
        round: r.round,
        words: r.words.clone(),
        remaining_at_start_s: round2(r.remaining_s),
        joins: live.len(),
        join_rate: (join_rate > 0).then_some(join_rate),
        expected_matched,
        expected_unmatched,
        complete,
        ..MatchReport::default()
    };
    struct Seen {
        matched: u32,
        room: Option<String>,
        partner: Option<usize>,
        partner_id: Option<i64>,
        word: Option<String>,
        matched_word: Option<String>,
    }
    let mut seen = HashMap::new();
    let mut latencies = Vec::new();
    let (mut first_join, mut last_join, mut last_matched) = (u64::MAX, 0, 0);
    for &i in &live {
        let s = lock(&ctx.users[i].state);
        if let Some(j) = s.join_us {
            first_join = first_join.min(j);
            last_join = last_join.max(j);
        }
        if let (Some(j), Some(m)) = (s.join_us, s.matched_us) {
            latencies.push(m as i64 - j as i64);
            last_matched = last_matched.max(m);
        }
        report.unsolicited_matched += u64::from(s.unsolicited_matched);
        report.match_waiting += u64::from(s.match_waiting);
        report.match_expired += u64::from(s.match_expired);
        seen.insert(
            i,
            Seen {
                matched: s.matched_count,
                room: s.room_id.clone(),
                partner: s.partner,
                partner_id: s.partner_id,
                word: s.word.clone(),
                matched_word: s.matched_word.clone(),
            },
        );
    }
    let mut rooms: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (&i, s) in &seen {
        if s.matched == 0 {
            continue;
        }
        report.matched += 1;
        if s.matched > 1 {
            report.double_matched += 1;
        }
        if let Some(room) = &s.room {
            rooms.entry(room).or_default().push(i);
        }
        match s.partner.and_then(|p| seen.get(&p)) {
            None if s.partner_id.is_some() => report.partner_outside_run += 1,
            Some(ps) if ps.partner != Some(i) || ps.room != s.room => report.pairs_disagree += 1,
            _ => {}
        }
    }
    report.unmatched = live.len() - report.matched;
    report.rooms = rooms.len();
    let mut pairs = Vec::new();
    for members in rooms.values() {
        let &[a, b] = members.as_slice() else {
            report.bad_rooms += 1;
            continue;
        };
        let (sa, sb) = (&seen[&a], &seen[&b]);
        if sa.matched != 1 || sb.matched != 1 || sa.partner != Some(b) || sb.partner != Some(a) {
            continue;
        }
        let word_ok = sa.word == sb.word
            && (sa.matched_word.is_none() || sa.matched_word == sa.word)
            && (sb.matched_word.is_none() || sb.matched_word == sb.word);
        if !word_ok {
            report.pairs_with_wrong_word += 1;
        }
        if a % nurls != b % nurls {
            report.cross_node_pairs += 1;
        }
        pairs.push((a.min(b), a.max(b)));
    }
    pairs.sort_unstable();
    report.good_pairs = pairs.len();
    report.latency_ms = Summary::of_us(latencies);
    if first_join != u64::MAX {
        report.join_send_ms = round2((last_join - first_join) as f64 / 1000.0);
        if last_matched > first_join {
            let window = (last_matched - first_join) as f64;
            report.match_window_ms = round2(window / 1000.0);
            report.matched_per_sec = round2(report.matched as f64 / (window / 1e6));
        }
    }

    let excess = report.unmatched.saturating_sub(expected_unmatched);
    if excess > 0 {
        ctx.fail(format!(
            "{excess} users unmatched beyond the {expected_unmatched} odd ones ({} of {} matched)",
            report.matched, report.joins
        ));
    }
    for (n, what) in [
        (report.double_matched, "users matched more than once"),
        (
            report.unsolicited_matched as usize,
            "matched frames without a join",
        ),
        (
            report.pairs_disagree,
            "users whose partner disagrees on the pair or room",
        ),
        (report.bad_rooms, "rooms not held by exactly two users"),
        (
            report.partner_outside_run,
            "users matched with someone outside the run",
        ),
        (
            report.pairs_with_wrong_word,
            "pairs matched on another word",
        ),
    ] {
        if n > 0 {
            ctx.fail(format!("{n} {what}"));
        }
    }
    Ok(MatchOutcome { report, pairs })
}

/// The first user of each pair sends `leaveRoom`; the partner must get `chatEnded`.
pub async fn leave_phase(ctx: &mut Ctx, pairs: &[(usize, usize)]) -> LeaveReport {
    let t0 = Instant::now();
    let mut expected = Vec::new();
    for &(a, b) in pairs {
        let room = lock(&ctx.users[a].state).room_id.clone();
        let Some(room) = room else { continue };
        if ctx.users[a].send(Cmd::Leave(frame("leaveRoom", json!({ "roomId": room }))))
            && ctx.users[b].connected()
        {
            expected.push(b);
        }
    }
    let run = ctx.run.clone();
    let want = expected.len() as u64;
    wait_until(Instant::now() + Duration::from_secs(10), || {
        run.progress.chat_ended.load(Ordering::Relaxed) >= want
    })
    .await;
    // Late duplicates, and the leavers' own chatEnded.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut report = LeaveReport {
        leaves: expected.len(),
        duration_ms: round2(t0.elapsed().as_secs_f64() * 1000.0),
        ..LeaveReport::default()
    };
    let mut latencies = Vec::new();
    for &b in &expected {
        let s = lock(&ctx.users[b].state);
        if s.chat_ended {
            report.chat_ended_to_partner += 1;
            latencies.extend(s.chat_ended_us);
        }
    }
    for &(a, _) in pairs {
        report.chat_ended_to_leaver += u64::from(lock(&ctx.users[a].state).chat_ended_self);
    }
    report.missing = report.leaves - report.chat_ended_to_partner;
    report.latency_ms = Summary::of_us(latencies);
    if report.missing > 0 {
        ctx.fail(format!(
            "{} partners of a leaver got no chatEnded",
            report.missing
        ));
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shuffles_all_and_repeatably() {
        let mut a: Vec<u32> = (0..1000).collect();
        let mut b = a.clone();
        shuffle(&mut a, 7);
        shuffle(&mut b, 7);
        assert_eq!(a, b);
        assert_ne!(a, (0..1000).collect::<Vec<_>>());
        a.sort_unstable();
        assert_eq!(a, (0..1000).collect::<Vec<_>>());
        let mut one = [5];
        shuffle(&mut one, 1);
        assert_eq!(one, [5]);
    }
}
