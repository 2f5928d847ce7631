//! A socket's life on this node, from its upgrade to its close: attaching it (routing
//! the user's events here), the frame allowance, reading and dispatching its frames to the
//! rules, resuming a chat, the writer, and detaching it. The way in (`api::socket`)
//! authenticates the upgrade and hands the stream here, with the [`Services`] the socket
//! speaks for above real time (accounts, payments), as Centrifuge's node hands a client
//! its handlers.

use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use poem::web::websocket::{CloseCode, Message, WebSocketStream};
use telepathy_domain::limits::{SOCKETS_PER_USER, SOCKET_FRAMES_PER_WINDOW, SOCKET_FRAME_WINDOW};
use telepathy_domain::ErrorCode;
use telepathy_engine::{EngineError, Room};
use telepathy_store::User;

use super::hub::{Control, Counted, FrameLimit, Frames, Kick, Queue, Registered, Take, Unspent};
use super::Realtime;
use crate::wire::{
    event_name, frame, ChatEnded, ClientFrame, EndReason, Hello, OnlineCount, Resume, Resumed,
    SocketError,
};

/// How often an open socket re-checks that its session still lives, as a safety net:
/// revocations (logout, password change, withdrawal) ring the socket at once over the bus,
/// which never skips an event in silence. Every socket's turn is spread over the period,
/// so 10,000 idle sockets cost about 30 database reads a second, not 300.
const SESSION_CHECK: Duration = Duration::from_secs(300);
const PING_EVERY: Duration = Duration::from_secs(25);

/// What a user may send over all their sockets, on every node.
const FRAME_LIMIT: FrameLimit = FrameLimit {
    frames: SOCKET_FRAMES_PER_WINDOW,
    window: SOCKET_FRAME_WINDOW,
};

/// What a socket asks of the node's services above real time.
#[async_trait::async_trait]
pub trait Services: Send + Sync + 'static {
    /// The user of the session `token_hash` while it lives (read again: a new nickname);
    /// `Err` when the store does not answer, which is not a logout.
    async fn session_user(&self, token_hash: &str) -> Result<Option<User>, ()>;
    /// The frame that tells a client why its session ended: a suspension or ban says why
    /// and until when; any other end is a logout.
    async fn why_it_ended(&self, user_id: i64) -> String;
    /// `sendMegaphone` (`event`) of `user`: the frame to answer with (`megaphoneSent`, or
    /// an error that says more than its code), or the code it was refused with.
    async fn send_megaphone(
        &self,
        user: &User,
        text: &str,
        event: &str,
    ) -> Result<String, ErrorCode>;
    /// Counts a message of `user_id`'s that the abuse filter masked, toward an automatic
    /// report.
    fn count_masked(&self, room_id: &str, user_id: i64);
}

/// Who opened a socket, on which node, and what it speaks for.
pub struct Opened {
    pub realtime: Realtime,
    pub services: Arc<dyn Services>,
    pub user: User,
    pub token_hash: String,
    /// Whom the user is kept apart from, read with the session.
    pub apart: Vec<i64>,
}

type Incoming = futures_util::stream::SplitStream<WebSocketStream>;

/// One socket, from its upgrade to its close. Most sockets idle for minutes, so what its
/// task holds all along is kept small: its arguments stay in the task for its whole life
/// (hence one box of them), and what runs once (attaching and `hello`, detaching) is
/// boxed, as is the handling of each frame, so the
/// task holds its loop's state and not the space of the largest step it ever takes.
///
/// The stream is split before the task begins (hence a plain function that returns the
/// task): what a task is handed stays in it for the socket's life.
pub fn run(opened: Box<Opened>, stream: WebSocketStream) -> impl std::future::Future<Output = ()> {
    let (sink, incoming) = stream.split();
    live(opened, sink, incoming)
}

