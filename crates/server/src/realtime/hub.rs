//! This node's open sockets, and what their users' frames have used of their allowance
//! (see [`Hub::count_frame`]). A node keeps nothing else: everything shared goes through
//! the engine, which routes events for a user to the node instances holding their sockets.
//!
//! A socket that cannot keep up is closed, never skipped: its client reconnects and
//! resumes from the room stream, so a full queue costs a reconnect, not a message.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use prometheus_client::metrics::counter::Counter;
use tokio::sync::Notify;

use crate::metrics::{Limit, Metrics};

/// Frames waiting for a slow socket before it is closed.
const QUEUE: usize = 256;

/// Where a socket's frames wait for its writer. Bounded at [`QUEUE`]; its storage grows
/// with what waits and is given back once written, so an idle socket holds none.
pub type Queue = flume::Sender<String>;

/// Why the server closes a socket. The client reconnects after each of them, but
/// [`Kick::Replaced`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kick {
    /// Its outgoing queue was full: the client read too slowly.
    Slow,
    /// Events for this node may have been lost (the bus fell behind or reconnected, or
    /// the node was given up for dead): the client must resume.
    Resync,
    /// The node is shutting down.
    Drain,
    /// The client kept sending frames far past its limit (see [`Frames::Flood`]).
    Flood,
    /// The client sent a frame larger than the protocol allows.
    TooBig,
    /// The user opened a newer socket beyond `limits::SOCKETS_PER_USER`, this being their
    /// oldest: its client must not reconnect by itself, or the two would take turns
    /// closing each other (the web app waits until its tab is looked at again).
    Replaced,
}

/// What the hub says of one more frame from a user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frames {
    /// Within the limit: read it.
    Allowed,
    /// Over the limit: refused unread (a readable one is told `RATE_LIMITED`).
    Refused,
    /// Refused once more after as many refusals in one window as the limit allows frames:
    /// no client of ours does that, so the socket is closed instead of answering each frame.
    Flood,
}

/// A limit on the frames a user sends over all their sockets, on every node: `frames` per
/// `window`. Windows are aligned on the shared clock (a window is the time over its
/// length), so every node counts the same window at the same time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameLimit {
    pub frames: u32,
    pub window: Duration,
}

impl FrameLimit {
    /// The window of the shared time `now_ms`.
    fn window_of(self, now_ms: i64) -> i64 {
        let length = i64::try_from(self.window.as_millis())
            .unwrap_or(i64::MAX)
            .max(1);
        now_ms.div_euclid(length)
    }

    /// How much of the allowance a node takes from the engine at a time: half. A user who
    /// sends no more than half of it in a window (nearly everyone) costs one engine call a
    /// window, one who sends all of it two, never one a frame. What a node holds and has
    /// not spent is missing elsewhere until it is given back (see [`Hub::unspent`]).
    fn part(self) -> u32 {
        self.frames.div_ceil(2)
    }

    /// How long the engine keeps a window's count, from its first take: past the window's
    /// end on every node, whenever in the window the first take came and however far
    /// apart the nodes' clocks are within a window.
    pub fn kept(self) -> Duration {
        self.window * 2
    }
}

/// What the hub says of a frame before asking the engine, if it must.
#[derive(Debug)]
pub enum Counted {
    /// By what the node holds.
    Decided(Frames),
    /// The part the node held is spent: take the next from the engine (see
    /// [`Engine::take`](telepathy_engine::Engine::take)), under [`Take::key`], and hand
    /// the answer to [`Hub::taken`], which decides.
    Take(Take),
}

/// A part of a user's allowance in one window, for the engine to hand out.
#[derive(Debug)]
pub struct Take {
    user_id: i64,
    window: i64,
    /// How many frames to take.
    pub part: u32,
    pub limit: FrameLimit,
}

impl Take {
    /// The engine's counter of the user's window, which all nodes share.
    pub fn key(&self) -> String {
        frames_key(self.user_id, self.window)
    }
}

/// Frames of a user's window that a node took and did not spend, for the engine to have
/// back (see [`Hub::unspent`]).
#[derive(Debug, PartialEq, Eq)]
pub struct Unspent {
    user_id: i64,
    window: i64,
    pub frames: u32,
}

