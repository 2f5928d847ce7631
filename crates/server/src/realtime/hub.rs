//! This node's open sockets. A node keeps nothing else: everything shared goes through the
//! engine, and events for users on other nodes travel on the engine's bus.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use tokio::sync::mpsc;

/// Frames waiting for a slow socket before it is cut off.
const QUEUE: usize = 256;

/// The sockets of each user here: connection id and its outgoing queue.
type Sockets = HashMap<i64, Vec<(u64, mpsc::Sender<String>)>>;

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
    pub fn register(&self, user_id: i64) -> (u64, mpsc::Sender<String>, mpsc::Receiver<String>) {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = mpsc::channel(QUEUE);
        self.conns()
            .entry(user_id)
            .or_default()
            .push((id, tx.clone()));
        (id, tx, rx)
    }

    /// Removes a socket; true when it was the user's last on this node.
    pub fn unregister(&self, user_id: i64, conn: u64) -> bool {
        let mut conns = self.conns();
        let Some(list) = conns.get_mut(&user_id) else {
            return true;
        };
        list.retain(|(id, _)| *id != conn);
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
            for (_, tx) in list {
                let _ = tx.try_send(frame.to_owned());
            }
        }
    }

    pub fn send_all(&self, frame: &str) {
        for list in self.conns().values() {
            for (_, tx) in list {
                let _ = tx.try_send(frame.to_owned());
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
        let (a, _, mut ra) = hub.register(1);
        let (b, _, mut rb) = hub.register(1);
        let (_, _, mut rc) = hub.register(2);
        hub.send_to(1, "x");
        assert_eq!(ra.try_recv().unwrap(), "x");
        assert_eq!(rb.try_recv().unwrap(), "x");
        assert!(rc.try_recv().is_err());
        hub.send_all("y");
        assert_eq!(rc.try_recv().unwrap(), "y");
        assert!(!hub.unregister(1, a));
        assert!(hub.is_here(1));
        assert!(hub.unregister(1, b));
        assert!(!hub.is_here(1));
        let mut users = hub.users();
        users.sort_unstable();
        assert_eq!(users, [2]);
    }
}