async fn live(opened: Box<Opened>, sink: Sink, mut incoming: Incoming) {
    let Opened {
        realtime,
        services,
        user,
        token_hash,
        apart,
    } = *opened;
    let Registered {
        id: conn,
        instance,
        reply,
        outgoing,
        control,
    } = realtime.hub.register(user.id);
    tracing::debug!(user_id = user.id, conn, "socket open");
    let mut socket = Socket {
        realtime: &realtime,
        services: &*services,
        user,
        reply: &reply,
        control: &control,
        room: None,
        apart: Some(apart),
        typing: false,
    };

    let (attached, hello) =
        Box::pin(attach(&realtime, &instance, &socket.user, conn, &control)).await;
    // An attach that failed in time may still have been applied: only one the engine
    // refused (the instance is not live) needs no detach.
    let must_detach = !matches!(attached, Err(EngineError::Dropped));

    let mut writer = tokio::spawn(write(sink, hello, outgoing, Arc::clone(&control)));
    let mut writer_done = false;
    if attached.is_ok() {
        // A megaphone on air (or waiting) is seen by a screen that opens meanwhile too.
        for megaphone in realtime.on_air.frames(realtime.clock.now_ms()) {
            let _ = reply.try_send(megaphone);
        }
    }

    let first_check = SESSION_CHECK.mul_f64(rand::random::<f64>().max(0.01));
    let mut session_check =
        tokio::time::interval_at(tokio::time::Instant::now() + first_check, SESSION_CHECK);
    loop {
        let then = tokio::select! {
            next = incoming.next() => match next {
                Some(Ok(Message::Close(_))) | None => break,
                Some(Err(e)) => {
                    if is_too_big(&e) {
                        realtime.hub.kick(&control, Kick::TooBig);
                    }
                    break;
                }
                Some(Ok(message)) => {
                    // Every frame counts, before any other work on it.
                    let counted = realtime.hub.count_frame(socket.user.id, realtime.clock.now_ms(), FRAME_LIMIT);
                    let frames = match counted {
                        Counted::Decided(frames) => frames,
                        // Boxed: once a part of the allowance, not carried by an idle socket.
                        Counted::Take(take) => Box::pin(take_part(&realtime, take)).await,
                    };
                    match frames {
                        Frames::Allowed => {
                            if let Message::Text(text) = message {
                                // Boxed: the handlers' futures are large, and an idle
                                // socket should not carry their space.
                                Box::pin(socket.handle(&text)).await;
                            }
                        }
                        Frames::Refused => {
                            if let Message::Text(text) = message {
                                socket.refuse(&event_name(&text), ErrorCode::RateLimited);
                            }
                        }
                        Frames::Flood => {
                            realtime.hub.kick(&control, Kick::Flood);
                            break;
                        }
                    }
                    Then::Read
                }
            },
            _ = session_check.tick() => Then::CheckSession,
            () = control.recheck.notified() => Then::Rang,
            // Kicked: the reader is not done while it listens.
            _ = control.closing() => break,
            // The writer stopped: the peer is gone.
            _ = &mut writer, if !writer_done => {
                writer_done = true;
                break;
            }
        };
        if matches!(then, Then::Read) {
            continue;
        }
        if !Box::pin(socket.recheck(&token_hash)).await {
            Box::pin(socket.say_why_it_ended()).await;
            break;
        }
        if matches!(then, Then::Rang) {
            // A block rings the bell too: the list is read again now, not on the way
            // of the next join.
            Box::pin(socket.read_apart()).await;
        }
    }
    // The writer writes what waits (the reason a session ended, say) and closes.
    control.finish();
    let user_id = socket.user.id;
    // At once, not after the detach: a client the node closed reconnects elsewhere soon.
    if let Some(unspent) = realtime
        .hub
        .unspent(user_id, realtime.clock.now_ms(), FRAME_LIMIT)
    {
        tokio::spawn(give_back(realtime.clone(), unspent));
    }
    drop(socket);
    drop(reply);
    if must_detach {
        Box::pin(detach(&realtime, &instance, user_id, conn)).await;
    }
    // Let the writer flush what is queued (a close frame, say), then stop it (a peer that
    // stopped reading must not keep it waiting on the network). Before the socket leaves
    // the hub: a node shutting down waits for its hub to empty, so that every client
    // reads why its socket closed.
    if !writer_done {
        let stop = writer.abort_handle();
        if Box::pin(tokio::time::timeout(Duration::from_secs(1), writer))
            .await
            .is_err()
        {
            stop.abort();
        }
    }
    realtime.hub.unregister(user_id, conn);
    tracing::debug!(user_id, conn, "socket closed");
}