impl Unspent {
    /// The engine's counter they were taken from.
    pub fn key(&self) -> String {
        frames_key(self.user_id, self.window)
    }
}

fn frames_key(user_id: i64, window: i64) -> String {
    format!("frames:{user_id}:{window}")
}

/// What a user's frames used of one window of their allowance, on this node.
struct Allowance {
    window: i64,
    /// Frames taken from the engine and not spent yet.
    lease: u32,
    /// Frames allowed here in the window.
    allowed: u32,
    /// Frames refused here in the window.
    refused: u32,
    /// What the engine said of the window.
    said: Said,
}

/// What the engine said of a user's window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Said {
    /// Nothing that stops the node from asking for the next part.
    Asking,
    /// Nothing is left: every node together has taken the whole allowance.
    Spent,
    /// It did not answer: the node counts the window alone (see [`Hub::taken`]).
    Away,
}

impl Allowance {
    fn new(window: i64) -> Self {
        Self {
            window,
            lease: 0,
            allowed: 0,
            refused: 0,
            said: Said::Asking,
        }
    }

    /// Decides a frame from what the node holds: a frame of the lease, or of the node's
    /// own count while the engine is away, or a refusal once the engine said nothing is
    /// left; `None` when the engine must be asked.
    fn decide(&mut self, limit: FrameLimit, refused: &Counter) -> Option<Frames> {
        if self.lease > 0 {
            self.lease -= 1;
            self.allowed += 1;
            return Some(Frames::Allowed);
        }
        match self.said {
            Said::Asking => None,
            Said::Away if self.allowed < limit.frames => {
                self.allowed += 1;
                Some(Frames::Allowed)
            }
            Said::Away | Said::Spent => {
                refused.inc();
                self.refused = self.refused.saturating_add(1);
                Some(if self.refused > limit.frames {
                    Frames::Flood
                } else {
                    Frames::Refused
                })
            }
        }
    }
}

/// Every user's allowance here, in the window of their last frame.
#[derive(Default)]
struct Allowances {
    users: HashMap<i64, Allowance>,
    /// The window up to which the allowances of windows gone by were dropped.
    swept: i64,
}

impl Kick {
    /// The WebSocket close code and reason sent to the client.
    pub fn close(self) -> (u16, &'static str) {
        match self {
            Kick::Slow => (1013, "slow consumer"),
            Kick::Resync => (1013, "resync"),
            Kick::Drain => (1012, "restarting"),
            Kick::Flood => (1008, "too many frames"),
            Kick::TooBig => (1009, "frame too large"),
            Kick::Replaced => (4001, "replaced"),
        }
    }
}

/// A socket's controls, shared by its reader, its writer and the hub. (Two bells, a
/// reason and a flag: a watch channel would do, at four times the memory of every idle
/// socket.)
#[derive(Default)]
pub struct Control {
    /// Makes the socket re-check its session now.
    pub recheck: Notify,
    /// Why the socket is being closed, once it is.
    kick: OnceLock<Kick>,
    /// Set once the reader is done (the client closed, or its session ended).
    finished: AtomicBool,
    /// Rung once either is set.
    closing: Notify,
}

impl Control {
    /// Tells the socket's tasks to close it for `why`; the first reason wins (true for it).
    pub fn kick(&self, why: Kick) -> bool {
        let first = self.kick.set(why).is_ok();
        if first {
            self.closing.notify_waiters();
        }
        first
    }

    /// Why the socket is being closed, if it is.
    pub fn reason(&self) -> Option<Kick> {
        self.kick.get().copied()
    }

    /// Tells the writer that the reader is done: it writes what waits, and closes.
    pub fn finish(&self) {
        self.finished.store(true, Ordering::SeqCst);
        self.closing.notify_waiters();
    }

    /// Resolves once the socket has been kicked or its reader is done; with the reason
    /// of a kick.
    pub async fn closing(&self) -> Option<Kick> {
        loop {
            // Listening before looking: what is set between the two still wakes this.
            let rung = self.closing.notified();
            tokio::pin!(rung);
            rung.as_mut().enable();
            if let Some(why) = self.reason() {
                return Some(why);
            }
            if self.finished.load(Ordering::SeqCst) {
                return None;
            }
            rung.await;
        }
    }
}

/// One socket here.
struct Socket {
    id: u64,
    tx: Queue,
    control: Arc<Control>,
    epoch: u64,
}

