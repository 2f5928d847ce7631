//! One virtual user: a task that owns its socket, writes what the run tells it to, and
//! reads every frame the server sends, keeping what it saw in its [`UserState`].

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::json;
use tokio::sync::mpsc::UnboundedReceiver;
use tokio_tungstenite::tungstenite::Message;

use crate::wsclient::{
    frame, ChatIn, ErrorIn, HelloIn, Incoming, MatchedIn, OnlineCountIn, RoomRefIn, Ws,
};

/// Characters of a `--long` message (the server allows 1000 after trimming).
pub const LONG_MESSAGE_CHARS: usize = 900;

/// What the run is doing; frames are judged by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Phase {
    Connect = 0,
    /// Leaving rooms left over from an earlier run: its errors and chatEnded are expected.
    Cleanup = 1,
    Main = 2,
    Closing = 3,
}

/// Counters the run watches while it waits, bumped by the user tasks.
#[derive(Debug, Default)]
pub struct Progress {
    pub hello: AtomicU64,
    pub matched: AtomicU64,
    pub sent: AtomicU64,
    pub send_failed: AtomicU64,
    pub echoes: AtomicU64,
    pub delivered: AtomicU64,
    pub misrouted: AtomicU64,
    pub chat_ended: AtomicU64,
    pub probe_answers: AtomicU64,
    pub disconnects: AtomicU64,
}

/// What every user task shares.
#[derive(Debug)]
pub struct Run {
    /// Marks this run's messages, so that others' are told apart.
    pub id: String,
    pub t0: Instant,
    /// Unix milliseconds at `t0`, to compare with the server's timestamps.
    pub wall0_ms: f64,
    /// Session user ids, by user index.
    pub user_ids: Vec<i64>,
    pub index_of: HashMap<i64, usize>,
    /// When each user's leaveRoom went out, µs since `t0`; 0 while it has not.
    pub leave_sent_us: Vec<AtomicU64>,
    pub long: bool,
    pub typing: bool,
    phase: AtomicU8,
    pub progress: Progress,
}

impl Run {
    pub fn new(id: String, user_ids: Vec<i64>, long: bool, typing: bool) -> Self {
        let wall0_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs_f64() * 1000.0)
            .unwrap_or(0.0);
        Self {
            id,
            t0: Instant::now(),
            wall0_ms,
            index_of: user_ids.iter().enumerate().map(|(i, &u)| (u, i)).collect(),
            leave_sent_us: user_ids.iter().map(|_| AtomicU64::new(0)).collect(),
            user_ids,
            long,
            typing,
            phase: AtomicU8::new(Phase::Connect as u8),
            progress: Progress::default(),
        }
    }

    /// Microseconds since `t0` (at least 1, so that 0 can mean "never").
    pub fn now_us(&self) -> u64 {
        (self.t0.elapsed().as_micros() as u64).max(1)
    }

    pub fn at_us(&self, us: u64) -> Instant {
        self.t0 + Duration::from_micros(us)
    }

    pub fn phase(&self) -> Phase {
        match self.phase.load(Ordering::Relaxed) {
            0 => Phase::Connect,
            1 => Phase::Cleanup,
            2 => Phase::Main,
            _ => Phase::Closing,
        }
    }

    pub fn set_phase(&self, phase: Phase) {
        self.phase.store(phase as u8, Ordering::Relaxed);
    }
}

/// What the run asks a user task to do.
#[derive(Debug)]
pub enum Cmd {
    /// Write this frame.
    Send(String),
    /// Write this join_match frame, noting when.
    Join(String),
    /// Chat message `seq` (typing around it with `--typing`), due at `due_us`.
    Chat { seq: u32, due_us: u64 },
    /// Write this leaveRoom frame, noting when.
    Leave(String),
    /// Ask for the online count and note the answer.
    Probe,
    /// Close the socket and end.
    Close,
}

