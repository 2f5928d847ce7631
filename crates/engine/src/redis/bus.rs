//! The bus: a node's inboxes over sharded pub/sub, the subscriber that keeps them whole
//! through reconnections, failovers and moved slots, and the probes that find a channel
//! gone deaf (see "Routing" and "Hearing" in the engine's notes).

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use fred::clients::SubscriberClient;
use fred::prelude::*;
use fred::types::config::Server;
use fred::types::Message;
use futures_util::future::join_all;
use tokio::sync::broadcast;

use super::PARTITIONS;
use crate::bus::decode_events;
use crate::{wall_ms, EngineError, Inbound, Received};

/// Events published while a node's listener is busy wait here; past this many the node
/// sees a gap and resyncs its sockets.
pub(super) const INBOX_CAPACITY: usize = 1 << 16;
/// How often a node publishes a probe on each of its inboxes.
pub(super) const PROBE_EVERY: Duration = Duration::from_secs(1);
/// Probes published on a channel in a row and not heard back, while later ones were heard
/// on other channels, before the node takes the channel as deaf.
pub(super) const PROBE_MISSES: usize = 3;
/// How far a master's clock (a stream id's time) may be behind a node's: a hole's floor
/// lies this much before the last probe heard.
pub(super) const CLOCK_SLACK_MS: i64 = 1_000;
/// How long resumes start at a hole's floor: the sockets closed for it come back within
/// seconds, a client that could not (a phone asleep) within minutes.
pub(super) const FLOOR_KEEP: Duration = Duration::from_secs(600);
/// Starts a probe on the bus (`~<engine>:<partition>:<seq>`); events start with a user id
/// or a newline.
pub(super) const PROBE: char = '~';

/// A node's inbox over Redis sharded pub/sub: fred hands every message of the
/// subscriber's channels (the instance's inboxes and the channel for everyone) to a
/// broadcast channel; a lagging reader or a reconnection is a gap.
pub(crate) struct RedisInbox {
    pub(super) messages: broadcast::Receiver<Message>,
    /// Told when the subscriber reconnected: a hole begins (what was published while it
    /// was away is lost), and lasts until it has subscribed again (`resubscribed`).
    pub(super) reconnects: broadcast::Receiver<Server>,
    /// Told when a channel was found deaf: a hole begins as with a reconnection.
    pub(super) deafened: broadcast::Receiver<()>,
    pub(super) resubscribed: broadcast::Receiver<()>,
    /// Where the probes this inbox hears are noted.
    pub(super) probes: Arc<Probes>,
    pub(super) bus: Bus,
    pub(super) instance: String,
    /// How the inbox channels of this instance end (another instance's events may come
    /// on the same subscriber: they are not for this inbox).
    pub(super) mine: String,
    /// Reconnections not yet followed by a new subscription: while any, every event is
    /// dropped (the node's sockets were closed, and new ones are refused).
    pub(super) holes: usize,
    /// Events read from a message on the bus and not yet handed out.
    pub(super) pending: std::collections::VecDeque<Inbound>,
}