/// A user's sockets here.
struct UserSockets {
    sockets: Vec<Socket>,
}

/// What a new socket gets from the hub.
pub struct Registered {
    pub id: u64,
    /// The node instance the socket belongs to (see [`Hub::instance`]).
    pub instance: String,
    /// Frames for this socket alone (replies); the hub sends into the same queue.
    pub reply: Queue,
    pub outgoing: flume::Receiver<String>,
    pub control: Arc<Control>,
}

pub struct Hub {
    users: Mutex<HashMap<i64, UserSockets>>,
    /// Apart from the sockets: a user's allowance outlives their last socket here until
    /// its window ends, so a new socket gets nothing new.
    allowances: Mutex<Allowances>,
    /// Frames refused by the frame limit (`rate_limited{limit="frames"}`).
    refused: Counter,
    next: AtomicU64,
    /// This process's name among the nodes: the configured node id and a random part, so
    /// a restarted node never takes over the records of its previous life.
    name: String,
    /// Bumped when the engine gave this instance up for dead; see [`Hub::start_over`].
    epoch: AtomicU64,
    metrics: Arc<Metrics>,
}

impl Hub {
    pub fn new(node_id: &str, metrics: Arc<Metrics>) -> Self {
        let refused = metrics
            .rate_limited
            .get_or_create(&Limit {
                limit: "frames".to_owned(),
            })
            .clone();
        Self {
            users: Mutex::new(HashMap::new()),
            allowances: Mutex::new(Allowances::default()),
            refused,
            next: AtomicU64::new(0),
            name: format!("{node_id}.{:08x}", rand::random::<u32>()),
            epoch: AtomicU64::new(0),
            metrics,
        }
    }

    fn users(&self) -> std::sync::MutexGuard<'_, HashMap<i64, UserSockets>> {
        self.users
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The name under which the engine routes events to this node now.
    pub fn instance(&self) -> String {
        Self::instance_of(&self.name, self.epoch.load(Ordering::SeqCst))
    }

    fn instance_of(name: &str, epoch: u64) -> String {
        format!("{name}.{epoch}")
    }

    /// The name [`Hub::start_over`] moves to, so the node can listen and beat as it first.
    pub fn next_instance(&self) -> String {
        Self::instance_of(&self.name, self.epoch.load(Ordering::SeqCst) + 1)
    }

    /// The engine gave this instance up for dead, so events for its users went nowhere for
    /// a while: continue under the next instance name and close every socket of the old
    /// one (their clients reconnect and resume). Answers the new name.
    pub fn start_over(&self) -> String {
        let epoch = self.epoch.fetch_add(1, Ordering::SeqCst) + 1;
        for socket in self.users().values().flat_map(|u| &u.sockets) {
            if socket.epoch < epoch {
                self.kick(&socket.control, Kick::Resync);
            }
        }
        Self::instance_of(&self.name, epoch)
    }

    /// Adds a socket of `user_id`; frames for it arrive on the receiver.
    pub fn register(&self, user_id: i64) -> Registered {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = flume::bounded(QUEUE);
        let control = Arc::new(Control::default());
        let epoch = self.epoch.load(Ordering::SeqCst);
        self.users()
            .entry(user_id)
            .or_insert_with(|| UserSockets {
                sockets: Vec::new(),
            })
            .sockets
            .push(Socket {
                id,
                tx: tx.clone(),
                control: Arc::clone(&control),
                epoch,
            });
        self.metrics.sockets_open.inc();
        Registered {
            id,
            instance: Self::instance_of(&self.name, epoch),
            reply: tx,
            outgoing: rx,
            control,
        }
    }

    /// Removes a socket.
    pub fn unregister(&self, user_id: i64, conn: u64) {
        let mut users = self.users();
        let Some(user) = users.get_mut(&user_id) else {
            return;
        };
        let before = user.sockets.len();
        user.sockets.retain(|s| s.id != conn);
        if user.sockets.len() < before {
            self.metrics.sockets_open.dec();
        }
        if user.sockets.is_empty() {
            users.remove(&user_id);
        }
    }

