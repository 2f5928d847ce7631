//! The WebSocket scenarios: `connections`, `match-storm` and `chat-relay`. Each connects
//! the users of a sessions file (user i to urls[i % n]), leaves rooms an earlier run left
//! them in, runs its phases, closes every socket and reports what it counted. Correctness
//! checks that fail are listed in the report's `failures` and make the exit status 1.

mod connections;
mod matching;
mod relay;
pub mod user;

use std::collections::BTreeMap;
use std::net::Ipv4Addr;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::bail;
use futures_util::StreamExt;
use serde::Serialize;
use serde_json::json;
use tokio::sync::mpsc::{unbounded_channel, UnboundedSender};
use tokio::task::JoinHandle;

use self::connections::OnlineReport;
use self::matching::{LeaveReport, MatchReport};
use self::relay::RelayReport;
use self::user::{lock, Cmd, Phase, Run, Shared, UserState};
use crate::cli::{WsOptions, WsScenario};
use crate::latency::{round2, Summary};
use crate::procstats::{CpuReport, Marks};
use crate::sessions::{self, Session};
use crate::wsclient::{self, frame, Target};

/// How long the users may take to get `hello` once connected.
const HELLO_TIMEOUT: Duration = Duration::from_secs(10);

/// One user of the run, seen from the run.
pub struct Handle {
    tx: Option<UnboundedSender<Cmd>>,
    pub state: Shared,
    task: Option<JoinHandle<()>>,
}

impl Handle {
    /// Hands `cmd` to the user's task; false when the task has ended.
    pub fn send(&self, cmd: Cmd) -> bool {
        self.tx.as_ref().is_some_and(|tx| tx.send(cmd).is_ok())
    }

    pub fn connected(&self) -> bool {
        lock(&self.state).connected
    }
}

/// Shared by the phases of one run.
pub struct Ctx {
    pub run: Arc<Run>,
    pub opts: WsOptions,
    pub users: Vec<Handle>,
    pub sessions: Vec<Session>,
    pub targets: Vec<Target>,
    pub failures: Vec<String>,
    pub http: reqwest::Client,
}

impl Ctx {
    pub fn nurls(&self) -> usize {
        self.targets.len()
    }

    /// Users whose socket is open and who got their own `hello`.
    pub fn live(&self) -> Vec<usize> {
        (0..self.users.len())
            .filter(|&i| {
                let s = lock(&self.users[i].state);
                s.connected && s.hello_user_id == Some(self.run.user_ids[i])
            })
            .collect()
    }

    pub fn fail(&mut self, what: String) {
        self.failures.push(what);
    }
}

