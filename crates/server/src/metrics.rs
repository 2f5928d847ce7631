//! What a node counts, served at `GET /metrics` in the Prometheus text format
//! (prometheus-client). One `Metrics` per node, in `AppState`.

use std::future::Future;
use std::time::Instant;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

/// Latency buckets in seconds, 100 µs to ~6.5 s.
fn latency() -> Histogram {
    Histogram::new(prometheus_client::metrics::histogram::exponential_buckets(
        0.000_1, 2.0, 17,
    ))
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct Op {
    pub op: &'static str,
}

// Every label the counters below are counted under, one list per family: each exists at
// zero from the node's start, so that a panel shows 0 rather than "No data" and
// `increase()` sees the first error. A unit test reads the call sites
// (`every_counted_label_is_listed`): add a new operation or outcome here.

/// The engine calls counted by [`Metrics::engine`] (`engine_errors`).
const ENGINE_OPS: &[&str] = &[
    "attach",
    "broadcast",
    "deliver",
    "detach",
    "end_room",
    "heartbeat",
    "join",
    "relay",
    "room",
    "room_of",
    "seat_pair",
    "send",
    "take",
    "give_back",
    "take_air",
];

/// The database calls counted by [`Metrics::store`] (`store_errors`).
const STORE_OPS: &[&str] = &[
    "active_restriction",
    "archive_messages",
    "kept_apart",
    "mark_room_ended",
    "record_matches",
    "report_queue",
    "room_record",
    "session_user",
    "user_by_id",
];

/// The batches whose refused rows [`Metrics::count_rejected`] counts (`store_rejected`).
const STORE_REJECTED_OPS: &[&str] = &["archive_messages", "record_matches"];

/// The outcomes [`Metrics::count_card_payment`] counts (`card_payments`).
const CARD_PAYMENT_OUTCOMES: &[&str] = &["granted", "repeated", "refused", "unpaid"];

/// The outcomes [`Metrics::count_opening_push`] counts (`opening_pushes`).
const OPENING_PUSH_OUTCOMES: &[&str] = &["sent", "gone", "failed", "deferred"];

/// The lanes [`Metrics::count_login_hash`] counts (`login_hashes`): a user's login
/// checked in the known or the other lane of the hashing line, or refused because the
/// other lane was full.
const LOGIN_HASH_LANES: &[&str] = &["known", "other", "busy"];

/// A family of counters by `op`, each of `ops` at zero.
fn counters_at_zero(ops: &[&'static str]) -> Family<Op, Counter> {
    let family = Family::<Op, Counter>::default();
    for &op in ops {
        // Made at zero; the guard (the family's lock) is let go at once.
        drop(family.get_or_create(&Op { op }));
    }
    family
}

/// A rate limit, by the first part of its counter's name (`login`, `sms`, `lookup`, …).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct Limit {
    pub limit: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct Route {
    pub route: String,
    pub status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RouteOnly {
    pub route: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct Need {
    pub need: &'static str,
}

/// Events the bus brought, by whether a socket here needed them. Routing by interest
/// keeps `unneeded` at zero but for races (a socket that closed as its event was sent).
pub struct EventsIn {
    pub needed: Counter,
    pub unneeded: Counter,
}

/// Connections given up on a client that sent too slowly or went silent, by what it was
/// doing (the listener's clock and the API's body deadline).
#[derive(Clone)]
pub struct Cut {
    pub head: Counter,
    pub body: Counter,
    pub idle: Counter,
    pub socket: Counter,
}

/// Chat messages masked before delivery, by what was found.
pub struct Masked {
    pub abuse: Counter,
    pub contact: Counter,
}

/// Typing notices from sockets: told to the partner, or skipped because a chat message
/// since the last one already told the partner that typing stopped.
pub struct Typing {
    pub told: Counter,
    pub skipped: Counter,
}

/// Reports filed, by who filed them.
pub struct Reports {
    pub user: Counter,
    pub filter: Counter,
}

/// Sockets the server closed, by reason.
pub struct Kicked {
    pub slow: Counter,
    pub resync: Counter,
    pub drain: Counter,
    pub flood: Counter,
    pub too_big: Counter,
    pub replaced: Counter,
}

pub struct Metrics {
    registry: Registry,
    pub sockets_open: Gauge,
    pub users_online: Gauge,
    pub joins: Counter,
    pub matches: Counter,
    /// From a join frame's arrival to both `matched` frames handed to the engine.
    pub match_latency: Histogram,
    pub messages: Counter,
    /// From a chat frame's arrival to the engine's acknowledgement (stored and routed).
    pub relay_latency: Histogram,
    /// Events delivered from the bus to this node's sockets.
    pub events_in: EventsIn,
    pub sockets_kicked: Kicked,
    pub connections_cut: Cut,
    pub messages_masked: Masked,
    pub typing: Typing,
    /// Read marks (`chatRead`) told to the partner.
    pub read_marks: Counter,
    pub reports: Reports,
    /// Reports waiting for an operator, and those of them past their due time (24 hours),
    /// as of this node's last look at the database.
    pub reports_open: Gauge,
    pub reports_overdue: Gauge,
    /// Megaphones sent to everyone online.
    pub megaphones_sent: Counter,
    /// Card payments looked at, by outcome (op): granted, repeated (paid before, nothing
    /// more granted), refused (not ours, another amount or order), unpaid.
    card_payments: Family<Op, Counter>,
    /// Opening-bell pushes, by outcome (op): sent, gone (the subscription was removed),
    /// failed, deferred (refused for now, tried once more after the rest).
    opening_pushes: Family<Op, Counter>,
    /// Evening sends this node finished.
    pub opening_runs: Counter,
    /// Times the bus lost events for this node (lag or reconnection); each closes every
    /// socket of the node.
    pub bus_gaps: Counter,
    engine_errors: Family<Op, Counter>,
    engine_latency: Family<Op, Histogram, fn() -> Histogram>,
    store_errors: Family<Op, Counter>,
    store_latency: Family<Op, Histogram, fn() -> Histogram>,
    /// Rows of a batch the database refused, by operation: each was left out, logged once,
    /// and held back none of the others.
    store_rejected: Family<Op, Counter>,
    pub http_requests: Family<Route, Counter>,
    /// Events refused by a rate limit, by limit.
    pub rate_limited: Family<Limit, Counter>,
    /// Users' logins whose password was checked, by lane, and those refused as busy.
    login_hashes: Family<Op, Counter>,
    pub http_latency: Family<RouteOnly, Histogram, fn() -> Histogram>,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    pub fn new() -> Self {
        let mut registry = Registry::with_prefix("telepathy");
        let kicked = Family::<Op, Counter>::default();
        // One statement per counter: each `get_or_create` holds the family's lock until
        // the end of its statement.
        let slow = kicked.get_or_create(&Op { op: "slow" }).clone();
        let resync = kicked.get_or_create(&Op { op: "resync" }).clone();
        let drain = kicked.get_or_create(&Op { op: "drain" }).clone();
        let flood = kicked.get_or_create(&Op { op: "flood" }).clone();
        let too_big = kicked.get_or_create(&Op { op: "too_big" }).clone();
        let replaced = kicked.get_or_create(&Op { op: "replaced" }).clone();
        let events_in = Family::<Need, Counter>::default();
        let needed = events_in.get_or_create(&Need { need: "some" }).clone();
        let unneeded = events_in.get_or_create(&Need { need: "none" }).clone();
        let cut = Family::<Op, Counter>::default();
        let cut_head = cut.get_or_create(&Op { op: "head" }).clone();
        let cut_body = cut.get_or_create(&Op { op: "body" }).clone();
        let cut_idle = cut.get_or_create(&Op { op: "idle" }).clone();
        let cut_socket = cut.get_or_create(&Op { op: "socket" }).clone();
        let masked = Family::<Op, Counter>::default();
        let abuse = masked.get_or_create(&Op { op: "abuse" }).clone();
        let contact = masked.get_or_create(&Op { op: "contact" }).clone();
        let typing = Family::<Op, Counter>::default();
        let told = typing.get_or_create(&Op { op: "told" }).clone();
        let skipped = typing.get_or_create(&Op { op: "skipped" }).clone();
        let reports = Family::<Op, Counter>::default();
        let by_user = reports.get_or_create(&Op { op: "user" }).clone();
        let by_filter = reports.get_or_create(&Op { op: "filter" }).clone();
        let metrics = Self {
            sockets_open: Gauge::default(),
            users_online: Gauge::default(),
            joins: Counter::default(),
            matches: Counter::default(),
            match_latency: latency(),
            messages: Counter::default(),
            relay_latency: latency(),
            events_in: EventsIn { needed, unneeded },
            sockets_kicked: Kicked {
                slow,
                resync,
                drain,
                flood,
                too_big,
                replaced,
            },
            connections_cut: Cut {
                head: cut_head,
                body: cut_body,
                idle: cut_idle,
                socket: cut_socket,
            },
            messages_masked: Masked { abuse, contact },
            typing: Typing { told, skipped },
            read_marks: Counter::default(),
            reports: Reports {
                user: by_user,
                filter: by_filter,
            },
            reports_open: Gauge::default(),
            reports_overdue: Gauge::default(),
            megaphones_sent: Counter::default(),
            card_payments: counters_at_zero(CARD_PAYMENT_OUTCOMES),
            opening_pushes: counters_at_zero(OPENING_PUSH_OUTCOMES),
            opening_runs: Counter::default(),
            bus_gaps: Counter::default(),
            engine_errors: counters_at_zero(ENGINE_OPS),
            engine_latency: Family::new_with_constructor(latency),
            store_errors: counters_at_zero(STORE_OPS),
            store_latency: Family::new_with_constructor(latency),
            store_rejected: counters_at_zero(STORE_REJECTED_OPS),
            http_requests: Family::default(),
            rate_limited: Family::default(),
            login_hashes: counters_at_zero(LOGIN_HASH_LANES),
            http_latency: Family::new_with_constructor(latency),
            registry: Registry::default(),
        };
        let r = &mut registry;
        r.register(
            "sockets_open",
            "WebSockets open on this node",
            metrics.sockets_open.clone(),
        );
        r.register(
            "users_online",
            "Distinct users connected to any live node (as of this node's last heartbeat)",
            metrics.users_online.clone(),
        );
        r.register("joins", "join_match frames accepted", metrics.joins.clone());
        r.register(
            "matches",
            "Rooms made on this node",
            metrics.matches.clone(),
        );
        r.register(
            "match_latency_seconds",
            "From a join frame to both matched frames handed to the engine",
            metrics.match_latency.clone(),
        );
        r.register(
            "messages",
            "Chat messages stored and routed",
            metrics.messages.clone(),
        );
        r.register(
            "relay_latency_seconds",
            "From a chat frame to its acknowledgement by the engine",
            metrics.relay_latency.clone(),
        );
        r.register(
            "events_in",
            "Events from the bus, by whether a socket of this node needed them (need): some (one of its users, or everyone), none (routed here in vain)",
            events_in,
        );
        r.register(
            "sockets_kicked",
            "Sockets closed by the server, by reason (op): slow, resync and drain so that their clients reconnect and resume; flood and too_big for frames past the protocol's limits; replaced for a user's oldest socket beyond their limit",
            kicked,
        );
        r.register(
            "connections_cut",
            "Connections given up on a client that sent too slowly or went silent, by what it was doing (op): head (a request's head unfinished), body (an API request's body unfinished: 408), idle (silent between requests), socket (a WebSocket silent, pongs included)",
            cut,
        );
        r.register(
            "messages_masked",
            "Chat messages delivered masked, by what was found (op): abusive words, or contact details early in a chat",
            masked,
        );
        r.register(
            "typing_notices",
            "Typing notices (typing, stopTyping) from sockets, by what became of them (op): told to the partner, or skipped (a stopTyping after the user's chat message, which already told the partner)",
            typing,
        );
        r.register(
            "read_marks",
            "Read marks (chatRead: what a member has read, or a request for the partner's) told to the partner",
            metrics.read_marks.clone(),
        );
        r.register(
            "reports",
            "Reports filed, by who filed them (op): a user, or the abuse filter flagging a chat",
            reports,
        );
        r.register(
            "reports_open",
            "Reports waiting for an operator (every node looks once a minute)",
            metrics.reports_open.clone(),
        );
        r.register(
            "reports_overdue",
            "Reports waiting for an operator for longer than their 24 hours",
            metrics.reports_overdue.clone(),
        );
        r.register(
            "megaphones_sent",
            "Megaphones sent to everyone online",
            metrics.megaphones_sent.clone(),
        );
        r.register(
            "card_payments",
            "Card payments looked at, by outcome (op): granted, repeated, refused, unpaid",
            metrics.card_payments.clone(),
        );
        r.register(
            "opening_pushes",
            "Opening-bell pushes, by outcome (op): sent, gone (subscription removed), failed, deferred (tried again)",
            metrics.opening_pushes.clone(),
        );
        r.register(
            "opening_runs",
            "Evening opening-bell sends this node finished",
            metrics.opening_runs.clone(),
        );
        r.register(
            "bus_gaps",
            "Times events for this node may have been lost on the bus; every socket was closed to resync",
            metrics.bus_gaps.clone(),
        );
        r.register(
            "engine_errors",
            "Failed calls to the engine (Redis or memory), by operation",
            metrics.engine_errors.clone(),
        );
        r.register(
            "engine_latency_seconds",
            "Engine call latency, by operation",
            metrics.engine_latency.clone(),
        );
        r.register(
            "store_errors",
            "Failed calls to the database, by operation",
            metrics.store_errors.clone(),
        );
        r.register(
            "store_latency_seconds",
            "Database call latency, by operation",
            metrics.store_latency.clone(),
        );
        r.register(
            "store_rejected",
            "Rows of a batch the database refused and that were left out (each logged once), by operation",
            metrics.store_rejected.clone(),
        );
        r.register(
            "http_requests",
            "HTTP requests, by route (the API's operation id) and status",
            metrics.http_requests.clone(),
        );
        r.register(
            "rate_limited",
            "Requests and frames refused by a rate limit, by limit (the first part of its counter's name)",
            metrics.rate_limited.clone(),
        );
        r.register(
            "login_hashes",
            "Users' logins whose password was hashed, by lane of the hashing line (known: a browser that logged in before), and those refused because the other lane was full (busy)",
            metrics.login_hashes.clone(),
        );
        r.register(
            "http_latency_seconds",
            "HTTP request latency, by route",
            metrics.http_latency.clone(),
        );
        Self {
            registry,
            ..metrics
        }
    }

    /// The text exposition of every metric.
    pub fn encode(&self) -> String {
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut out, &self.registry);
        out
    }

    /// Runs an engine call, recording its latency and failure under `op`.
    pub async fn engine<T, E>(
        &self,
        op: &'static str,
        call: impl Future<Output = Result<T, E>>,
    ) -> Result<T, E> {
        timed(&self.engine_latency, &self.engine_errors, op, call).await
    }

    /// Runs a database call, recording its latency and failure under `op`.
    pub async fn store<T, E>(
        &self,
        op: &'static str,
        call: impl Future<Output = Result<T, E>>,
    ) -> Result<T, E> {
        timed(&self.store_latency, &self.store_errors, op, call).await
    }

    /// Counts one row of a batch the database refused.
    pub fn count_rejected(&self, op: &'static str) {
        self.store_rejected.get_or_create(&Op { op }).inc();
    }

    /// Counts one card payment looked at, by its outcome.
    pub fn count_card_payment(&self, outcome: &'static str) {
        self.card_payments.get_or_create(&Op { op: outcome }).inc();
    }

    /// Counts one opening-bell push, by its outcome.
    pub fn count_opening_push(&self, outcome: &'static str) {
        self.opening_pushes.get_or_create(&Op { op: outcome }).inc();
    }

    /// Counts one user's login at the hashing line, by `lane` (see `LOGIN_HASH_LANES`).
    pub fn count_login_hash(&self, lane: &'static str) {
        self.login_hashes.get_or_create(&Op { op: lane }).inc();
    }

    /// Counts one HTTP request.
    pub fn http(&self, route: String, status: u16, seconds: f64) {
        self.http_latency
            .get_or_create(&RouteOnly {
                route: route.clone(),
            })
            .observe(seconds);
        self.http_requests
            .get_or_create(&Route { route, status })
            .inc();
    }
}

async fn timed<T, E>(
    latency: &Family<Op, Histogram, fn() -> Histogram>,
    errors: &Family<Op, Counter>,
    op: &'static str,
    call: impl Future<Output = Result<T, E>>,
) -> Result<T, E> {
    let start = Instant::now();
    let result = call.await;
    let label = Op { op };
    latency
        .get_or_create(&label)
        .observe(start.elapsed().as_secs_f64());
    if result.is_err() {
        errors.get_or_create(&label).inc();
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_counters_and_families() {
        let m = Metrics::new();
        m.messages.inc();
        m.sockets_kicked.slow.inc();
        m.http("login".into(), 200, 0.01);
        let text = m.encode();
        assert!(text.contains("telepathy_messages_total 1"), "{text}");
        assert!(
            text.contains("telepathy_sockets_kicked_total{op=\"slow\"} 1"),
            "{text}"
        );
        assert!(
            text.contains("telepathy_http_requests_total{route=\"login\",status=\"200\"} 1"),
            "{text}"
        );
        assert!(
            text.contains("telepathy_relay_latency_seconds_bucket"),
            "{text}"
        );
    }

    #[test]
    fn a_fresh_node_counts_every_known_label_at_zero() {
        let text = Metrics::new().encode();
        let families = [
            ("engine_errors", ENGINE_OPS),
            ("store_errors", STORE_OPS),
            ("store_rejected", STORE_REJECTED_OPS),
            ("card_payments", CARD_PAYMENT_OUTCOMES),
            ("opening_pushes", OPENING_PUSH_OUTCOMES),
            ("login_hashes", LOGIN_HASH_LANES),
        ];
        for (family, ops) in families {
            for op in ops {
                let line = format!("telepathy_{family}_total{{op=\"{op}\"}} 0\n");
                assert!(text.contains(&line), "{line} in {text}");
            }
        }
    }

    /// Every label a call site counts under is one of its family's list, so the family
    /// starts with it at zero. The call sites are read from the crate's source: a label is
    /// a string literal, or a `const` of the same file.
    #[test]
    fn every_counted_label_is_listed() {
        let families: [(&str, &[&str]); 6] = [
            ("metrics.engine(", ENGINE_OPS),
            ("metrics.store(", STORE_OPS),
            ("metrics.count_rejected(", STORE_REJECTED_OPS),
            ("metrics.count_card_payment(", CARD_PAYMENT_OUTCOMES),
            ("metrics.count_opening_push(", OPENING_PUSH_OUTCOMES),
            ("metrics.count_login_hash(", LOGIN_HASH_LANES),
        ];
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = vec![src];
        let mut calls = 0;
        while let Some(path) = files.pop() {
            if path.is_dir() {
                let entries = std::fs::read_dir(&path).unwrap_or_else(|e| panic!("{e}"));
                files.extend(entries.map(|e| e.unwrap_or_else(|e| panic!("{e}")).path()));
                continue;
            }
            // This file names the calls in its tests, and makes none.
            if path.extension().is_none_or(|x| x != "rs") || path.ends_with("src/metrics.rs") {
                continue;
            }
            let source = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
            let code: String = source.chars().filter(|c| !c.is_whitespace()).collect();
            for (call, known) in families {
                for (at, _) in code.match_indices(call) {
                    let labels = labels_at(&code, &code[at + call.len()..]);
                    assert!(
                        !labels.is_empty(),
                        "{}: a `{call}` whose label is neither a string literal nor a const of the file",
                        path.display()
                    );
                    for label in labels {
                        assert!(
                            known.contains(&label),
                            "{}: `{call}` counts under \"{label}\", which metrics.rs does not list",
                            path.display()
                        );
                    }
                    calls += 1;
                }
            }
        }
        // The reading found the call sites (33 when this was written).
        assert!(calls >= 30, "only {calls} call sites found");
    }

    /// The label `argument` (the source after a call's parenthesis, without white space)
    /// names: a string literal, or every value of a `const` of that name in `code`.
    fn labels_at<'a>(code: &'a str, argument: &'a str) -> Vec<&'a str> {
        if let Some(literal) = argument.strip_prefix('"') {
            return literal.split('"').take(1).collect();
        }
        let name: String = argument
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() {
            return Vec::new();
        }
        let definition = format!("const{name}:&str=\"");
        code.match_indices(&definition)
            .filter_map(|(at, _)| code[at + definition.len()..].split('"').next())
            .collect()
    }
}