    fn allowances(&self) -> std::sync::MutexGuard<'_, Allowances> {
        self.allowances
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Counts one frame from `user_id` at the shared time `now_ms`, whatever the frame is
    /// (text or binary, readable or not), against the user's allowance under `limit` on
    /// every node. The engine hands the allowance out in parts; a node spends the part it
    /// holds without asking anyone, so only the frame that finds it spent waits for the
    /// engine ([`Counted::Take`]).
    pub fn count_frame(&self, user_id: i64, now_ms: i64, limit: FrameLimit) -> Counted {
        let window = limit.window_of(now_ms);
        let mut all = self.allowances();
        if window > all.swept {
            // Once a window: the allowances of windows gone by are dropped.
            all.users.retain(|_, a| a.window >= window);
            all.swept = window;
        }
        let allowance = all
            .users
            .entry(user_id)
            .or_insert_with(|| Allowance::new(window));
        if allowance.window != window {
            *allowance = Allowance::new(window);
        }
        match allowance.decide(limit, &self.refused) {
            Some(frames) => Counted::Decided(frames),
            None => Counted::Take(Take {
                user_id,
                window,
                part: limit.part(),
                limit,
            }),
        }
    }

    /// Decides the frame of `take` by the engine's answer: how many frames it handed out,
    /// or `None` when it did not answer (in time). Without an answer the node counts the
    /// user's frames of the window alone, up to the limit, as if it were the only node: the
    /// limit is there to keep a client from flooding a node and its partner, which the
    /// node's own count still does, while refusing every frame would cost the user their
    /// chat (the engine's other calls may well succeed), and asking again for each frame
    /// would make each wait for the engine. Only a user who moves between nodes within
    /// that window may get more than the limit.
    pub fn taken(&self, take: Take, answer: Option<u32>) -> Frames {
        let mut all = self.allowances();
        let Some(allowance) = all
            .users
            .get_mut(&take.user_id)
            .filter(|a| a.window == take.window)
        else {
            // The window ended while the engine answered: the frame came within it.
            return if answer.is_some_and(|part| part > 0) {
                Frames::Allowed
            } else {
                self.refused.inc();
                Frames::Refused
            };
        };
        match answer {
            Some(0) => allowance.said = Said::Spent,
            Some(part) => allowance.lease = allowance.lease.saturating_add(part),
            None => allowance.said = Said::Away,
        }
        // With the answer in, the node decides alone (a part, the engine spent or away).
        allowance
            .decide(take.limit, &self.refused)
            .unwrap_or(Frames::Refused)
    }

    /// What this node holds of `user_id`'s allowance in the window of `now_ms` and has not
    /// spent, taken from the node, for the engine to have back when a socket of the user
    /// stops reading: a client the node closed (a drain, a resync) reconnects to another
    /// node within moments, which must find it there. Another socket of the user here takes
    /// a new part when it needs one.
    pub fn unspent(&self, user_id: i64, now_ms: i64, limit: FrameLimit) -> Option<Unspent> {
        let window = limit.window_of(now_ms);
        let mut all = self.allowances();
        let allowance = all
            .users
            .get_mut(&user_id)
            .filter(|a| a.window == window && a.lease > 0)?;
        let frames = std::mem::take(&mut allowance.lease);
        Some(Unspent {
            user_id,
            window,
            frames,
        })
    }

    /// Closes the socket `socket` of `user_id` if this node holds it under `instance` (a
    /// name of this node's, see [`Hub::instance`]): the user opened a newer one beyond
    /// their limit.
    pub fn replace(&self, user_id: i64, instance: &str, socket: u64) {
        if let Some(user) = self.users().get(&user_id) {
            for s in &user.sockets {
                if s.id == socket && Self::instance_of(&self.name, s.epoch) == instance {
                    self.kick(&s.control, Kick::Replaced);
                }
            }
        }
    }

    /// Rings the re-check bell of every socket of `user_id` here.
    pub fn recheck(&self, user_id: i64) {
        if let Some(user) = self.users().get(&user_id) {
            for socket in &user.sockets {
                socket.control.recheck.notify_one();
            }
        }
    }

    /// Whether `user_id` has a socket here.
    pub fn holds(&self, user_id: i64) -> bool {
        self.users().contains_key(&user_id)
    }