/// How long a frame waits for the next part of its user's allowance before the node
/// counts that user's window alone: most frames need the engine for their own work too,
/// and a call waits for a shared part that does not answer at most once (see "Outages"
/// in ARCHITECTURE.md). A part taken later than that is left unspent until the window
/// ends.
const TAKE_WAIT: Duration = Duration::from_millis(500);

/// Takes the next part of the user's frame allowance from the engine, and decides the
/// frame that found the last part spent.
async fn take_part(realtime: &Realtime, take: Take) -> Frames {
    let key = take.key();
    // The take runs on its own: one that answers after the frame stopped waiting is given
    // back at once, or the shared allowance would stay short of it until the window ends
    // (a Redis failover holds every take for seconds).
    let (answer_tx, answer_rx) = tokio::sync::oneshot::channel();
    let taking = {
        let realtime = realtime.clone();
        let (part, frames, kept) = (take.part, take.limit.frames, take.limit.kept());
        async move {
            let answer = realtime
                .metrics
                .engine("take", realtime.engine.take(&key, part, frames, kept))
                .await;
            if let Err(Ok(late)) = answer_tx.send(answer) {
                if late > 0 {
                    let given = realtime
                        .metrics
                        .engine("give_back", realtime.engine.give_back(&key, late))
                        .await;
                    if let Err(e) = given {
                        tracing::debug!(error = %e, "giving back a part taken too late");
                    }
                }
            }
        }
    };
    tokio::spawn(taking);
    let answer = match tokio::time::timeout(TAKE_WAIT, answer_rx).await {
        Ok(Ok(Ok(part))) => Some(part),
        Ok(Ok(Err(e))) => {
            tracing::warn!(error = %e, "taking a part of a frame allowance; counting on this node alone");
            None
        }
        Ok(Err(_)) | Err(_) => {
            tracing::warn!("no part of a frame allowance in time; counting on this node alone");
            None
        }
    };
    realtime.hub.taken(take, answer)
}

/// Gives the engine back what the user's frames did not spend of the part this node took.
/// Left undone (the engine away), the user finds that much less on another node until the
/// window ends.
async fn give_back(realtime: Realtime, unspent: Unspent) {
    let key = unspent.key();
    let given = realtime
        .metrics
        .engine("give_back", realtime.engine.give_back(&key, unspent.frames))
        .await;
    if let Err(e) = given {
        tracing::debug!(error = %e, "giving back a part of a frame allowance");
    }
}

/// Routes the user's events to this socket from now on, then reads their state for
/// `hello` (so no event falls between the two); a failed attach closes the socket for a
/// resync instead. A socket beyond the user's `SOCKETS_PER_USER` closes their oldest,
/// wherever it is.
async fn attach(
    realtime: &Realtime,
    instance: &str,
    user: &User,
    conn: u64,
    control: &Control,
) -> (Result<(), EngineError>, Option<String>) {
    let attached = realtime
        .metrics
        .engine(
            "attach",
            realtime
                .engine
                .attach(instance, user.id, conn, SOCKETS_PER_USER),
        )
        .await;
    let hello = match &attached {
        Ok(beyond) => {
            let closing = beyond.iter().map(|at| realtime.close_replaced(user.id, at));
            futures_util::future::join_all(closing).await;
            Some(hello(realtime, user).await)
        }
        Err(e) => {
            tracing::warn!(error = %e, "attaching a socket");
            realtime.hub.kick(control, Kick::Resync);
            None
        }
    };
    (attached.map(|_| ()), hello)
}

/// The first wait before a failed detach is said again; each next wait doubles, up to
/// [`DETACH_WAIT_MAX`], for [`DETACH_TRIES`] tries.
const DETACH_WAIT: Duration = Duration::from_millis(500);
const DETACH_WAIT_MAX: Duration = Duration::from_secs(30);
const DETACH_TRIES: u32 = 12;

