//! This node's open sockets. A node keeps nothing else: everything shared goes through the
//! engine, which routes events for a user to the node instances holding their sockets.
//!
//! A socket that cannot keep up is closed, never skipped: its client reconnects and
//! resumes from the room stream, so a full queue costs a reconnect, not a message.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use crate::metrics::Metrics;

/// Frames waiting for a slow socket before it is closed.
const QUEUE: usize = 256;

/// Where a socket's frames wait for its writer. Bounded at [`QUEUE`]; its storage grows
/// with what waits and is given back once written, so an idle socket holds none.
pub type Queue = flume::Sender<String>;

/// Why the server closes a socket. The client reconnects after each of them.
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
}

/// What the hub says of one more frame from a user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frames {
    /// Within the limit: read it.
    Allowed,
    /// Over the limit: refused unread (a readable one is told `RATE_LIMITED`).
    Refused,
    /// Past twice the limit in one window: no client of ours does that, so the socket is
    /// closed instead of answering each frame.
    Flood,
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

/// A user's sockets here, and the frames they sent in the current window.
struct UserSockets {
    sockets: Vec<Socket>,
    window: (u32, Instant),
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
        Self {
            users: Mutex::new(HashMap::new()),
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
                window: (0, Instant::now()),
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

    /// Counts one frame from `user_id` against `limit` per `window`, over all the user's
    /// sockets on this node, whatever the frame is (text or binary, readable or not).
    pub fn allow_frame(&self, user_id: i64, limit: u32, window: Duration) -> Frames {
        let now = Instant::now();
        let mut users = self.users();
        let Some(user) = users.get_mut(&user_id) else {
            return Frames::Refused;
        };
        let (count, start) = &mut user.window;
        if now.duration_since(*start) >= window {
            *count = 0;
            *start = now;
        }
        *count = count.saturating_add(1);
        if *count <= limit {
            Frames::Allowed
        } else if *count <= limit.saturating_mul(2) {
            Frames::Refused
        } else {
            Frames::Flood
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

    use super::*;

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

    #[test]
    fn frames_are_limited_per_user_and_window() {
        let hub = hub();
        let _a = hub.register(1);
        let _b = hub.register(1);
        let window = Duration::from_secs(60);
        assert!((0..3).all(|_| hub.allow_frame(1, 3, window) == Frames::Allowed));
        assert_eq!(
            hub.allow_frame(1, 3, window),
            Frames::Refused,
            "both sockets share one budget"
        );
        assert!((0..2).all(|_| hub.allow_frame(1, 3, window) == Frames::Refused));
        assert_eq!(hub.allow_frame(1, 3, window), Frames::Flood);
        let _c = hub.register(2);
        assert_eq!(hub.allow_frame(2, 3, window), Frames::Allowed);
        assert_eq!(
            hub.allow_frame(1, 3, Duration::ZERO),
            Frames::Allowed,
            "a new window starts"
        );
    }
}
