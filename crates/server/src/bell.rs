//! The node's Web Pushes, to the devices whose users turned the bell on: the opening bell,
//! and a 다시 텔레파시 invitation's push (see [`push_invite`]).
//!
//! At the opening (20:00 Seoul), one node sends the bell to every such device.
//! Every node watches the clock; when the evening's bell is due, each tries to take the
//! evening's lease in SQL (`push_openings`), and the one that gets it sends, in batches:
//! it claims a batch of devices for the evening (`last_evening`) before pushing to them,
//! pushes with bounded concurrency, then records the batch's counts, removes the devices
//! the push service no longer knows (404, 410) and renews the lease. A sender that dies
//! stops renewing; after the lease runs out another node takes over from the devices not
//! yet claimed. The pushes a service refuses for now (429, 5xx) are tried once more, after
//! the rest. A claimed device is never pushed to again that evening, so no device is
//! told twice, whatever restarts: at worst the devices of the one batch in flight when a
//! node died miss that evening's bell.

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::NaiveDate;
use futures_util::stream::{self, StreamExt as _};
use telepathy_domain::bell::{
    again_invite_body, again_invite_url, evening_due, opening_at, opening_body, AGAIN_INVITE_TOPIC,
    OPENING_BATCH, OPENING_CONCURRENCY, OPENING_LEASE, OPENING_TOPIC, OPENING_TTL, OPENING_URL,
};
use telepathy_domain::round::RoundAt;
use telepathy_domain::time::millis;
use telepathy_domain::Notice;
use telepathy_providers::{ProviderError, PushDevice, PushMessage, PushOutcome, Urgency};
use telepathy_store::{BatchCounts, PushTarget, StoreError};

use crate::state::AppState;
use crate::wire::AgainInvite;

/// How often a node looks at the clock.
const WATCH_EVERY: Duration = Duration::from_secs(1);
/// After a failure to reach the database, or while another node holds the lease.
const RETRY_AFTER: Duration = Duration::from_secs(5);

/// What came of an attempt to ring an evening's bell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rung {
    /// This node sent (the rest of) the evening's bell.
    Sent(BatchCounts),
    /// Another node holds the lease, or the evening is done.
    NotMine,
    /// Another node took the lease over mid-run (this one was too slow to renew it).
    LeaseLost,
}

/// Watches the clock and rings each evening's bell once it is due.
pub(crate) async fn watch(state: AppState) {
    let mut tick = tokio::time::interval(WATCH_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut finished: Option<NaiveDate> = None;
    let mut next_try = Instant::now();
    loop {
        tick.tick().await;
        if state.realtime.draining() || Instant::now() < next_try {
            continue;
        }
        let now = chrono::DateTime::from_timestamp_millis(state.shared_clock.now_ms())
            .unwrap_or_default();
        let Some(evening) = evening_due(state.realtime.service_window(), now) else {
            continue;
        };
        if finished == Some(evening) {
            continue;
        }
        match ring(&state, evening).await {
            Ok(Rung::Sent(_)) => finished = Some(evening),
            Ok(Rung::NotMine) => match state.store.opening(&evening.to_string()).await {
                Ok(Some(o)) if o.finished_at.is_some() => finished = Some(evening),
                _ => next_try = Instant::now() + RETRY_AFTER,
            },
            Ok(Rung::LeaseLost) => next_try = Instant::now() + RETRY_AFTER,
            Err(e) => {
                tracing::warn!(error = %e, %evening, "ringing the opening bell");
                next_try = Instant::now() + RETRY_AFTER;
            }
        }
    }
}

/// What the service worker shows, and where a click leads; `tag` replaces a notification
/// of the same tag still shown.
fn payload(title: &str, body: &str, url: &str, tag: &str) -> Vec<u8> {
    serde_json::json!({ "title": title, "body": body, "url": url, "tag": tag })
        .to_string()
        .into_bytes()
}

/// Pushes `invite` to every device of `user_id`'s that has the bell on, for as long as
/// the invitation waits: a click opens the app to it. Nothing in it names either person.
/// A device the push service no longer knows is forgotten; a failure is only logged (the
/// invitation still reaches a screen that is open).
pub async fn push_invite(state: &AppState, user_id: i64, invite: &AgainInvite) {
    let targets = match state.store.push_targets_of(user_id).await {
        Ok(targets) => targets,
        Err(e) => return tracing::warn!(error = %e, "reading the devices for an invitation"),
    };
    let wait = invite.expires_at - state.shared_clock.now_ms();
    let Ok(ttl) = u64::try_from(wait).map(Duration::from_millis) else {
        return;
    };
    let body = payload(
        Notice::AgainInviteTitle.message(),
        &again_invite_body(&invite.word),
        &again_invite_url(&invite.invite_id),
        AGAIN_INVITE_TOPIC,
    );
    for target in targets {
        let message = PushMessage {
            payload: &body,
            ttl,
            topic: AGAIN_INVITE_TOPIC,
            urgency: Urgency::High,
        };
        match state.push.push(device_of(&target), message).await {
            Ok(PushOutcome::Accepted) => {}
            Ok(PushOutcome::Gone) => {
                let removed = state
                    .store
                    .remove_push_subscription(target.user_id, &target.endpoint)
                    .await;
                if let Err(e) = removed {
                    tracing::warn!(error = %e, "forgetting a device the push service lost");
                }
            }
            Err(e) => {
                tracing::debug!(error = %e, device = target.id, "an invitation's push failed")
            }
        }
    }
}

fn device_of(target: &PushTarget) -> PushDevice<'_> {
    PushDevice {
        endpoint: &target.endpoint,
        p256dh: &target.p256dh,
        auth: &target.auth,
    }
}

