//! The node's background work: real time's (see `Realtime::start`), and beside it the
//! housekeeping of what is kept (retention, withdrawn accounts, suspensions), the count of
//! reports waiting for an operator, and the opening bell.

use std::time::Duration;

use telepathy_domain::limits::{REPORT_DUE, WITHDRAWN_KEEP_DAYS};
use telepathy_domain::time::millis;

use crate::realtime::every;
use crate::state::AppState;

const PURGE_EVERY: Duration = Duration::from_secs(300);
/// How often every node counts the reports waiting for an operator (for its metrics).
const REPORT_QUEUE_EVERY: Duration = Duration::from_secs(60);

/// Starts the node's background tasks. Call once, before serving: it joins the engine as
/// a live node instance listening for its events.
pub async fn start(state: &AppState) -> anyhow::Result<()> {
    state.realtime.start().await?;
    tokio::spawn(every(state.clone(), PURGE_EVERY, |s| async move {
        housekeeping(&s).await
    }));
    tokio::spawn(every(state.clone(), REPORT_QUEUE_EVERY, |s| async move {
        count_report_queue(&s).await
    }));
    tokio::spawn(crate::bell::watch(state.clone()));
    Ok(())
}

/// Counts the reports waiting for an operator into the node's metrics. Every node counts
/// (one small query a minute), so whichever node is scraped tells the queue.
pub async fn count_report_queue(state: &AppState) {
    let due_before = state
        .shared_clock
        .now_ms()
        .saturating_sub(millis(REPORT_DUE));
    match state
        .metrics
        .store("report_queue", state.store.report_queue(due_before))
        .await
    {
        Ok(queue) => {
            state.metrics.reports_open.set(queue.open);
            state.metrics.reports_overdue.set(queue.overdue);
        }
        Err(e) => tracing::warn!(error = %e, "counting the reports waiting"),
    }
}

/// What the privacy policy and the sanctions promise, done by one node at a time: chat
/// messages past their retention are deleted, accounts withdrawn more than six months
/// ago lose their personal data, and suspensions that ran out are marked lifted (the
/// login checks the end time itself, so nobody waits for this turn to be let back in).
pub async fn housekeeping(state: &AppState) {
    if !state.realtime.lease("purge", PURGE_EVERY).await {
        return;
    }
    const DAY_MS: i64 = 24 * 3600 * 1000;
    let now = state.clock.now_ms();
    let cutoff = now - state.config.retention_days * DAY_MS;
    match state.store.purge_messages_before(cutoff).await {
        Ok(0) => {}
        Ok(n) => tracing::info!(purged = n, "chat messages past retention deleted"),
        Err(e) => tracing::warn!(error = %e, "purging old chat messages"),
    }
    let cutoff = now - WITHDRAWN_KEEP_DAYS * DAY_MS;
    match state.store.erase_withdrawn_before(cutoff).await {
        Ok(0) => {}
        Ok(n) => tracing::info!(erased = n, "withdrawn accounts past retention erased"),
        Err(e) => tracing::warn!(error = %e, "erasing withdrawn accounts"),
    }
    match state.store.lift_expired_sanctions(now).await {
        Ok(0) => {}
        Ok(n) => tracing::info!(lifted = n, "suspensions that ran out lifted"),
        Err(e) => tracing::warn!(error = %e, "lifting suspensions"),
    }
}