/// Polls `done` every 10 ms until it holds or `deadline` passes; whether it held.
pub async fn wait_until(deadline: Instant, mut done: impl FnMut() -> bool) -> bool {
    loop {
        if done() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConnectReport {
    pub users: usize,
    pub connected: usize,
    pub failed: usize,
    /// Failure kind (`HTTP 401`, `timeout`, `connect: …`) → sockets.
    pub failures: BTreeMap<String, u64>,
    pub source_addrs: usize,
    pub open_file_limit: u64,
    pub concurrency: usize,
    pub duration_s: f64,
    pub per_sec: f64,
    /// TCP connect and upgrade.
    pub latency_ms: Summary,
    /// From the start of the connect to `hello`.
    pub hello_ms: Summary,
    pub missing_hello: usize,
    /// `hello` named another user than the session's.
    pub hello_mismatch: usize,
    /// Users `hello` found in a room of an earlier run; they left it before the scenario.
    pub stale_rooms: usize,
}

/// Server cost per connection (`connections` with `--pids`).
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PerConnection {
    /// Growth of the servers' VmRSS from the start to the end of the hold, per socket.
    pub server_rss_kb: Option<f64>,
    /// Servers' CPU during the connect phase, per socket.
    pub server_cpu_ms_to_connect: Option<f64>,
    /// Servers' CPU per socket and second while holding.
    pub server_cpu_us_per_sec_held: Option<f64>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WsReport {
    pub scenario: &'static str,
    pub urls: Vec<String>,
    pub users: usize,
    pub skip: usize,
    pub run_id: String,
    pub started_at_ms: u64,
    pub generator_threads: usize,
    pub connect: ConnectReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub online: Option<OnlineReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_connection: Option<PerConnection>,
    #[serde(rename = "match", skip_serializing_if = "Option::is_none")]
    pub matching: Option<MatchReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relay: Option<RelayReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leave: Option<LeaveReport>,
    /// `error` frames outside the cleanup, `event CODE` → count.
    pub errors: BTreeMap<String, u64>,
    /// `error` frames while leaving rooms of an earlier run (expected, not failures).
    pub cleanup_errors: u64,
    /// Sockets the server closed during the run.
    pub disconnects: u64,
    pub disconnect_reasons: BTreeMap<String, u64>,
    pub bad_frames: u64,
    /// `chatEnded` nobody of the run asked for.
    pub unexpected_chat_ended: u64,
    pub typing_misrouted: u64,
    /// Frames of other kinds (`round`, …) → count.
    pub other_events: BTreeMap<String, u64>,
    pub warnings: Vec<String>,
    pub cpu: CpuReport,
    pub failures: Vec<String>,
    pub ok: bool,
}

fn run_id() -> String {
    let seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
        ^ u64::from(std::process::id()).rotate_left(32);
    // Digits only, as the rest of a message's tag: letters among digits can read as a
    // romanised swear word to the abuse filter ("8u8"), which masks it, and the run would
    // no longer know its own messages.
    format!("{:08}", seed % 100_000_000)
}

pub async fn run(opts: WsOptions) -> anyhow::Result<WsReport> {
    let sessions = sessions::load(&opts.sessions, opts.skip, opts.users)?;
    let mut targets = Vec::new();
    for url in &opts.urls {
        targets.push(Target::resolve(url).await?);
    }
    let open_file_limit = wsclient::raise_nofile(opts.users);
    if open_file_limit < opts.users as u64 + 256 {
        bail!(
            "the open-file limit is {open_file_limit}, too low for {} sockets; raise it (ulimit -n)",
            opts.users
        );
    }
    let nsrc = opts
        .source_addrs
        .unwrap_or_else(|| wsclient::default_source_addrs(opts.users));
    let sources = wsclient::source_addrs(opts.source_offset, nsrc);
    let started_at_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    let run = Arc::new(Run::new(
        run_id(),
        sessions.iter().map(|s| s.user_id).collect(),
        opts.long,
        opts.typing,
    ));
    let http = reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(10))
        .build()?;
    let mut marks = Marks::new(opts.pids.clone());
    let mut warnings = Vec::new();
    if opts.scenario == WsScenario::ChatRelay {
        warnings.extend(relay::frame_budget_warning(&opts));
    }
    for w in &warnings {
        eprintln!("loadtest: warning: {w}");
    }
    let mut ctx = Ctx {
        run: run.clone(),
        users: (0..sessions.len())
            .map(|_| Handle {
                tx: None,
                state: Arc::new(Mutex::new(UserState::default())),
                task: None,
            })
            .collect(),
        opts,
        sessions,
        targets,
        failures: Vec::new(),
        http,
    };

    marks.mark("start");
    let mut connect = connect_all(&mut ctx, &sources).await;
    connect.open_file_limit = open_file_limit;
    marks.mark("connected");
    connect.stale_rooms = cleanup(&ctx).await;
    run.set_phase(Phase::Main);
    if connect.failed > 0 {
        let kinds = connect
            .failures
            .iter()
            .map(|(k, n)| format!("{k} ×{n}"))
            .collect::<Vec<_>>()
            .join(", ");
        ctx.fail(format!(
            "{} sockets could not connect ({kinds})",
            connect.failed
        ));
        if connect
            .failures
            .keys()
            .any(|k| k == "HTTP 401" || k == "HTTP 403")
        {
            eprintln!(
                "loadtest: the server refused sessions; if {} is from another database, seed again",
                ctx.opts.sessions.display()
            );
        }
    }
    if connect.missing_hello > 0 {
        ctx.fail(format!("{} sockets got no hello", connect.missing_hello));
    }
    if connect.hello_mismatch > 0 {
        ctx.fail(format!(
            "{} sockets got the hello of another user",
            connect.hello_mismatch
        ));
    }

    let mut report_online = None;
    let mut per_connection = None;
    let mut report_match = None;
    let mut report_relay = None;
    let mut report_leave = None;
    if connect.connected == 0 {
        ctx.fail("no socket connected".to_owned());
    } else {
        match ctx.opts.scenario {
            WsScenario::Connections => {
                let (online, per) = connections::hold(&mut ctx, &mut marks, &connect).await;
                report_online = Some(online);
                per_connection = Some(per);
            }
            WsScenario::MatchStorm | WsScenario::ChatRelay => {
                let outcome = matching::match_phase(&mut ctx).await?;
                marks.mark("matched");
                report_match = Some(outcome.report);
                if ctx.opts.scenario == WsScenario::ChatRelay {
                    report_relay = Some(relay::relay_phase(&mut ctx, &outcome.pairs).await);
                    marks.mark("relayed");
                }
                report_leave = Some(matching::leave_phase(&mut ctx, &outcome.pairs).await);
                marks.mark("left");
            }
        }
    }

    run.set_phase(Phase::Closing);
    close_all(&mut ctx).await;
    marks.mark("end");

    let mut errors = BTreeMap::new();
    let mut disconnect_reasons = BTreeMap::new();
    let (mut cleanup_errors, mut bad_frames, mut unexpected_chat_ended, mut typing_misrouted) =
        (0, 0, 0, 0);
    let mut other_events = BTreeMap::new();
    for h in &ctx.users {
        let s = lock(&h.state);
        for (k, n) in &s.errors {
            *errors.entry(k.clone()).or_default() += n;
        }
        for (k, n) in &s.other_events {
            *other_events.entry(k.clone()).or_default() += n;
        }
        if let Some(why) = &s.disconnect {
            *disconnect_reasons.entry(why.clone()).or_default() += 1;
        }
        cleanup_errors += s.cleanup_errors;
        bad_frames += s.bad_frames;
        unexpected_chat_ended += u64::from(s.chat_ended_other);
        typing_misrouted += s.typing_misrouted;
    }
    let disconnects = run.progress.disconnects.load(Ordering::Relaxed);
    if !errors.is_empty() {
        let list = errors
            .iter()
            .map(|(k, n)| format!("{k} ×{n}"))
            .collect::<Vec<_>>()
            .join(", ");
        ctx.fail(format!("the server refused frames: {list}"));
    }
    if disconnects > 0 {
        ctx.fail(format!(
            "the server closed {disconnects} sockets during the run"
        ));
    }
    if bad_frames > 0 {
        ctx.fail(format!("{bad_frames} frames could not be read"));
    }
    if unexpected_chat_ended > 0 {
        ctx.fail(format!(
            "{unexpected_chat_ended} chatEnded frames nobody asked for"
        ));
    }
    if typing_misrouted > 0 {
        ctx.fail(format!(
            "{typing_misrouted} typing frames reached someone other than the partner"
        ));
    }
    let cpu = marks.report();
    warnings.extend(cpu.disturbed());
    let ok = ctx.failures.is_empty();
    Ok(WsReport {
        scenario: ctx.opts.scenario.name(),
        urls: ctx
            .opts
            .urls
            .iter()
            .map(|u| u.origin().ascii_serialization())
            .collect(),
        users: ctx.opts.users,
        skip: ctx.opts.skip,
        run_id: run.id.clone(),
        started_at_ms,
        generator_threads: ctx.opts.threads,
        connect,
        online: report_online,
        per_connection,
        matching: report_match,
        relay: report_relay,
        leave: report_leave,
        errors,
        cleanup_errors,
        disconnects,
        disconnect_reasons,
        bad_frames,
        unexpected_chat_ended,
        typing_misrouted,
        other_events,
        warnings,
        cpu,
        failures: ctx.failures,
        ok,
    })
}

/// Opens every user's socket, at most `--connect-concurrency` at once, and waits for the
/// `hello`s.
async fn connect_all(ctx: &mut Ctx, sources: &[Ipv4Addr]) -> ConnectReport {
    let n = ctx.users.len();
    let run = ctx.run.clone();
    let t0 = Instant::now();
    let jobs = (0..n).map(|i| {
        let target = ctx.targets[i % ctx.targets.len()].clone();
        let source = (!sources.is_empty()).then(|| sources[i % sources.len()]);
        let origin = ctx
            .opts
            .origin
            .clone()
            .unwrap_or_else(|| target.origin.clone());
        let cookie = ctx.sessions[i].cookie.clone();
        let run = run.clone();
        async move {
            let start_us = run.now_us();
            let result = wsclient::connect(&target, source, &origin, &cookie).await;
            (i, start_us, run.now_us() - start_us, result)
        }
    });
    let mut done = futures_util::stream::iter(jobs).buffer_unordered(ctx.opts.connect_concurrency);
    let mut report = ConnectReport {
        users: n,
        source_addrs: sources.len(),
        concurrency: ctx.opts.connect_concurrency,
        ..ConnectReport::default()
    };
    let mut latencies = Vec::with_capacity(n);
    while let Some((i, start_us, took_us, result)) = done.next().await {
        match result {
            Ok(ws) => {
                let (tx, rx) = unbounded_channel();
                let h = &mut ctx.users[i];
                {
                    let mut s = lock(&h.state);
                    s.connected = true;
                    s.connect_us = start_us;
                }
                h.tx = Some(tx);
                h.task = Some(tokio::spawn(user::task(
                    run.clone(),
                    i,
                    ws,
                    rx,
                    h.state.clone(),
                )));
                report.connected += 1;
                latencies.push(took_us as i64);
            }
            Err(kind) => {
                report.failed += 1;
                *report.failures.entry(kind).or_default() += 1;
            }
        }
    }
    drop(done);
    let elapsed = t0.elapsed().as_secs_f64();
    report.duration_s = round2(elapsed);
    report.per_sec = if elapsed > 0.0 {
        round2(report.connected as f64 / elapsed)
    } else {
        0.0
    };
    report.latency_ms = Summary::of_us(latencies);
    let connected = report.connected as u64;
    wait_until(Instant::now() + HELLO_TIMEOUT, || {
        run.progress.hello.load(Ordering::Relaxed) >= connected
    })
    .await;
    let mut hello = Vec::new();
    for (i, h) in ctx.users.iter().enumerate() {
        let s = lock(&h.state);
        if s.connect_us == 0 {
            continue;
        }
        match (s.hello_us, s.hello_user_id) {
            (Some(at), Some(id)) => {
                hello.push(at as i64 - s.connect_us as i64);
                if id != run.user_ids[i] {
                    report.hello_mismatch += 1;
                }
            }
            _ => report.missing_hello += 1,
        }
    }
    report.hello_ms = Summary::of_us(hello);
    report
}

/// Leaves the rooms `hello` says users still sit in (from an earlier run); how many.
async fn cleanup(ctx: &Ctx) -> usize {
    ctx.run.set_phase(Phase::Cleanup);
    let mut stale = 0;
    for h in &ctx.users {
        let room = lock(&h.state).stale_room.clone();
        if let Some(room) = room {
            stale += 1;
            h.send(Cmd::Send(frame("leaveRoom", json!({ "roomId": room }))));
        }
    }
    if stale > 0 {
        eprintln!("loadtest: {stale} users sat in rooms of an earlier run; leaving them first");
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    stale
}

/// Closes every socket and waits (a little) for the tasks to end.
async fn close_all(ctx: &mut Ctx) {
    for h in &mut ctx.users {
        if let Some(tx) = h.tx.take() {
            let _ = tx.send(Cmd::Close);
        }
    }
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    for h in &mut ctx.users {
        if let Some(task) = h.task.take() {
            let abort = task.abort_handle();
            if tokio::time::timeout_at(deadline, task).await.is_err() {
                abort.abort();
            }
        }
    }
}

impl WsReport {
    pub fn table(&self) -> String {
        let mut out = Vec::new();
        let c = &self.connect;
        out.push(format!(
            "{} run {}: {} users at {} (sessions from #{})",
            self.scenario,
            self.run_id,
            self.users,
            self.urls.join(", "),
            self.skip
        ));
        out.push(format!(
            "connect: {}/{} in {:.2} s ({:.0}/s, {} source addresses, {} at once); {}; hello {}",
            c.connected,
            c.users,
            c.duration_s,
            c.per_sec,
            c.source_addrs,
            c.concurrency,
            c.latency_ms.line(),
            c.hello_ms.line()
        ));
        for (k, n) in &c.failures {
            out.push(format!("  connect failure {k} ×{n}"));
        }
        if c.stale_rooms > 0 {
            out.push(format!(
                "  {} users left rooms of an earlier run first",
                c.stale_rooms
            ));
        }
        if let Some(o) = &self.online {
            out.extend(o.lines());
        }
        if let Some(p) = &self.per_connection {
            let f = |x: Option<f64>, unit: &str| {
                x.map(|v| format!("{v:.2} {unit}"))
                    .unwrap_or_else(|| "- (no --pids)".to_owned())
            };
            out.push(format!(
                "per connection: server RSS {}, server CPU to connect {}, held {}",
                f(p.server_rss_kb, "KB"),
                f(p.server_cpu_ms_to_connect, "ms"),
                f(p.server_cpu_us_per_sec_held, "µs/s")
            ));
        }
        if let Some(m) = &self.matching {
            out.extend(m.lines());
        }
        if let Some(r) = &self.relay {
            out.extend(r.lines());
        }
        if let Some(l) = &self.leave {
            out.extend(l.lines());
        }
        for (k, n) in &self.errors {
            out.push(format!("error frame {k} ×{n}"));
        }
        if self.cleanup_errors > 0 {
            out.push(format!(
                "error frames while leaving old rooms (expected): {}",
                self.cleanup_errors
            ));
        }
        if self.disconnects > 0 {
            for (k, n) in &self.disconnect_reasons {
                out.push(format!("disconnected by the server: {k} ×{n}"));
            }
        }
        if !self.other_events.is_empty() {
            let list = self
                .other_events
                .iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect::<Vec<_>>()
                .join(", ");
            out.push(format!("other frames: {list}"));
        }
        out.extend(self.cpu.lines());
        for w in &self.warnings {
            out.push(format!("warning: {w}"));
        }
        if self.ok {
            out.push("correctness: ok".to_owned());
        } else {
            out.push(format!(
                "correctness: FAILED ({} checks)",
                self.failures.len()
            ));
            for f in &self.failures {
                out.push(format!("  - {f}"));
            }
        }
        let mut text = out.join("\n");
        text.push('\n');
        text
    }
}