    /// Queues a frame for every socket of `user_id` here. A socket whose queue is full is
    /// closed (and counted): its client reconnects and resumes.
    pub fn send_to(&self, user_id: i64, frame: &str) {
        if let Some(user) = self.users().get(&user_id) {
            for socket in &user.sockets {
                self.push(socket, frame);
            }
        }
    }

    /// Queues a frame for every socket here.
    pub fn send_all(&self, frame: &str) {
        for socket in self.users().values().flat_map(|u| &u.sockets) {
            self.push(socket, frame);
        }
    }

    /// Queues a frame for a socket not kicked: a kicked one is handed nothing more (what
    /// comes after a hole must not reach a client before it has resumed across it).
    fn push(&self, socket: &Socket, frame: &str) {
        if socket.control.reason().is_some() {
            return;
        }
        match socket.tx.try_send(frame.to_owned()) {
            Ok(()) => {}
            Err(flume::TrySendError::Full(_)) => self.kick(&socket.control, Kick::Slow),
            // The socket is closing; its client resumes when it reconnects.
            Err(flume::TrySendError::Disconnected(_)) => {}
        }
    }

    /// Closes every socket here for `why`.
    pub fn kick_all(&self, why: Kick) {
        for socket in self.users().values().flat_map(|u| &u.sockets) {
            self.kick(&socket.control, why);
        }
    }

    /// Closes one socket for `why`, counted once per socket.
    pub fn kick(&self, control: &Control, why: Kick) {
        let counter = match why {
            Kick::Slow => &self.metrics.sockets_kicked.slow,
            Kick::Resync => &self.metrics.sockets_kicked.resync,
            Kick::Drain => &self.metrics.sockets_kicked.drain,
            Kick::Flood => &self.metrics.sockets_kicked.flood,
            Kick::TooBig => &self.metrics.sockets_kicked.too_big,
            Kick::Replaced => &self.metrics.sockets_kicked.replaced,
        };
        if control.kick(why) {
            counter.inc();
        }
    }