impl RedisInbox {
    pub(crate) async fn recv(&mut self) -> Option<Received> {
        loop {
            tokio::select! {
                // The hole's edges before any event: no socket may be handed an event from
                // after a hole before it is told of the hole (its last id would pass over
                // what it missed). A hole is a gap where it begins (every socket resumes)
                // and where it ends (those that slipped in between resume again).
                biased;
                next = self.reconnects.recv() => match next {
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {
                        self.probes.hole(0..PARTITIONS);
                        self.holes += 1;
                        self.pending.clear();
                        return Some(Received::Gap);
                    }
                    Err(broadcast::error::RecvError::Closed) => return None,
                },
                next = self.deafened.recv() => match next {
                    Ok(()) | Err(broadcast::error::RecvError::Lagged(_)) => {
                        self.holes += 1;
                        self.pending.clear();
                        return Some(Received::Gap);
                    }
                    Err(broadcast::error::RecvError::Closed) => return None,
                },
                next = self.resubscribed.recv() => match next {
                    Ok(()) | Err(broadcast::error::RecvError::Lagged(_)) => {
                        self.probes.hole_ends();
                        self.holes = self.holes.saturating_sub(1);
                        return Some(Received::Gap);
                    }
                    Err(broadcast::error::RecvError::Closed) => return None,
                },
                () = std::future::ready(()), if !self.pending.is_empty() => {
                    if let Some(event) = self.pending.pop_front() {
                        return Some(Received::Event(event));
                    }
                }
                next = self.messages.recv() => match next {
                    Ok(message) if message.value.as_bytes().is_some_and(|b| b.first() == Some(&(PROBE as u8))) => {
                        if let Some(text) = message.value.as_str() {
                            self.probes.heard(&text);
                        }
                    }
                    Ok(_) if self.holes > 0 => {}
                    Ok(message) if !message.channel.ends_with(&*self.mine) && *message.channel != *self.bus.everyone => {}
                    Ok(message) => {
                        let read = message.value.as_str().is_some_and(|text| decode_events(&text, &mut self.pending));
                        if !read {
                            tracing::warn!(channel = %message.channel, "an unreadable event on the bus");
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        self.probes.hole(0..PARTITIONS);
                        return Some(Received::Gap);
                    }
                    Err(broadcast::error::RecvError::Closed) => return None,
                },
            }
        }
    }
}

pub(super) fn unix_ms() -> u64 {
    u64::try_from(wall_ms()).unwrap_or(0)
}

/// What this engine's probes of the bus have heard (see "Hearing" above), and its recent
/// holes (see [`Engine::resume_from`]).
pub(super) struct Probes {
    /// This engine's mark, random: a node hears only its own probes, but an instance that
    /// starts over may still hear its predecessor's.
    pub(super) mine: String,
    /// The last probe heard on each partition's channel: a probe's number is the Unix
    /// milliseconds at which it was published, so everything published on the channel
    /// before then has been heard.
    pub(super) heard: Vec<AtomicU64>,
    /// When listening began: the floor of a channel never heard.
    pub(super) since: u64,
    /// Inboxes alive: only a node that listens can hear its probes.
    pub(super) listening: AtomicUsize,
    /// The holes of the last [`FLOOR_KEEP`], if any.
    pub(super) holes: std::sync::Mutex<Option<Holes>>,
    /// One server holds every channel: a probe heard on one channel was heard after
    /// everything published before it on all of them (one connection, in order), so one
    /// channel is probed for all (see `probe`).
    pub(super) one_server: bool,
}

/// The holes in a node's bus of the last [`FLOOR_KEEP`]: what may have been missed since
/// `floor` (Unix ms), until the latest edge (when the node closed its sockets).
pub(super) struct Holes {
    pub(super) floor: i64,
    pub(super) edge_ms: i64,
    pub(super) at: std::time::Instant,
}

impl Holes {
    pub(super) fn edge(floor: i64) -> Self {
        Self {
            floor,
            edge_ms: wall_ms(),
            at: std::time::Instant::now(),
        }
    }
}

impl Probes {
    pub(super) fn new(one_server: bool) -> Self {
        Self {
            one_server,
            mine: format!("{:016x}", rand::random::<u64>()),
            heard: (0..PARTITIONS).map(|_| AtomicU64::new(0)).collect(),
            since: unix_ms(),
            listening: AtomicUsize::new(0),
            holes: std::sync::Mutex::new(None),
        }
    }

    /// A hole begins on the channels of `partitions`: what was published on them since
    /// their last probe heard may be lost, while later messages of the same rooms may
    /// have come on other channels.
    pub(super) fn hole(&self, partitions: impl IntoIterator<Item = usize>) {
        let heard = partitions
            .into_iter()
            .filter_map(|p| self.heard.get(p))
            .map(|h| match h.load(Ordering::Relaxed) {
                0 => self.since,
                at => at,
            })
            .min()
            .unwrap_or(self.since);
        let floor = i64::try_from(heard).unwrap_or(i64::MAX) - CLOCK_SLACK_MS;
        let mut holes = self.holes.lock().unwrap_or_else(|e| e.into_inner());
        let floor = match &*holes {
            Some(kept) if kept.at.elapsed() < FLOOR_KEEP => kept.floor.min(floor),
            _ => floor,
        };
        *holes = Some(Holes::edge(floor));
    }

    /// A hole's last edge: the sockets are closed once more.
    pub(super) fn hole_ends(&self) {
        let mut holes = self.holes.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(kept) = holes.as_mut() {
            *kept = Holes::edge(kept.floor);
        }
    }