/// Detaches a closed socket: with the user's last socket anywhere, they stop counting as
/// online and waiting for a match, and the away sweep ends their chat after the grace
/// period. A detach that fails (Redis too slow, as when many thousands of sockets close
/// at once, or away) is said again in the background, with jittered waits that double:
/// left undone, the user would count as online, and could be matched, for as long as
/// the node lives. The engine keeps sockets, not counts, so a detach said twice (its
/// first answer lost to a timeout) counts once.
async fn detach(realtime: &Realtime, instance: &str, user_id: i64, conn: u64) {
    let since = realtime.clock.now_ms();
    let once = {
        let (realtime, instance) = (realtime.clone(), instance.to_owned());
        move || {
            let (realtime, instance) = (realtime.clone(), instance.clone());
            async move {
                realtime
                    .metrics
                    .engine(
                        "detach",
                        realtime.engine.detach(&instance, user_id, conn, since),
                    )
                    .await
            }
        }
    };
    let Err(e) = once().await else {
        return;
    };
    tracing::warn!(error = %e, user_id, "detaching a socket; saying it again later");
    tokio::spawn(async move {
        if !again_until_done(once, DETACH_WAIT, DETACH_WAIT_MAX, DETACH_TRIES).await {
            tracing::error!(
                user_id,
                "a socket could not be detached; the user counts as online until this node leaves"
            );
        }
    });
}

/// Calls `call` up to `tries` times until it succeeds, waiting before each call: `wait`
/// at first, then twice the wait before, up to `max`, each jittered by ±50 %. True once
/// a call succeeded.
async fn again_until_done<F, Fut, E>(call: F, wait: Duration, max: Duration, tries: u32) -> bool
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Result<(), E>>,
    E: std::fmt::Display,
{
    let mut wait = wait;
    for _ in 0..tries {
        tokio::time::sleep(wait.mul_f64(0.5 + rand::random::<f64>())).await;
        match call().await {
            Ok(()) => return true,
            Err(e) => tracing::debug!(error = %e, "trying again"),
        }
        wait = (wait * 2).min(max);
    }
    false
}

type Sink = futures_util::stream::SplitSink<WebSocketStream, Message>;

async fn hello(realtime: &Realtime, user: &User) -> String {
    let room = realtime
        .metrics
        .engine("room_of", realtime.engine.room_of(user.id))
        .await
        .ok()
        .flatten();
    let hello = Hello {
        user_id: user.id,
        room_id: room.map(|r| r.id),
        round: realtime.round_state(),
    };
    frame("hello", &hello)
}

/// Writes `hello` first, then whatever is queued, flushing once for all that waited;
/// pings while idle; closes with the reason when the socket is kicked, and after what
/// waits when the reader is done.
async fn write(
    mut sink: Sink,
    hello: Option<String>,
    outgoing: flume::Receiver<String>,
    control: Arc<Control>,
) {
    if let Some(hello) = hello {
        if sink.send(Message::Text(hello)).await.is_err() {
            return;
        }
    }
    let mut ping = tokio::time::interval(PING_EVERY);
    ping.tick().await;
    loop {
        tokio::select! {
            // A kicked socket writes nothing more than the frame in hand.
            biased;
            _ = control.closing() => break,
            first = outgoing.recv_async() => {
                // Every sender gone: the socket is closing.
                let Ok(first) = first else { break };
                if !write_all(&mut sink, std::iter::once(first).chain(outgoing.drain())).await {
                    return;
                }
            }
            _ = ping.tick() => if sink.send(Message::Ping(Vec::new())).await.is_err() { return },
        }
    }
    if let Some(why) = control.reason() {
        let (code, reason) = why.close();
        let close = Message::Close(Some((CloseCode::from(code), reason.to_owned())));
        let _ = sink.send(close).await;
        return;
    }
    // The reader is done, or nothing can be queued any more: what waits is written, then
    // the socket is closed with a close frame (the answer to the client's, if it closed).
    if write_all(&mut sink, outgoing.drain()).await {
        let _ = sink.close().await;
    }
}

/// Writes `frames` and flushes once (tungstenite writes to the network whenever its
/// buffer passes `WRITE_BUFFER` on the way); false when the socket failed.
async fn write_all(sink: &mut Sink, frames: impl Iterator<Item = String>) -> bool {
    let mut frames = futures_util::stream::iter(frames.map(|text| Ok(Message::Text(text))));
    sink.send_all(&mut frames).await.is_ok()
}

/// What woke a socket's reader.
enum Then {
    /// A frame came in (and was handled).
    Read,
    /// Time for the periodic session check.
    CheckSession,
    /// The bell: a logout, a password change, a withdrawal or a block somewhere.
    Rang,
}