    /// Users with a socket here.
    pub fn user_count(&self) -> usize {
        self.users().len()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use telepathy_engine::{Engine, MemoryEngine};

    use super::*;
    use Frames::{Allowed, Flood, Refused};

    fn hub() -> Hub {
        Hub::new("test", Arc::new(Metrics::new()))
    }

    #[test]
    fn tracks_sockets_per_user() {
        let hub = hub();
        let a = hub.register(1);
        let b = hub.register(1);
        let c = hub.register(2);
        hub.send_to(1, "x");
        assert_eq!(a.outgoing.try_recv().unwrap(), "x");
        assert_eq!(b.outgoing.try_recv().unwrap(), "x");
        assert!(c.outgoing.try_recv().is_err());
        hub.send_all("y");
        assert_eq!(c.outgoing.try_recv().unwrap(), "y");
        hub.unregister(1, a.id);
        assert_eq!(hub.user_count(), 2);
        hub.unregister(1, b.id);
        assert_eq!(hub.user_count(), 1);
    }

    #[test]
    fn a_full_queue_closes_the_socket_instead_of_skipping() {
        let hub = hub();
        let slow = hub.register(1);
        for i in 0..QUEUE {
            hub.send_to(1, &i.to_string());
        }
        assert_eq!(
            slow.control.reason(),
            None,
            "a full queue is not yet an overflow"
        );
        hub.send_to(1, "one too many");
        hub.send_to(1, "and another");
        assert_eq!(slow.control.reason(), Some(Kick::Slow));
        assert_eq!(hub.metrics.sockets_kicked.slow.get(), 1, "counted once");
    }

    #[test]
    fn a_kicked_socket_is_handed_nothing_after_the_kick() {
        let hub = hub();
        let socket = hub.register(1);
        hub.send_to(1, "before the hole");
        hub.kick_all(Kick::Resync);
        hub.send_to(1, "after the hole");
        hub.send_all("a round");
        let queued: Vec<String> = socket.outgoing.drain().collect();
        assert_eq!(queued, ["before the hole"]);
    }

    #[tokio::test]
    async fn a_kick_wakes_the_reader_and_the_writer_with_the_first_reason() {
        let control = Arc::new(Control::default());
        let waiting: Vec<_> = (0..2)
            .map(|_| {
                let control = Arc::clone(&control);
                tokio::spawn(async move { control.closing().await })
            })
            .collect();
        tokio::task::yield_now().await;
        assert!(control.kick(Kick::Slow));
        assert!(!control.kick(Kick::Drain), "the first reason wins");
        for task in waiting {
            let why = tokio::time::timeout(Duration::from_secs(5), task).await;
            assert_eq!(why.unwrap().unwrap(), Some(Kick::Slow));
        }
        // And whoever asks later is answered at once.
        assert_eq!(control.closing().await, Some(Kick::Slow));
    }

    #[tokio::test]
    async fn a_finished_reader_wakes_the_writer_without_a_reason() {
        let control = Arc::new(Control::default());
        let writer = {
            let control = Arc::clone(&control);
            tokio::spawn(async move { control.closing().await })
        };
        tokio::task::yield_now().await;
        control.finish();
        let why = tokio::time::timeout(Duration::from_secs(5), writer).await;
        assert_eq!(why.unwrap().unwrap(), None);
        assert_eq!(control.reason(), None);
    }

    #[test]
    fn a_replaced_socket_closes_only_where_it_is() {
        let hub = hub();
        let old = hub.register(1);
        let other = hub.register(1);
        hub.replace(1, "another.node.0", old.id);
        hub.replace(2, &old.instance, old.id);
        assert_eq!(
            old.control.reason(),
            None,
            "not this node's, or not this user's"
        );
        hub.replace(1, &old.instance, old.id);
        assert_eq!(old.control.reason(), Some(Kick::Replaced));
        assert_eq!(other.control.reason(), None);
        assert_eq!(Kick::Replaced.close().0, 4001);
        assert_eq!(hub.metrics.sockets_kicked.replaced.get(), 1);
    }

    #[test]
    fn starting_over_closes_the_old_instance_sockets() {
        let hub = hub();
        let old = hub.register(1);
        let first = hub.instance();
        assert_eq!(old.instance, first);
        let next = hub.next_instance();
        assert_eq!(hub.instance(), first, "not moved yet");
        let second = hub.start_over();
        assert_eq!(second, next);
        assert_ne!(first, second);
        assert_eq!(hub.instance(), second);
        assert_eq!(old.control.reason(), Some(Kick::Resync));
        let new = hub.register(2);
        assert_eq!(new.instance, second);
        assert_eq!(new.control.reason(), None);
    }

    const LIMIT: FrameLimit = FrameLimit {
        frames: 4,
        window: Duration::from_secs(60),
    };

    /// One frame as a socket counts it, against `engine`; true in `asked` when the engine
    /// was asked.
    async fn frame(hub: &Hub, engine: &MemoryEngine, user: i64, now_ms: i64) -> (Frames, bool) {
        match hub.count_frame(user, now_ms, LIMIT) {
            Counted::Decided(frames) => (frames, false),
            Counted::Take(take) => {
                let key = take.key();
                let answer = engine
                    .take(&key, take.part, take.limit.frames, take.limit.kept())
                    .await;
                (hub.taken(take, answer.ok()), true)
            }
        }
    }

    async fn frames(
        hub: &Hub,
        engine: &MemoryEngine,
        user: i64,
        now_ms: i64,
        n: usize,
    ) -> Vec<Frames> {
        let mut out = Vec::new();
        for _ in 0..n {
            out.push(frame(hub, engine, user, now_ms).await.0);
        }
        out
    }

    #[tokio::test]
    async fn frames_are_limited_per_user_and_window() {
        let (hub, engine) = (hub(), MemoryEngine::new());
        let _a = hub.register(1);
        let _b = hub.register(1);
        let now = 600_000;
        assert_eq!(
            frames(&hub, &engine, 1, now, 4).await,
            [Allowed; 4],
            "both sockets share one allowance"
        );
        assert_eq!(frames(&hub, &engine, 1, now + 1, 4).await, [Refused; 4]);
        assert_eq!(frame(&hub, &engine, 1, now + 2).await.0, Flood);
        let _c = hub.register(2);
        assert_eq!(frame(&hub, &engine, 2, now).await.0, Allowed);
        assert_eq!(
            frame(&hub, &engine, 1, now + 60_000).await.0,
            Allowed,
            "a new window starts"
        );
        assert_eq!(hub.refused.get(), 5, "every refusal counted");
    }

    #[tokio::test]
    async fn the_engine_is_asked_once_a_part() {
        let (hub, engine) = (hub(), MemoryEngine::new());
        let mut asked = Vec::new();
        for _ in 0..5 {
            asked.push(frame(&hub, &engine, 1, 0).await.1);
        }
        assert_eq!(
            asked,
            [true, false, true, false, true],
            "two parts of two, then the engine says none is left"
        );
        assert_eq!(
            frame(&hub, &engine, 1, 0).await,
            (Refused, false),
            "and is believed"
        );
    }

    #[tokio::test]
    async fn the_allowance_outlives_the_last_socket_until_its_window_ends() {
        let (hub, engine) = (hub(), MemoryEngine::new());
        let first = hub.register(1);
        assert_eq!(frames(&hub, &engine, 1, 0, 4).await, [Allowed; 4]);
        hub.unregister(1, first.id);
        assert!(!hub.holds(1));
        let _again = hub.register(1);
        assert_eq!(frame(&hub, &engine, 1, 0).await.0, Refused);
        // A frame of a later window drops the windows gone by.
        assert_eq!(frame(&hub, &engine, 2, 60_000).await.0, Allowed);
        assert_eq!(hub.allowances().users.len(), 1);
    }

    #[tokio::test]
    async fn nodes_share_one_allowance() {
        let (here, there, engine) = (hub(), hub(), MemoryEngine::new());
        assert_eq!(frames(&here, &engine, 1, 0, 1).await, [Allowed]);
        assert_eq!(
            frames(&there, &engine, 1, 0, 3).await,
            [Allowed, Allowed, Refused],
            "the other node gets the part not taken"
        );
        assert_eq!(
            frames(&here, &engine, 1, 0, 2).await,
            [Allowed, Refused],
            "this one the rest of its own part"
        );
    }

    #[tokio::test]
    async fn a_socket_that_stops_reading_gives_back_what_was_not_spent() {
        let (here, there, engine) = (hub(), hub(), MemoryEngine::new());
        assert_eq!(frames(&here, &engine, 1, 0, 3).await, [Allowed; 3]);
        let unspent = here.unspent(1, 0, LIMIT).unwrap();
        assert_eq!(unspent.frames, 1);
        assert_eq!(here.unspent(1, 0, LIMIT), None, "given once");
        engine
            .give_back(&unspent.key(), unspent.frames)
            .await
            .unwrap();
        assert_eq!(
            frames(&there, &engine, 1, 0, 2).await,
            [Allowed, Refused],
            "the other node finds what was not spent"
        );
        assert_eq!(
            frames(&here, &engine, 1, 0, 1).await,
            [Refused],
            "and no more"
        );
        assert_eq!(
            here.unspent(1, 60_000, LIMIT),
            None,
            "nothing of a window gone by"
        );
    }

    #[tokio::test]
    async fn without_the_engine_a_node_counts_alone() {
        let hub = hub();
        let mut decided = Vec::new();
        for _ in 0..(LIMIT.frames + 1) {
            decided.push(match hub.count_frame(1, 0, LIMIT) {
                Counted::Decided(frames) => frames,
                Counted::Take(take) => hub.taken(take, None),
            });
        }
        assert_eq!(decided, [Allowed, Allowed, Allowed, Allowed, Refused]);
        assert!(
            matches!(hub.count_frame(1, 0, LIMIT), Counted::Decided(Refused)),
            "not asked again within the window"
        );
        assert!(
            matches!(hub.count_frame(1, 60_000, LIMIT), Counted::Take(_)),
            "but in the next"
        );
    }

    #[tokio::test]
    async fn a_part_answered_after_its_window_decides_its_own_frame() {
        let hub = hub();
        let Counted::Take(take) = hub.count_frame(1, 0, LIMIT) else {
            panic!("the first frame asks");
        };
        assert!(matches!(
            hub.count_frame(1, 60_000, LIMIT),
            Counted::Take(_)
        ));
        assert_eq!(hub.taken(take, Some(2)), Allowed);
        let Counted::Take(take) = hub.count_frame(2, 0, LIMIT) else {
            panic!("the first frame asks");
        };
        assert!(matches!(
            hub.count_frame(2, 60_000, LIMIT),
            Counted::Take(_)
        ));
        assert_eq!(hub.taken(take, Some(0)), Refused);
    }
}
