//! The send lanes: chat messages and notices on their way to Redis, in batches of one
//! script call per Redis server.

use std::collections::HashMap;
use std::time::Duration;

use fred::prelude::*;
use fred::types::config::Server;
use fred::types::scripts::Script;
use futures_util::future::join_all;
use tokio::sync::{mpsc, oneshot};

use super::{CALL_TIMEOUT, COMMAND_QUEUE};
use crate::{EngineError, STREAM_MAX};

/// One chat message or notice, waiting for its batch: its partition's anchor, and its part
/// of the call's arguments (room stream key, event prefix, stored data ('' for a notice),
/// frame tail, client id key or '' (for a notice, whom it is for); see `SEND`).
pub(super) struct SendJob {
    pub(super) anchor: String,
    pub(super) args: [String; 5],
    pub(super) answer: oneshot::Sender<Result<Option<String>, EngineError>>,
}

impl SendJob {
    /// The slot of the job's partition, which picks its lane.
    pub(super) fn slot(&self) -> u16 {
        fred::util::redis_keyslot(self.anchor.as_bytes())
    }
}

/// Chat messages and notices (typing) go to Redis in batches, one lane per Redis server (a
/// cluster's master): on a busy lane the first of a batch waits for others, until
/// [`SEND_DEPTH`] wait or for at most [`SEND_LINGER`]; on a quiet one it goes at once (see
/// [`lingers`]); those queued while a batch is out go in the next. A
/// batch is one script call (see `SEND` in the scripts), so Redis starts Lua once for the
/// batch and publishes its events in one message per node, which each node reads in one
/// frame. A room's messages and notices keep their order (one lane, one batch after
/// another). A master that fails stalls only its own lane. Measured: see
/// loadtest/RESULTS.md.
pub(super) const SEND_BATCH: usize = 256;
/// A call costs Redis and both nodes a fixed part beside its messages' own, so what a
/// message costs hangs on how deep its batch is: sent at once, one by one, a message of
/// the plain bench shape cost a third more than in batches of about eight. A batch this
/// deep goes at once; a shallower one waits out the linger.
pub(super) const SEND_DEPTH: usize = 32;
/// Long enough for a lane under load to gather a few messages, short enough that a
/// message's median wait stays about a millisecond (the timer's grain).
pub(super) const SEND_LINGER: Duration = Duration::from_millis(1);
/// A lane whose last batch began longer ago than this is quiet: a linger would gather next
/// to nothing there (at under one job in `SEND_QUIET` it holds one job in most batches
/// anyway) and only add its wait to each message.
pub(super) const SEND_QUIET: Duration = Duration::from_millis(3);

/// Whether a batch whose first job came at `now` waits for others: only when the lane began
/// its last batch less than [`SEND_QUIET`] before, so a lane under load keeps its batches
/// deep, and a message on a quiet one (a node at night) is not held up for nothing.
pub(super) fn lingers(last_began: Option<tokio::time::Instant>, now: tokio::time::Instant) -> bool {
    last_began.is_some_and(|at| now.saturating_duration_since(at) < SEND_QUIET)
}

pub(super) struct Lanes {
    pub(super) client: Client,
    pub(super) script: Script,
    pub(super) state: std::sync::Mutex<LaneState>,
}

/// How long a slot keeps the lane it was given before the cluster's routing is read again:
/// reading it clones fred's whole routing table, too much for every message. Were a slot
/// to move meanwhile, its messages still reach the right master (fred routes each call by
/// its slot), only in another server's batches for that long.
pub(super) const LANE_REFRESH: Duration = Duration::from_secs(1);

#[derive(Default)]
pub(super) struct LaneState {
    /// The lane of each slot in use (one per partition), since `read_at`.
    pub(super) by_slot: HashMap<u16, mpsc::Sender<SendJob>>,
    pub(super) read_at: Option<std::time::Instant>,
    pub(super) by_server: HashMap<Option<Server>, mpsc::Sender<SendJob>>,
}

impl Lanes {
    /// The lane of the server that holds `slot` (one lane on a single server), started
    /// when first needed.
    pub(super) fn lane(&self, slot: u16) -> mpsc::Sender<SendJob> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.read_at.is_none_or(|at| at.elapsed() > LANE_REFRESH) {
            state.by_slot.clear();
            state.read_at = Some(std::time::Instant::now());
        }
        if let Some(lane) = state.by_slot.get(&slot) {
            return lane.clone();
        }
        let server = self
            .client
            .cached_cluster_state()
            .and_then(|routing| routing.get_server(slot).cloned());
        let lane = state
            .by_server
            .entry(server)
            .or_insert_with(|| {
                let (lane, jobs) = mpsc::channel(COMMAND_QUEUE);
                tokio::spawn(send_batches(self.client.clone(), self.script.clone(), jobs));
                lane
            })
            .clone();
        state.by_slot.insert(slot, lane.clone());
        lane
    }
}