/// One socket's reader side: who it is, where replies go, and the room it chats in.
struct Socket<'a> {
    realtime: &'a Realtime,
    services: &'a dyn Services,
    user: User,
    reply: &'a Queue,
    control: &'a Control,
    /// The room this socket last sent to; members never change, so it is read once.
    room: Option<Room>,
    /// Whom the user is kept apart from: read with the session when the socket opens (a
    /// crowd joining at once, a new round, never waits on the database), again at the bell.
    apart: Option<Vec<i64>>,
    /// Whether the partner was last told by this socket that its user types.
    typing: bool,
}

impl Socket<'_> {
    /// Re-reads the session (and with it the user: a new nickname); false when it ended.
    async fn recheck(&mut self, token_hash: &str) -> bool {
        match self.services.session_user(token_hash).await {
            Ok(Some(user)) => {
                self.user = user;
                true
            }
            Ok(None) => false,
            // A database hiccup is not a logout: keep the socket and check again later.
            Err(_) => true,
        }
    }

    /// Tells the client why its session ended.
    async fn say_why_it_ended(&self) {
        let notice = self.services.why_it_ended(self.user.id).await;
        let _ = self.reply.try_send(notice);
    }

    /// Reads whom the user is kept apart from; a failure leaves it to the next join.
    async fn read_apart(&mut self) {
        self.apart = self.realtime.kept_apart(self.user.id).await.ok();
    }

    /// Whom the user is kept apart from, as last read (read now if it never was).
    async fn apart(&mut self) -> Result<Vec<i64>, ErrorCode> {
        if let Some(apart) = &self.apart {
            return Ok(apart.clone());
        }
        let apart = self.realtime.kept_apart(self.user.id).await?;
        self.apart = Some(apart.clone());
        Ok(apart)
    }

    /// Reads the user again (keeping what it knew if the database does not answer).
    async fn refresh_user(&mut self) {
        let found = self
            .realtime
            .metrics
            .store("user_by_id", self.realtime.store.user_by_id(self.user.id))
            .await;
        if let Ok(Some(user)) = found {
            self.user = user;
        }
    }

    /// Queues a reply for this socket alone; one that does not fit closes the socket, as
    /// for any event (see `Hub::send_to`).
    fn answer(&self, text: String) {
        if let Err(flume::TrySendError::Full(_)) = self.reply.try_send(text) {
            self.realtime.hub.kick(self.control, Kick::Slow);
        }
    }

    fn refuse(&self, event: &str, code: ErrorCode) {
        self.answer(frame("error", &SocketError::new(event, code)));
    }

    /// The room `room_id` if this user is a member (open or ended: the engine checks
    /// that when it matters).
    async fn room(&mut self, room_id: &str) -> Result<Room, ErrorCode> {
        if let Some(room) = self.room.as_ref().filter(|r| r.id == room_id) {
            return Ok(room.clone());
        }
        let room = self
            .realtime
            .room_for(self.user.id, room_id)
            .await?
            .ok_or(ErrorCode::NotInRoom)?;
        self.room = Some(room.clone());
        Ok(room)
    }

    /// Handles one text frame the limit allowed.
    async fn handle(&mut self, text: &str) {
        let Some(incoming) = ClientFrame::parse(text) else {
            return self.refuse(&event_name(text), ErrorCode::InvalidRequest);
        };
        let event = incoming.event();
        let typing = matches!(incoming, ClientFrame::Typing(_));
        let realtime = self.realtime;
        let result = match incoming {
            ClientFrame::JoinMatch(join) => {
                if self.user.nickname.is_none() {
                    // Set a moment ago, perhaps, with the bell still on its way.
                    self.refresh_user().await;
                }
                match self.apart().await {
                    Ok(apart) => realtime.join_match(&self.user, &join, &apart).await,
                    Err(e) => Err(e),
                }
            }
            ClientFrame::ChatMessage(msg) => match self.room(&msg.room_id).await {
                Ok(room) => {
                    let sent = realtime.send_chat(&self.user, &room, &msg).await;
                    self.typing &= sent.is_err();
                    if sent.is_ok_and(|s| s.masked) {
                        self.services.count_masked(&room.id, self.user.id);
                    }
                    sent.map(drop)
                }
                Err(e) => Err(e),
            },
            ClientFrame::Typing(r) | ClientFrame::StopTyping(r) => {
                match self.room(&r.room_id).await {
                    // A chat message told the partner that typing stopped (the client drops
                    // the indicator when it arrives): the web app's `stopTyping` on send
                    // would tell them again.
                    Ok(_) if !typing && !self.typing => {
                        realtime.metrics.typing.skipped.inc();
                        Ok(())
                    }
                    Ok(room) => {
                        self.typing = typing;
                        realtime.relay_typing(&room, self.user.id, event);
                        Ok(())
                    }
                    Err(e) => Err(e),
                }
            }
            ClientFrame::ChatRead(mark) => match self.room(&mark.room_id).await {
                Ok(room) => realtime.relay_read(&room, self.user.id, &mark),
                Err(e) => Err(e),
            },
            ClientFrame::LeaveRoom(r) => realtime.leave_room(self.user.id, &r.room_id).await,
            ClientFrame::GetOnlineCount(_) => match realtime.engine.online_count().await {
                Ok(count) => {
                    self.answer(frame("onlineCount", &OnlineCount { count }));
                    Ok(())
                }
                Err(e) => Err(crate::error::internal_code("counting users online", e)),
            },
            ClientFrame::SendMegaphone(m) => {
                if self.user.nickname.is_none() {
                    self.refresh_user().await;
                }
                let answer = self.services.send_megaphone(&self.user, &m.message, event);
                answer.await.map(|answer| self.answer(answer))
            }
            ClientFrame::Resume(r) => resume(realtime, self.user.id, self.reply, &r).await,
            ClientFrame::NextQuestion(q) => match self.room(&q.room_id).await {
                Ok(room) => realtime.next_question(&room, q.draw).await,
                Err(e) => Err(e),
            },
        };
        if let Err(code) = result {
            self.refuse(event, code);
        }
    }
}