/// Everything one user saw.
#[derive(Debug, Default)]
pub struct UserState {
    pub connected: bool,
    pub connect_us: u64,
    pub hello_us: Option<u64>,
    pub hello_user_id: Option<i64>,
    /// The room `hello` said the user still sits in, from an earlier run.
    pub stale_room: Option<String>,
    pub online_last: Option<u64>,
    pub online_events: u64,
    pub probe_sent: bool,
    pub probe_answer: Option<u64>,

    pub word: Option<String>,
    pub join_us: Option<u64>,
    pub matched_count: u32,
    pub matched_us: Option<u64>,
    pub room_id: Option<String>,
    pub matched_word: Option<String>,
    pub partner_id: Option<i64>,
    /// The partner's user index, when the partner is one of this run's users.
    pub partner: Option<usize>,
    pub unsolicited_matched: u32,
    pub match_waiting: u32,
    pub match_expired: u32,

    /// Per message sequence number: when it went out (µs since t0), 0 if not.
    pub sent_us: Vec<u64>,
    pub acked: Vec<bool>,
    pub duplicate_echoes: u64,
    pub echo_us: Vec<i64>,
    pub send_lag_us: Vec<i64>,
    /// The partner's messages seen, by sequence number.
    pub seen: Vec<bool>,
    pub duplicated: u64,
    pub misrouted: u64,
    pub foreign: u64,
    /// (receive time µs since t0, latency µs) of each delivery.
    pub deliveries: Vec<(u64, i64)>,
    pub up_us: Vec<i64>,
    pub down_us: Vec<i64>,
    pub typing_sent: u64,
    pub typing_in: u64,
    pub stop_typing_in: u64,
    pub typing_misrouted: u64,

    pub chat_ended: bool,
    pub chat_ended_us: Option<i64>,
    pub chat_ended_self: u32,
    pub chat_ended_other: u32,

    /// `event CODE` → count, outside the cleanup.
    pub errors: BTreeMap<String, u64>,
    pub cleanup_errors: u64,
    pub bad_frames: u64,
    pub other_events: BTreeMap<String, u64>,
    /// Why the server closed the socket, when it did.
    pub disconnect: Option<String>,
}

pub type Shared = Arc<Mutex<UserState>>;

pub fn lock(state: &Shared) -> MutexGuard<'_, UserState> {
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Runs user `i` on `ws` until told to close or the server closes.
pub async fn task(
    run: Arc<Run>,
    i: usize,
    mut ws: Ws,
    mut rx: UnboundedReceiver<Cmd>,
    state: Shared,
) {
    let mut closing: Option<tokio::time::Instant> = None;
    loop {
        let far = tokio::time::Instant::now() + Duration::from_secs(3600);
        tokio::select! {
            cmd = rx.recv(), if closing.is_none() => match cmd {
                Some(Cmd::Close) | None => {
                    let _ = ws.close(None).await;
                    closing = Some(tokio::time::Instant::now() + Duration::from_secs(2));
                }
                Some(cmd) => {
                    if let Err(e) = perform(&run, i, &mut ws, cmd, &state).await {
                        gone(&run, &state, format!("write: {e}"));
                        break;
                    }
                }
            },
            next = ws.next() => match next {
                Some(Ok(Message::Text(text))) => on_frame(&run, i, &state, &text),
                Some(Ok(Message::Binary(_))) => lock(&state).bad_frames += 1,
                Some(Ok(Message::Close(close))) => {
                    if closing.is_none() {
                        let why = close
                            .map(|c| format!("close {}", u16::from(c.code)))
                            .unwrap_or_else(|| "close".to_owned());
                        gone(&run, &state, why);
                    }
                    // Answer the close handshake (done by the next read), then stop.
                    if closing.is_none() {
                        closing = Some(tokio::time::Instant::now() + Duration::from_secs(2));
                    }
                }
                Some(Ok(_)) => {}
                Some(Err(e)) => {
                    if closing.is_none() {
                        gone(&run, &state, format!("error: {e}"));
                    }
                    break;
                }
                None => {
                    if closing.is_none() {
                        gone(&run, &state, "end of stream".to_owned());
                    }
                    break;
                }
            },
            () = tokio::time::sleep_until(closing.unwrap_or(far)), if closing.is_some() => break,
        }
    }
    lock(&state).connected = false;
}