/// The bell's payload: what the service worker shows (the evening's first words among
/// it), and where a click leads.
pub fn opening_payload(first_words: &[String]) -> Vec<u8> {
    payload(
        Notice::OpeningTitle.message(),
        &opening_body(first_words),
        OPENING_URL,
        OPENING_TOPIC,
    )
}

/// The words of `evening`'s first round, the round that starts at the opening.
fn first_words(state: &AppState, evening: NaiveDate) -> Vec<String> {
    let Some(opening) = opening_at(state.realtime.service_window(), evening) else {
        return Vec::new();
    };
    state
        .realtime
        .words_of(RoundAt::of(opening).number)
        .into_iter()
        .map(|w| w.word)
        .collect()
}

/// Rings `evening`'s bell if this node gets the lease: every device not yet told.
pub async fn ring(state: &AppState, evening: NaiveDate) -> Result<Rung, StoreError> {
    let key = evening.to_string();
    let holder = state.realtime.hub.instance();
    let lease_until = |s: &AppState| s.clock.now_ms() + millis(OPENING_LEASE);
    let now = state.clock.now_ms();
    if state
        .store
        .claim_opening(&key, &holder, now, lease_until(state))
        .await?
        .is_none()
    {
        return Ok(Rung::NotMine);
    }
    let started = Instant::now();
    let payload: Arc<[u8]> = opening_payload(&first_words(state, evening)).into();
    let mut total = BatchCounts::default();
    let mut again = Vec::new();
    let mut retried = false;
    loop {
        let batch = match state
            .store
            .claim_push_batch(&key, &holder, OPENING_BATCH, state.clock.now_ms())
            .await?
        {
            claimed if !claimed.is_empty() => claimed,
            // The devices refused for now, once, when the rest is done: a moment later,
            // and without holding up a batch.
            _ if !again.is_empty() && !retried => {
                retried = true;
                tokio::time::sleep(RETRY_PUSH_AFTER).await;
                std::mem::take(&mut again)
            }
            _ => break,
        };
        let pushed = push_batch(state, batch, &payload, !retried).await;
        total.sent += pushed.counts.sent;
        total.gone += pushed.counts.gone;
        total.failed += pushed.counts.failed;
        again.extend(pushed.again);
        if !state
            .store
            .record_push_batch(
                &key,
                &holder,
                pushed.counts,
                &pushed.gone,
                lease_until(state),
            )
            .await?
        {
            tracing::warn!(%evening, "another node took over the opening bell");
            return Ok(Rung::LeaseLost);
        }
    }
    if !state
        .store
        .finish_opening(&key, &holder, state.clock.now_ms())
        .await?
    {
        return Ok(Rung::LeaseLost);
    }
    state.metrics.opening_runs.inc();
    tracing::info!(
        %evening,
        sent = total.sent,
        gone = total.gone,
        failed = total.failed,
        ms = started.elapsed().as_millis() as u64,
        "rang the opening bell"
    );
    Ok(Rung::Sent(total))
}

/// How long the pushes refused for now wait, after the rest, before their one retry.
const RETRY_PUSH_AFTER: Duration = Duration::from_secs(1);

/// Whether the push service refused a push without taking it, for a moment (RFC 8030: 429,
/// or a 5xx of its own). Never a timeout, which may have been taken: a retry could tell
/// twice.
fn refused_for_now(error: &ProviderError) -> bool {
    matches!(error, ProviderError::Rejected { status, .. } if *status == 429 || (500..600).contains(status))
}

/// What came of one batch.
struct Pushed {
    counts: BatchCounts,
    /// The devices the push service no longer knows.
    gone: Vec<i64>,
    /// The devices refused for now, to try once more (counted nowhere yet).
    again: Vec<PushTarget>,
}

/// Pushes to one batch, `OPENING_CONCURRENCY` at a time. With `may_retry`, a push refused
/// for now is handed back rather than counted as failed.
async fn push_batch(
    state: &AppState,
    batch: Vec<PushTarget>,
    payload: &Arc<[u8]>,
    may_retry: bool,
) -> Pushed {
    let outcomes: Vec<(PushTarget, Result<PushOutcome, ProviderError>)> = stream::iter(batch)
        .map(|target| {
            let (push, payload) = (state.push.clone(), Arc::clone(payload));
            async move {
                let device = device_of(&target);
                let message = PushMessage {
                    payload: &payload,
                    ttl: OPENING_TTL,
                    topic: OPENING_TOPIC,
                    urgency: Urgency::High,
                };
                let outcome = push.push(device, message).await;
                (target, outcome)
            }
        })
        .buffer_unordered(OPENING_CONCURRENCY)
        .collect()
        .await;
    let mut pushed = Pushed {
        counts: BatchCounts::default(),
        gone: Vec::new(),
        again: Vec::new(),
    };
    let metrics = &state.metrics;
    for (target, outcome) in outcomes {
        match outcome {
            Ok(PushOutcome::Accepted) => {
                pushed.counts.sent += 1;
                metrics.count_opening_push("sent");
            }
            Ok(PushOutcome::Gone) => {
                pushed.counts.gone += 1;
                pushed.gone.push(target.id);
                metrics.count_opening_push("gone");
            }
            Err(e) if may_retry && refused_for_now(&e) => {
                pushed.again.push(target);
                metrics.count_opening_push("deferred");
            }
            Err(e) => {
                pushed.counts.failed += 1;
                tracing::debug!(error = %e, device = target.id, "an opening push failed");
                metrics.count_opening_push("failed");
            }
        }
    }
    pushed
}