/// Whether reading failed on a frame or message over the size limit. poem hands
/// tungstenite's errors on as `io::Error`s of their text (`Space limit exceeded: …`).
fn is_too_big(error: &std::io::Error) -> bool {
    error.kind() == std::io::ErrorKind::Other
        && error.to_string().starts_with("Space limit exceeded")
}

async fn resume(
    realtime: &Realtime,
    user_id: i64,
    reply: &Queue,
    r: &Resume,
) -> Result<(), ErrorCode> {
    let (messages, ended) = match realtime
        .missed(user_id, &r.room_id, r.last_id.as_deref())
        .await
    {
        Ok(found) => found,
        Err(ErrorCode::NotInRoom) => {
            let gone = ChatEnded {
                room_id: r.room_id.clone(),
                reason: EndReason::Gone,
                by_user_id: None,
            };
            let _ = reply.send_async(frame("chatEnded", &gone)).await;
            return Ok(());
        }
        Err(e) => return Err(e),
    };
    let count = messages.len() as u64;
    for m in messages {
        // Waiting (not try_send): a long backlog must arrive whole.
        if reply.send_async(frame("chatMessage", &m)).await.is_err() {
            return Ok(());
        }
    }
    let _ = reply
        .send_async(frame(
            "resumed",
            &Resumed {
                room_id: r.room_id.clone(),
                count,
            },
        ))
        .await;
    if ended {
        let over = ChatEnded {
            room_id: r.room_id.clone(),
            reason: EndReason::Left,
            by_user_id: None,
        };
        let _ = reply.send_async(frame("chatEnded", &over)).await;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU32, Ordering};

    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_failed_call_is_tried_again_with_waits_that_double() {
        let calls = AtomicU32::new(0);
        let failing_for = |n: u32| {
            let calls = &calls;
            move || async move {
                if calls.fetch_add(1, Ordering::SeqCst) < n {
                    Err("timed out")
                } else {
                    Ok(())
                }
            }
        };
        let started = tokio::time::Instant::now();
        let second = Duration::from_secs(1);
        assert!(again_until_done(failing_for(3), second, 4 * second, 10).await);
        assert_eq!(calls.load(Ordering::SeqCst), 4, "three failures, then done");
        // Waits of 1, 2, 4 and 4 s, each within ±50 %.
        let waited = started.elapsed();
        assert!(
            waited >= Duration::from_millis(5_500) && waited <= Duration::from_millis(16_500),
            "{waited:?}"
        );

        calls.store(0, Ordering::SeqCst);
        assert!(!again_until_done(failing_for(u32::MAX), second, second, 5).await);
        assert_eq!(calls.load(Ordering::SeqCst), 5, "gives up after its tries");
    }
}
