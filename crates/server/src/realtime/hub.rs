//! This node's open sockets. A node keeps nothing else: everything shared goes through the
//! engine, and events for users on other nodes travel on the engine's bus.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::{mpsc, Notify};

/// Frames waiting for a slow socket before it is cut off.
const QUEUE: usize = 256;

/// One socket here: its id, its outgoing queue, and a bell that makes it re-check its
/// session.
struct Socket {
    id: u64,
    tx: mpsc::Sender<String>,
    recheck: Arc<Notify>,
}

/// The sockets of each user here.
type Sockets = HashMap<i64, Vec<Socket>>;

/// What a new socket gets from the hub.
pub struct Registered {
    pub id: u64,
    /// Frames for this socket alone (replies); the hub sends into the same queue.
    pub reply: mpsc::Sender<String>,
    pub outgoing: mpsc::Receiver<String>,
    pub recheck: Arc<Notify>,
}

#[derive(Default)]
pub struct Hub {
    conns: Mutex<Sockets>,
    next: AtomicU64,
}

impl Hub {
    fn conns(&self) -> std::sync::MutexGuard<'_, Sockets> {
        self.conns
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Adds a socket of `user_id`; frames for it arrive on the receiver.
    pub fn register(&self, user_id: i64) -> Registered {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = mpsc::channel(QUEUE);
        let recheck = Arc::new(Notify::new());
        self.conns().entry(user_id).or_default().push(Socket {
            id,
            tx: tx.clone(),
            recheck: Arc::clone(&recheck),
        });
        Registered {
            id,
            reply: tx,
            outgoing: rx,
            recheck,
        }
    }

    /// Rings the re-check bell of every socket of `user_id` here.
    pub fn recheck(&self, user_id: i64) {
        if let Some(list) = self.conns().get(&user_id) {
            for socket in list {
                socket.recheck.notify_one();
            }
        }
    }

    /// Removes a socket; true when it was the user's last on this node.
    pub fn unregister(&self, user_id: i64, conn: u64) -> bool {
        let mut conns = self.conns();
        let Some(list) = conns.get_mut(&user_id) else {
            return true;
        };
        list.retain(|s| s.id != conn);
        if list.is_empty() {
            conns.remove(&user_id);
            true
        } else {
            false
        }
    }

    /// Delivers a frame to every socket of `user_id` here. A socket whose queue is full is
    /// dropped from delivery; it will resume after reconnecting.
    pub fn send_to(&self, user_id: i64, frame: &str) {
        if let Some(list) = self.conns().get(&user_id) {
            for socket in list {
                let _ = socket.tx.try_send(frame.to_owned());
            }
        }
    }

    pub fn send_all(&self, frame: &str) {
        for list in self.conns().values() {
            for socket in list {
                let _ = socket.tx.try_send(frame.to_owned());
            }
        }
    }

    pub fn users(&self) -> Vec<i64> {
        self.conns().keys().copied().collect()
    }

    pub fn is_here(&self, user_id: i64) -> bool {
        self.conns().contains_key(&user_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracks_sockets_per_user() {
        let hub = Hub::default();
        let mut a = hub.register(1);
        let mut b = hub.register(1);
        let mut c = hub.register(2);
        hub.send_to(1, "x");
        assert_eq!(a.outgoing.try_recv().unwrap(), "x");
        assert_eq!(b.outgoing.try_recv().unwrap(), "x");
        assert!(c.outgoing.try_recv().is_err());
        hub.send_all("y");
        assert_eq!(c.outgoing.try_recv().unwrap(), "y");
        assert!(!hub.unregister(1, a.id));
        assert!(hub.is_here(1));
        assert!(hub.unregister(1, b.id));
        assert!(!hub.is_here(1));
        let mut users = hub.users();
        users.sort_unstable();
        assert_eq!(users, [2]);
    }
}