fn gone(run: &Run, state: &Shared, why: String) {
    let mut s = lock(state);
    s.connected = false;
    if run.phase() != Phase::Closing && s.disconnect.is_none() {
        s.disconnect = Some(why);
        run.progress.disconnects.fetch_add(1, Ordering::Relaxed);
    }
}

async fn send(ws: &mut Ws, text: String) -> Result<(), tokio_tungstenite::tungstenite::Error> {
    ws.send(Message::Text(text.into())).await
}

async fn perform(
    run: &Run,
    i: usize,
    ws: &mut Ws,
    cmd: Cmd,
    state: &Shared,
) -> Result<(), tokio_tungstenite::tungstenite::Error> {
    match cmd {
        Cmd::Send(text) => send(ws, text).await,
        Cmd::Join(text) => {
            lock(state).join_us = Some(run.now_us());
            send(ws, text).await
        }
        Cmd::Leave(text) => {
            run.leave_sent_us[i].store(run.now_us(), Ordering::Relaxed);
            send(ws, text).await
        }
        Cmd::Probe => {
            {
                let mut s = lock(state);
                s.probe_sent = true;
                s.probe_answer = None;
            }
            send(ws, frame("getOnlineCount", json!({}))).await
        }
        Cmd::Chat { seq, due_us } => {
            let Some(room) = lock(state).room_id.clone() else {
                run.progress.send_failed.fetch_add(1, Ordering::Relaxed);
                return Ok(());
            };
            if run.typing {
                if let Err(e) = send(ws, frame("typing", json!({ "roomId": room }))).await {
                    run.progress.send_failed.fetch_add(1, Ordering::Relaxed);
                    return Err(e);
                }
                lock(state).typing_sent += 1;
            }
            let sent_us = run.now_us();
            let mut text = message_text(&run.id, i, seq, sent_us);
            if run.long {
                let pad = LONG_MESSAGE_CHARS.saturating_sub(text.len());
                text.extend(std::iter::repeat_n('x', pad));
            }
            let chat = frame(
                "chatMessage",
                json!({ "roomId": room, "message": text, "clientId": format!("{}-{i}-{seq}", run.id) }),
            );
            // Noted before the write: the echo may come back before the next look.
            {
                let mut s = lock(state);
                if let Some(slot) = s.sent_us.get_mut(seq as usize) {
                    *slot = sent_us;
                }
                s.send_lag_us.push(sent_us as i64 - due_us as i64);
            }
            if let Err(e) = send(ws, chat).await {
                if let Some(slot) = lock(state).sent_us.get_mut(seq as usize) {
                    *slot = 0;
                }
                run.progress.send_failed.fetch_add(1, Ordering::Relaxed);
                return Err(e);
            }
            run.progress.sent.fetch_add(1, Ordering::Relaxed);
            if run.typing {
                send(ws, frame("stopTyping", json!({ "roomId": room }))).await?;
                lock(state).typing_sent += 1;
            }
            Ok(())
        }
        // Handled by the task.
        Cmd::Close => Ok(()),
    }
}

/// The fields a chat text carries: `run|sender|seq|sent_us|padding`.
/// The text of a chat message: the run, the sender, the message's number and when it was
/// sent, each number behind a letter (`r1|u3|s7|t1234|`). Digits apart only by `|` would
/// read as a phone number to the abuse filter, which masks those early in a chat.
pub fn message_text(run: &str, sender: usize, seq: u32, sent_us: u64) -> String {
    format!("{run}|u{sender}|s{seq}|t{sent_us}|")
}

