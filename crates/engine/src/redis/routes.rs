//! Where a room's notices go without a script: the instances that hold each member's
//! sockets, as this node last read them from the room's record (`room:<id>:w`). A typing
//! notice or a read mark is then one plain `SPUBLISH` per instance, in the lane's order
//! with the sender's messages, instead of a turn of the send script.
//!
//! The record changes when a member's socket attaches or closes (`ROOM_HERE`,
//! `ROOM_GONE`): that step tells every instance in the record, with [`ROUTE`] and the
//! room's id on its inbox, and each drops what it knew of the room. The news travels on
//! the same server and connection as the room's events, so a node that hears a member's
//! notice sent from a new socket has heard of the socket first. A hole in the bus drops
//! every route (news may have been lost in it), and a route is read again at the latest
//! [`ROUTE_KEEP`] after it was read, should news be lost otherwise (a node killed between
//! the record's change and its news).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Starts the news that a room's record of sockets changed (`^<room id>`); events start
/// with a user id, a newline or a record separator, probes with `~`.
pub(super) const ROUTE: char = '^';
/// How long a route read from the record is used before it is read again.
pub(super) const ROUTE_KEEP: Duration = Duration::from_secs(30);
/// Rooms known past this many: those read longest ago are dropped.
const ROUTES_MAX: usize = 100_000;

#[derive(Default)]
pub(super) struct Routes {
    rooms: Mutex<HashMap<String, Known>>,
}

#[derive(Default)]
struct Known {
    /// Bumped by every piece of news, so that a read that began before it is not kept.
    generation: u64,
    /// When it was read, and each member's instances.
    read: Option<(Instant, HashMap<i64, Vec<String>>)>,
    /// A read is on its way.
    reading: bool,
}

/// What a node knows of a room's route, for a notice to `user`.
pub(super) enum Route {
    /// Publish to these instances (none: the user holds no socket).
    Known(Vec<String>),
    /// Not known: send through the script, and read it (`Some`: this caller reads, and
    /// hands the generation back with what it read).
    Unknown(Option<u64>),
}

impl Routes {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Known>> {
        self.rooms.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn of(&self, room_id: &str, user: i64) -> Route {
        let mut rooms = self.lock();
        if let Some(known) = rooms.get(room_id) {
            if let Some((at, by_user)) = &known.read {
                if at.elapsed() < ROUTE_KEEP {
                    return Route::Known(by_user.get(&user).cloned().unwrap_or_default());
                }
            }
        }
        if rooms.len() >= ROUTES_MAX && !rooms.contains_key(room_id) {
            rooms.retain(|_, k| {
                k.read
                    .as_ref()
                    .is_some_and(|(at, _)| at.elapsed() < ROUTE_KEEP)
            });
        }
        let known = rooms.entry(room_id.to_owned()).or_default();
        if known.reading {
            return Route::Unknown(None);
        }
        known.reading = true;
        Route::Unknown(Some(known.generation))
    }

    /// What a read that began at `generation` found: the record's fields
    /// (`<instance>/<socket>`) and users, flat. Kept unless news came meanwhile.
    pub(super) fn read(&self, room_id: &str, generation: u64, record: Option<Vec<String>>) {
        let mut rooms = self.lock();
        let Some(known) = rooms.get_mut(room_id) else {
            return;
        };
        known.reading = false;
        let Some(record) = record.filter(|_| known.generation == generation) else {
            return;
        };
        let mut by_user: HashMap<i64, Vec<String>> = HashMap::new();
        for pair in record.chunks_exact(2) {
            let (Some((instance, _)), Ok(user)) = (pair[0].rsplit_once('/'), pair[1].parse())
            else {
                continue;
            };
            let instances = by_user.entry(user).or_default();
            if !instances.iter().any(|i| i == instance) {
                instances.push(instance.to_owned());
            }
        }
        known.read = Some((Instant::now(), by_user));
    }

    /// News that the room's record changed.
    pub(super) fn changed(&self, room_id: &str) {
        if let Some(known) = self.lock().get_mut(room_id) {
            known.generation += 1;
            known.read = None;
        }
    }

    /// A hole in the bus: news may have been lost.
    pub(super) fn forget_all(&self) {
        for known in self.lock().values_mut() {
            known.generation += 1;
            known.read = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(fields: &[(&str, &str)]) -> Option<Vec<String>> {
        Some(
            fields
                .iter()
                .flat_map(|(f, u)| [(*f).to_owned(), (*u).to_owned()])
                .collect(),
        )
    }

    #[test]
    fn a_route_is_read_once_and_kept_until_news() {
        let routes = Routes::default();
        let Route::Unknown(Some(generation)) = routes.of("r", 2) else {
            panic!("the first asks for a read");
        };
        assert!(
            matches!(routes.of("r", 2), Route::Unknown(None)),
            "one read at a time"
        );
        routes.read(
            "r",
            generation,
            record(&[
                ("n1.a.1/4", "1"),
                ("n2.b.1/7", "2"),
                ("n2.b.1/9", "2"),
                ("n3.c.1/1", "2"),
            ]),
        );
        let Route::Known(to) = routes.of("r", 2) else {
            panic!("read");
        };
        assert_eq!(to, ["n2.b.1", "n3.c.1"]);
        assert!(matches!(routes.of("r", 5), Route::Known(to) if to.is_empty()));
        routes.changed("r");
        assert!(matches!(routes.of("r", 2), Route::Unknown(Some(_))));
    }

    #[test]
    fn a_read_that_news_overtook_is_not_kept() {
        let routes = Routes::default();
        let Route::Unknown(Some(generation)) = routes.of("r", 2) else {
            panic!("the first asks for a read");
        };
        routes.changed("r");
        routes.read("r", generation, record(&[("n1.a.1/4", "2")]));
        assert!(matches!(routes.of("r", 2), Route::Unknown(Some(_))));
        let Route::Unknown(Some(generation)) = routes.of("s", 2) else {
            panic!("the first asks for a read");
        };
        routes.forget_all();
        routes.read("s", generation, record(&[("n1.a.1/4", "2")]));
        assert!(matches!(routes.of("s", 2), Route::Unknown(Some(_))));
    }
}