    /// Where a resume whose last id is of `last_ms` starts instead: a recent hole's floor,
    /// when the id lies inside the hole (a client may hold it and not an older one). An
    /// id from after the hole's last edge came to a socket opened since, whose resume
    /// started at the floor already.
    pub(super) fn resume_from(&self, last_ms: i64) -> Option<i64> {
        let holes = self.holes.lock().unwrap_or_else(|e| e.into_inner());
        holes
            .as_ref()
            .filter(|h| h.at.elapsed() < FLOOR_KEEP)
            .filter(|h| h.floor < last_ms && last_ms <= h.edge_ms + CLOCK_SLACK_MS)
            .map(|h| h.floor)
    }

    pub(super) fn probe(&self, partition: usize, seq: u64) -> String {
        format!("{PROBE}{}:{partition}:{seq}", self.mine)
    }

    /// Notes a probe from the bus, if it is one of ours.
    pub(super) fn heard(&self, text: &str) {
        let mut parts = text[PROBE.len_utf8()..].split(':');
        if parts.next() != Some(self.mine.as_str()) {
            return;
        }
        let partition = parts.next().and_then(|p| p.parse::<usize>().ok());
        let seq = parts.next().and_then(|q| q.parse::<u64>().ok());
        if let (Some(p), Some(seq)) = (partition, seq) {
            if self.one_server {
                self.heard
                    .iter()
                    .for_each(|heard| _ = heard.fetch_max(seq, Ordering::Relaxed));
            } else if let Some(heard) = self.heard.get(p) {
                heard.fetch_max(seq, Ordering::Relaxed);
            }
        }
    }
}

impl Drop for RedisInbox {
    fn drop(&mut self) {
        self.probes.listening.fetch_sub(1, Ordering::Relaxed);
        let bus = self.bus.clone();
        let instance = std::mem::take(&mut self.instance);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move { bus.leave(instance).await });
        }
    }
}

/// What keeps the bus whole: the subscriber, its channels, whether it is subscribed to
/// all of them, and the signals of a hole's edges.
#[derive(Clone)]
pub(super) struct Bus {
    pub(super) subscriber: SubscriberClient,
    /// The channel for everyone, and the inboxes of the instances listening, latest last
    /// (a node listens for one; it starts over as another, and tests run several).
    pub(super) everyone: String,
    pub(super) inboxes: Arc<std::sync::RwLock<Vec<Listening>>>,
    pub(super) up: Arc<AtomicBool>,
    /// One repair at a time: after a reconnection, or for deaf channels.
    pub(super) repairing: Arc<tokio::sync::Mutex<()>>,
    pub(super) deafened: broadcast::Sender<()>,
    pub(super) resubscribed: broadcast::Sender<()>,
    pub(super) probes: Arc<Probes>,
}

/// Subscribes to the bus's channels, one per call (a cluster takes several in one call only
/// when they share a slot) and one after another: fred follows a `MOVED` answer to
/// `SSUBSCRIBE` only when such calls are not pipelined.
pub(super) async fn subscribe(
    subscriber: &SubscriberClient,
    channels: &[String],
) -> Result<(), EngineError> {
    for channel in channels {
        subscriber.ssubscribe(channel.clone()).await?;
    }
    Ok(())
}

/// Subscribes again whenever the subscriber reconnects (a restarted Redis, a master that
/// failed over): fred's own `manage_subscriptions` gives up on shard channels when it has
/// no plain ones. Until it is done the engine answers pings with an outage, so the node
/// is not ready; once it is, each inbox reports a gap (what was published meanwhile is
/// lost, also to sockets that resumed in between), so the node's sockets resume now.
pub(super) async fn resubscribe(bus: Bus) {
    let mut reconnects = bus.subscriber.reconnect_rx();
    loop {
        match reconnects.recv().await {
            Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {
                let _repairing = bus.repairing.lock().await;
                let all = bus.channels_of(0..PARTITIONS);
                bus.subscribe_again(&all).await;
            }
            Err(broadcast::error::RecvError::Closed) => return,
        }
    }
}

/// An instance listened for: its inbox in each partition, and how many `Inbox`es read it.
pub(super) struct Listening {
    pub(super) instance: String,
    pub(super) channels: Vec<String>,
    pub(super) readers: usize,
}

impl Bus {
    /// The channels this node hears in `partitions`: each instance's inbox there, and in
    /// partition 0 the channel for everyone.
    pub(super) fn channels_of(&self, partitions: impl IntoIterator<Item = usize>) -> Vec<String> {
        let inboxes = self.inboxes.read().unwrap_or_else(|e| e.into_inner());
        let mut channels = Vec::new();
        for p in partitions {
            if p == 0 {
                channels.push(self.everyone.clone());
            }
            channels.extend(inboxes.iter().filter_map(|l| l.channels.get(p).cloned()));
        }
        channels
    }