/// Reads back what `message_text` wrote.
pub fn parse_text(text: &str) -> Option<(&str, usize, u32, u64)> {
    let mut parts = text.splitn(5, '|');
    let run = parts.next()?;
    let sender = parts.next()?.strip_prefix('u')?.parse().ok()?;
    let seq = parts.next()?.strip_prefix('s')?.parse().ok()?;
    let sent = parts.next()?.strip_prefix('t')?.parse().ok()?;
    Some((run, sender, seq, sent))
}

fn on_frame(run: &Run, i: usize, state: &Shared, text: &str) {
    let Ok(f) = serde_json::from_str::<Incoming>(text) else {
        lock(state).bad_frames += 1;
        return;
    };
    let me = run.user_ids[i];
    let now = run.now_us();
    let mut s = lock(state);
    match f.event.as_str() {
        "hello" => match serde_json::from_value::<HelloIn>(f.data) {
            Ok(h) => {
                if s.hello_us.is_none() {
                    run.progress.hello.fetch_add(1, Ordering::Relaxed);
                }
                s.hello_us = Some(now);
                s.hello_user_id = Some(h.user_id);
                s.stale_room = h.room_id;
            }
            Err(_) => s.bad_frames += 1,
        },
        "onlineCount" => match serde_json::from_value::<OnlineCountIn>(f.data) {
            Ok(c) => {
                s.online_last = Some(c.count);
                s.online_events += 1;
                if s.probe_sent && s.probe_answer.is_none() {
                    s.probe_answer = Some(c.count);
                    run.progress.probe_answers.fetch_add(1, Ordering::Relaxed);
                }
            }
            Err(_) => s.bad_frames += 1,
        },
        "matched" => match serde_json::from_value::<MatchedIn>(f.data) {
            Ok(m) => {
                if s.join_us.is_none() {
                    s.unsolicited_matched += 1;
                    return;
                }
                s.matched_count += 1;
                if s.matched_count > 1 {
                    return;
                }
                let partner = if m.sender_id == me {
                    m.receiver_id
                } else {
                    m.sender_id
                };
                s.matched_us = Some(now);
                s.room_id = Some(m.room_id);
                s.matched_word = m.word;
                s.partner_id = Some(partner);
                s.partner = run.index_of.get(&partner).copied();
                run.progress.matched.fetch_add(1, Ordering::Relaxed);
            }
            Err(_) => s.bad_frames += 1,
        },
        "matchWaiting" => s.match_waiting += 1,
        "matchExpired" => s.match_expired += 1,
        "chatMessage" => match serde_json::from_value::<ChatIn>(f.data) {
            Ok(c) => on_chat(run, i, &mut s, c, now),
            Err(_) => s.bad_frames += 1,
        },
        "typing" | "stopTyping" => {
            let r: RoomRefIn = serde_json::from_value(f.data).unwrap_or(RoomRefIn {
                room_id: None,
                user_id: None,
            });
            let from_partner = r.user_id.is_some()
                && r.user_id == s.partner_id
                && r.room_id.is_some()
                && r.room_id == s.room_id;
            if !from_partner {
                if run.phase() != Phase::Cleanup {
                    s.typing_misrouted += 1;
                }
            } else if f.event == "typing" {
                s.typing_in += 1;
            } else {
                s.stop_typing_in += 1;
            }
        }
        "chatEnded" => {
            if run.phase() == Phase::Cleanup {
                return;
            }
            let r: RoomRefIn = serde_json::from_value(f.data).unwrap_or(RoomRefIn {
                room_id: None,
                user_id: None,
            });
            let mine = r.room_id.is_some() && r.room_id == s.room_id;
            if run.leave_sent_us[i].load(Ordering::Relaxed) != 0 && mine {
                s.chat_ended_self += 1;
                return;
            }
            let partner_left = s
                .partner
                .map(|p| run.leave_sent_us[p].load(Ordering::Relaxed))
                .filter(|&t| t != 0);
            match partner_left {
                Some(left) if mine && !s.chat_ended => {
                    s.chat_ended = true;
                    s.chat_ended_us = Some(now as i64 - left as i64);
                    run.progress.chat_ended.fetch_add(1, Ordering::Relaxed);
                }
                _ => s.chat_ended_other += 1,
            }
        }
        "error" => {
            let e: ErrorIn = serde_json::from_value(f.data).unwrap_or(ErrorIn {
                event: None,
                code: None,
            });
            if run.phase() == Phase::Cleanup {
                s.cleanup_errors += 1;
            } else {
                let key = format!(
                    "{} {}",
                    e.event.as_deref().unwrap_or("?"),
                    e.code.as_deref().unwrap_or("?")
                );
                *s.errors.entry(key).or_default() += 1;
            }
        }
        other => *s.other_events.entry(other.to_owned()).or_default() += 1,
    }
}