pub(super) async fn send_batches(
    client: Client,
    script: Script,
    mut jobs: mpsc::Receiver<SendJob>,
) {
    let mut batch = Vec::with_capacity(SEND_BATCH);
    let mut last_began = None;
    while jobs.recv_many(&mut batch, SEND_BATCH).await > 0 {
        let now = tokio::time::Instant::now();
        let until = now + SEND_LINGER;
        let linger = lingers(last_began, now);
        last_began = Some(now);
        while linger && batch.len() < SEND_DEPTH {
            let room = SEND_BATCH - batch.len();
            let more = jobs.recv_many(&mut batch, room);
            if !matches!(tokio::time::timeout_at(until, more).await, Ok(n) if n > 0) {
                break;
            }
        }
        let answers = send_call(&client, &script, &batch).await;
        let mut away = Vec::new();
        for (job, answer) in batch.drain(..).zip(answers) {
            match answer {
                Ok(Some(id)) if id.is_empty() => away.push(job),
                answer => {
                    let _ = job.answer.send(answer);
                }
            }
        }
        // Keys that were not on the batch's server (a slot moved since the lanes were
        // drawn): each such message is sent again alone, routed by its own slot.
        join_all(away.into_iter().map(|job| async {
            let answer = match send_call(&client, &script, std::slice::from_ref(&job))
                .await
                .pop()
            {
                Some(Ok(Some(id))) if id.is_empty() => Err(keys_away()),
                Some(answer) => answer,
                None => Err(keys_away()),
            };
            let _ = job.answer.send(answer);
        }))
        .await;
    }
}

/// One call of the send script for `jobs` (not empty), routed by the first's slot; an
/// answer per job.
pub(super) async fn send_call(
    client: &Client,
    script: &Script,
    jobs: &[SendJob],
) -> Vec<Result<Option<String>, EngineError>> {
    let mut args = Vec::with_capacity(1 + jobs.len() * 5);
    args.push(STREAM_MAX.to_string());
    for job in jobs {
        args.extend(job.args.iter().cloned());
    }
    // After a Redis restart the script is gone: loaded again, and the call made again.
    let answers: Result<Vec<Option<String>>, _> = script
        .evalsha_with_reload(client, jobs[0].anchor.clone(), args)
        .await;
    match answers {
        Ok(answers) if answers.len() == jobs.len() => answers.into_iter().map(Ok).collect(),
        Ok(answers) => {
            let e = format!("{} answers to {} chat messages", answers.len(), jobs.len());
            jobs.iter()
                .map(|_| Err(EngineError::Protocol(e.clone())))
                .collect()
        }
        Err(e) => jobs
            .iter()
            .map(|_| Err(EngineError::Redis(e.clone())))
            .collect(),
    }
}

/// The answer to a chat message or notice handed to a lane: a message waits for the batch
/// before it too, so it gets one call's time in all.
pub(super) async fn answer_of(
    answered: oneshot::Receiver<Result<Option<String>, EngineError>>,
) -> Result<Option<String>, EngineError> {
    match tokio::time::timeout(CALL_TIMEOUT, answered).await {
        Ok(answer) => answer.map_err(|_| closing())?,
        Err(_) => Err(EngineError::Redis(fred::error::Error::new(
            fred::error::ErrorKind::Timeout,
            "a chat message waited too long for Redis",
        ))),
    }
}

pub(super) fn closing() -> EngineError {
    EngineError::Protocol("the engine is closing".into())
}

/// A chat message whose keys were not where its call was routed, even alone (its slot is
/// being moved): an outage for the sender, who tries again.
pub(super) fn keys_away() -> EngineError {
    EngineError::Redis(fred::error::Error::new(
        fred::error::ErrorKind::Cluster,
        "a chat message's keys are being moved to another server",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::time::Instant;

    #[test]
    fn a_lane_lingers_only_while_it_is_busy() {
        let now = Instant::now();
        assert!(!lingers(None, now), "a lane's first batch goes at once");
        assert!(lingers(Some(now - SEND_QUIET / 2), now));
        assert!(lingers(Some(now), now));
        assert!(!lingers(Some(now - SEND_QUIET), now));
        assert!(!lingers(Some(now - Duration::from_secs(5)), now));
    }
}