    /// Listens on the inboxes of `instance` (`channels`), for one more reader.
    pub(super) async fn listen(
        &self,
        instance: &str,
        channels: Vec<String>,
    ) -> Result<(), EngineError> {
        let _repairing = self.repairing.lock().await;
        {
            let mut inboxes = self.inboxes.write().unwrap_or_else(|e| e.into_inner());
            if let Some(l) = inboxes.iter_mut().find(|l| l.instance == instance) {
                l.readers += 1;
                return Ok(());
            }
        }
        subscribe(&self.subscriber, &channels).await?;
        self.inboxes
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .push(Listening {
                instance: instance.to_owned(),
                channels,
                readers: 1,
            });
        Ok(())
    }

    /// A reader of `instance`'s inboxes is gone; with the last, the node stops listening.
    pub(super) async fn leave(&self, instance: String) {
        let _repairing = self.repairing.lock().await;
        let channels = {
            let mut inboxes = self.inboxes.write().unwrap_or_else(|e| e.into_inner());
            let Some(i) = inboxes.iter().position(|l| l.instance == instance) else {
                return;
            };
            inboxes[i].readers -= 1;
            if inboxes[i].readers > 0 {
                return;
            }
            inboxes.remove(i).channels
        };
        for channel in channels {
            if let Err(e) = self.subscriber.sunsubscribe(channel).await {
                tracing::warn!(error = %e, "leaving an instance's inbox");
            }
        }
    }