fn on_chat(run: &Run, i: usize, s: &mut UserState, c: ChatIn, now: u64) {
    let me = run.user_ids[i];
    let Some((run_id, sender, seq, sent_us)) = parse_text(&c.message) else {
        s.foreign += 1;
        return;
    };
    if run_id != run.id {
        s.foreign += 1;
        return;
    }
    let latency = now as i64 - sent_us as i64;
    if c.sender_id == me {
        // The server's acknowledgement: this user's own message back.
        if sender != i {
            s.misrouted += 1;
            run.progress.misrouted.fetch_add(1, Ordering::Relaxed);
            return;
        }
        match s.acked.get_mut(seq as usize) {
            Some(true) => s.duplicate_echoes += 1,
            Some(slot) => {
                *slot = true;
                s.echo_us.push(latency);
                run.progress.echoes.fetch_add(1, Ordering::Relaxed);
            }
            None => s.misrouted += 1,
        }
        return;
    }
    let from_partner = Some(sender) == s.partner
        && Some(c.sender_id) == s.partner_id
        && Some(&c.room_id) == s.room_id.as_ref();
    if !from_partner || seq as usize >= s.seen.len() {
        s.misrouted += 1;
        run.progress.misrouted.fetch_add(1, Ordering::Relaxed);
        return;
    }
    if s.seen[seq as usize] {
        s.duplicated += 1;
        return;
    }
    s.seen[seq as usize] = true;
    s.deliveries.push((now, latency));
    if let Some(ts) = c.timestamp {
        let sent_ms = run.wall0_ms + sent_us as f64 / 1000.0;
        let recv_ms = run.wall0_ms + now as f64 / 1000.0;
        s.up_us.push(((ts as f64 - sent_ms) * 1000.0) as i64);
        s.down_us.push(((recv_ms - ts as f64) * 1000.0) as i64);
    }
    run.progress.delivered.fetch_add(1, Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_of(n: usize) -> Run {
        Run::new(
            "r1".into(),
            (0..n as i64).map(|k| 100 + k).collect(),
            false,
            false,
        )
    }

    fn state() -> Shared {
        Arc::new(Mutex::new(UserState::default()))
    }

    fn chat(room: &str, sender: i64, text: &str) -> String {
        frame(
            "chatMessage",
            json!({"id": "1-0", "roomId": room, "senderId": sender, "message": text, "timestamp": 1}),
        )
    }

    #[test]
    fn reads_chat_texts() {
        assert_eq!(parse_text("ab|u3|s7|t1234|xxx"), Some(("ab", 3, 7, 1234)));
        assert_eq!(
            parse_text(&message_text("ab", 3, 7, 1234)),
            Some(("ab", 3, 7, 1234))
        );
        assert_eq!(parse_text("ab|3|7|1234|"), None);
        assert_eq!(parse_text("hello"), None);
    }

    #[test]
    fn counts_matches_deliveries_and_misroutes() {
        let run = run_of(3);
        let (a, b) = (state(), state());
        lock(&a).join_us = Some(1);
        lock(&b).join_us = Some(1);
        let matched = |me: i64, other: i64| {
            frame(
                "matched",
                json!({"roomId": "R", "word": "봄", "round": 1, "senderId": me, "receiverId": other}),
            )
        };
        on_frame(&run, 0, &a, &matched(100, 101));
        on_frame(&run, 1, &b, &matched(101, 100));
        on_frame(&run, 1, &b, &matched(101, 100));
        assert_eq!(lock(&a).partner, Some(1));
        assert_eq!(lock(&b).matched_count, 2);
        assert_eq!(run.progress.matched.load(Ordering::Relaxed), 2);

        for s in [&a, &b] {
            let mut s = lock(s);
            s.sent_us = vec![0; 2];
            s.acked = vec![false; 2];
            s.seen = vec![false; 2];
        }
        // b gets a's message twice, a gets its echo.
        on_frame(&run, 1, &b, &chat("R", 100, "r1|u0|s0|t5|"));
        on_frame(&run, 1, &b, &chat("R", 100, "r1|u0|s0|t5|"));
        on_frame(&run, 0, &a, &chat("R", 100, "r1|u0|s0|t5|"));
        // A message that claims another sender, one of another run, one past the end.
        on_frame(&run, 1, &b, &chat("R", 102, "r1|u2|s1|t5|"));
        on_frame(&run, 1, &b, &chat("R", 100, "zz|u0|s1|t5|"));
        on_frame(&run, 1, &b, &chat("R", 100, "r1|u0|s9|t5|"));
        let sb = lock(&b);
        assert_eq!(sb.seen, [true, false]);
        assert_eq!((sb.duplicated, sb.misrouted, sb.foreign), (1, 2, 1));
        assert_eq!(sb.deliveries.len(), 1);
        assert_eq!(lock(&a).acked, [true, false]);
        assert_eq!(run.progress.delivered.load(Ordering::Relaxed), 1);
        assert_eq!(run.progress.echoes.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn tells_chat_ended_by_who_left() {
        let run = run_of(2);
        let (a, b) = (state(), state());
        for (s, p) in [(&a, 1), (&b, 0)] {
            let mut s = lock(s);
            s.room_id = Some("R".into());
            s.partner = Some(p);
            s.partner_id = Some(100 + p as i64);
        }
        run.set_phase(Phase::Main);
        let ended = frame(
            "chatEnded",
            json!({"roomId": "R", "reason": "left", "byUserId": 100}),
        );
        // Before anyone left, a chatEnded is unexpected.
        on_frame(&run, 1, &b, &ended);
        assert_eq!(lock(&b).chat_ended_other, 1);
        run.leave_sent_us[0].store(10, Ordering::Relaxed);
        on_frame(&run, 1, &b, &ended);
        on_frame(&run, 0, &a, &ended);
        assert!(lock(&b).chat_ended);
        assert_eq!(lock(&a).chat_ended_self, 1);
        assert_eq!(run.progress.chat_ended.load(Ordering::Relaxed), 1);

        run.set_phase(Phase::Cleanup);
        on_frame(
            &run,
            1,
            &b,
            &frame(
                "error",
                json!({"event": "leaveRoom", "code": "NOT_IN_ROOM"}),
            ),
        );
        run.set_phase(Phase::Main);
        on_frame(
            &run,
            1,
            &b,
            &frame(
                "error",
                json!({"event": "join_match", "code": "RATE_LIMITED"}),
            ),
        );
        let sb = lock(&b);
        assert_eq!(sb.cleanup_errors, 1);
        assert_eq!(sb.errors["join_match RATE_LIMITED"], 1);
    }
}