    /// Ends a hole: subscribes to `channels` again, trying until Redis takes them, while
    /// the node says it is not ready; then tells the inboxes.
    pub(super) async fn subscribe_again(&self, channels: &[String]) {
        self.up.store(false, Ordering::SeqCst);
        while let Err(e) = subscribe(&self.subscriber, channels).await {
            tracing::warn!(error = %e, "subscribing to the bus again");
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        self.up.store(true, Ordering::SeqCst);
        // Nobody listening is not an error: no inbox yet.
        let _ = self.resubscribed.send(());
    }
}

/// Publishes a probe on each of the node's inboxes every [`PROBE_EVERY`] (a channel in
/// each partition, so on every master: partition 0's inbox shares its slot with the
/// channel for everyone; a slot that moves takes one partition's channel), or on one
/// Redis server on partition 0's alone, which speaks for all (see `Probes::one_server`),
/// and repairs the partitions whose
/// last [`PROBE_MISSES`] probes went unheard while later probes came in on other channels:
/// a hole begins (every socket resumes), the channels are subscribed again (to whichever
/// master owns them now), and the hole ends. A listener that falls behind hears no channel
/// and is not taken for deaf; one on a single Redis server has no slot to lose.
pub(super) async fn probe(client: Client, bus: Bus) {
    let mut seq = 0u64;
    // The probes published on each channel and not heard back yet, oldest first.
    let mut unheard: Vec<Vec<u64>> = vec![Vec::new(); PARTITIONS];
    let mut tick = tokio::time::interval(PROBE_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        if bus.probes.listening.load(Ordering::Relaxed) == 0
            || !bus.up.load(Ordering::SeqCst)
            || !bus.subscriber.is_connected()
        {
            unheard.iter_mut().for_each(Vec::clear);
            continue;
        }
        let mut latest = 0;
        for (p, probes) in unheard.iter_mut().enumerate() {
            let heard = bus.probes.heard[p].load(Ordering::Relaxed);
            latest = latest.max(heard);
            probes.retain(|s| *s > heard);
        }
        // Deaf: several probes in a row unheard on a channel while the listener has heard
        // later ones on others. A listener that is only behind hears none of them.
        let deaf: Vec<usize> = (0..PARTITIONS)
            .filter(|p| {
                unheard[*p]
                    .get(PROBE_MISSES - 1)
                    .is_some_and(|missed| latest >= *missed)
            })
            .collect();
        if !deaf.is_empty() {
            let _repairing = bus.repairing.lock().await;
            let channels = bus.channels_of(deaf.iter().copied());
            tracing::error!(
                ?channels,
                "the bus went deaf on some channels (a failover or a slot that moved); subscribing again"
            );
            // Not ready before the inboxes hear of the hole: no socket slips in meanwhile.
            bus.up.store(false, Ordering::SeqCst);
            bus.probes.hole(deaf.iter().copied());
            let _ = bus.deafened.send(());
            bus.subscribe_again(&channels).await;
            deaf.iter().for_each(|p| unheard[*p].clear());
        }
        // Numbered by the time it goes out (see `Probes::heard`), each after the last.
        seq = unix_ms().max(seq + 1);
        // The latest instance's: the node's own (tests run several on one engine).
        let Some(inboxes) = bus
            .inboxes
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .last()
            .map(|l| {
                let probed = if bus.probes.one_server {
                    1
                } else {
                    l.channels.len()
                };
                l.channels[..probed.min(l.channels.len())].to_vec()
            })
        else {
            continue;
        };
        let sent = join_all(
            inboxes
                .into_iter()
                .enumerate()
                .map(|(p, inbox)| client.spublish::<i64, _, _>(inbox, bus.probes.probe(p, seq))),
        )
        .await;
        for (p, sent) in sent.into_iter().enumerate() {
            // A probe that did not go out cannot be missed.
            if sent.is_ok() {
                let probes = &mut unheard[p];
                // Only the last few count (every channel deaf at once is not told apart
                // from a listener that is behind, so nothing else bounds the list).
                if probes.len() >= 4 * PROBE_MISSES {
                    probes.remove(0);
                }
                probes.push(seq);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_hears_only_its_own_probes() {
        let mine = Probes::new(false);
        let theirs = Probes::new(false);
        mine.heard(&mine.probe(3, 7));
        mine.heard(&mine.probe(3, 5));
        mine.heard(&theirs.probe(4, 9));
        mine.heard("~garbage");
        mine.heard(&format!("{PROBE}{}:99:1", mine.mine));
        let heard: Vec<u64> = mine
            .heard
            .iter()
            .map(|h| h.load(Ordering::Relaxed))
            .collect();
        let mut expected = vec![0; PARTITIONS];
        expected[3] = 7;
        assert_eq!(
            heard, expected,
            "the latest of its own, on their own channel"
        );
    }

    #[test]
    fn on_one_server_a_probe_heard_on_one_channel_speaks_for_all() {
        let probes = Probes::new(true);
        let now = unix_ms();
        probes.heard(&probes.probe(0, now - 3_000));
        assert!(probes
            .heard
            .iter()
            .all(|h| h.load(Ordering::Relaxed) == now - 3_000));
        // A reconnection's hole floors resumes at that probe, not at the listening's start.
        probes.hole(0..PARTITIONS);
        let floor = i64::try_from(now - 3_000).unwrap() - CLOCK_SLACK_MS;
        assert_eq!(
            probes.resume_from(i64::try_from(now).unwrap() - 1_000),
            Some(floor)
        );
    }

    #[test]
    fn a_hole_floors_resumes_from_inside_it_at_the_last_probe_heard_on_its_channels() {
        let probes = Probes::new(false);
        let now = unix_ms();
        let ms = |t: u64| i64::try_from(t).unwrap();
        assert_eq!(probes.resume_from(ms(now)), None, "no hole, no floor");
        probes.heard(&probes.probe(1, now - 20_000));
        probes.heard(&probes.probe(2, now - 10_000));
        probes.hole([2]);
        let floor = ms(now - 10_000) - CLOCK_SLACK_MS;
        assert_eq!(probes.resume_from(ms(now - 5_000)), Some(floor));
        assert_eq!(probes.resume_from(floor), None, "from before the hole");
        assert_eq!(
            probes.resume_from(ms(now) + 60_000),
            None,
            "from after its last edge"
        );
        // A later hole on a channel heard earlier moves the floor back, never forward.
        probes.hole([1, 2]);
        let floor = ms(now - 20_000) - CLOCK_SLACK_MS;
        assert_eq!(probes.resume_from(ms(now - 15_000)), Some(floor));
        probes.heard(&probes.probe(1, now - 1_000));
        probes.hole([1]);
        probes.hole_ends();
        assert_eq!(probes.resume_from(ms(now - 15_000)), Some(floor));
        // A channel never heard: everything since listening began.
        let fresh = Probes::new(false);
        fresh.hole([5]);
        let since = ms(fresh.since);
        assert_eq!(fresh.resume_from(since), Some(since - CLOCK_SLACK_MS));
    }
}
