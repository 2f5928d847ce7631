//! The background work of a node: the shared clock, round pushes and expiry, presence, the
//! event bus, grace periods, and archiving conversations to SQL.

use std::sync::atomic::Ordering;
use std::time::Duration;

use telepathy_store::ArchivedMessage;
use tokio::sync::broadcast::error::RecvError;

use super::protocol::{frame, EndReason, MatchExpired, OnlineCount};
use super::{decode, Envelope};
use crate::state::AppState;

const CLOCK_SYNC: Duration = Duration::from_secs(5);
const ROUND_TICK: Duration = Duration::from_millis(200);
const PRESENCE_BEAT: Duration = Duration::from_secs(2);
const ARCHIVE_EVERY: Duration = Duration::from_secs(3);
const ARCHIVE_BATCH: usize = 500;
/// An ended room's stream is kept this long for members who resume late.
const ENDED_STREAM_KEEP_MS: i64 = 60_000;
const PURGE_EVERY: Duration = Duration::from_secs(3600);
const SWEEP_EVERY: Duration = Duration::from_secs(2);

/// Starts the node's background tasks. Call once, before serving.
pub async fn start(state: &AppState) {
    sync_clock(state).await;
    tokio::spawn(listen_bus(state.clone()));
    tokio::spawn(every(state.clone(), CLOCK_SYNC, |s| async move {
        sync_clock(&s).await
    }));
    tokio::spawn(rounds(state.clone()));
    tokio::spawn(presence(state.clone()));
    tokio::spawn(every(state.clone(), ARCHIVE_EVERY, |s| async move {
        archive(&s).await
    }));
    tokio::spawn(every(state.clone(), SWEEP_EVERY, |s| async move {
        sweep_away(&s).await
    }));
    tokio::spawn(every(state.clone(), PURGE_EVERY, |s| async move {
        purge(&s).await
    }));
}

async fn every<F, Fut>(state: AppState, period: Duration, mut work: F)
where
    F: FnMut(AppState) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let mut tick = tokio::time::interval(period);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        work(state.clone()).await;
    }
}

async fn sync_clock(state: &AppState) {
    let before = chrono::Utc::now().timestamp_millis();
    match state.engine.now_ms().await {
        Ok(shared) => {
            let after = chrono::Utc::now().timestamp_millis();
            let offset = shared - (before + after) / 2;
            state.clock_offset_ms.store(offset, Ordering::Relaxed);
        }
        Err(e) => tracing::warn!(error = %e, "reading the shared clock"),
    }
}

async fn listen_bus(state: AppState) {
    let mut rx = state.engine.subscribe();
    loop {
        match rx.recv().await {
            Ok(text) => match serde_json::from_str::<Envelope>(&text) {
                Ok(env) if env.recheck => env.to.iter().for_each(|u| state.hub.recheck(*u)),
                Ok(env) if env.to.is_empty() => state.hub.send_all(&env.frame),
                Ok(env) => env
                    .to
                    .iter()
                    .for_each(|u| state.hub.send_to(*u, &env.frame)),
                Err(e) => tracing::warn!(error = %e, "an unreadable event on the bus"),
            },
            Err(RecvError::Lagged(n)) => {
                tracing::warn!(skipped = n, "the bus listener fell behind")
            }
            Err(RecvError::Closed) => break,
        }
    }
}

/// Pushes each new round to this node's sockets and ends the waits of the round before.
async fn rounds(state: AppState) {
    let mut last = state.round_state().round;
    let mut tick = tokio::time::interval(ROUND_TICK);
    loop {
        tick.tick().await;
        let now = state.round_state();
        if now.round == last {
            continue;
        }
        state.hub.send_all(&frame("round", &now));
        let ended = last;
        last = now.round;
        match state.engine.expire_round(ended).await {
            Ok(users) if !users.is_empty() => {
                state
                    .deliver(users, frame("matchExpired", &MatchExpired { round: ended }))
                    .await;
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, round = ended, "expiring a round"),
        }
    }
}

async fn presence(state: AppState) {
    let mut shown = None;
    let mut tick = tokio::time::interval(PRESENCE_BEAT);
    loop {
        tick.tick().await;
        let now = state.shared_now_ms();
        if let Err(e) = state
            .engine
            .beat(&state.config.node_id, &state.hub.users(), now)
            .await
        {
            tracing::warn!(error = %e, "presence beat");
            continue;
        }
        match state.engine.online_count(now).await {
            Ok(count) if shown != Some(count) => {
                shown = Some(count);
                state
                    .hub
                    .send_all(&frame("onlineCount", &OnlineCount { count }));
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "counting users online"),
        }
    }
}

/// Ends rooms whose member has been connected to no node for longer than the grace
/// period, and tells the partner. It reads only shared state (presence, open rooms, away
/// times in the engine), so it holds when the node that saw the disconnect has died. One
/// node at a time sweeps (a short lease).
pub async fn sweep_away(state: &AppState) {
    match state
        .engine
        .hit("lease:sweep", 1, SWEEP_EVERY - Duration::from_millis(500))
        .await
    {
        Ok(hit) if hit.allowed => {}
        Ok(_) => return,
        Err(e) => return tracing::warn!(error = %e, "taking the sweep lease"),
    }
    let rooms = match state.engine.open_rooms().await {
        Ok(rooms) => rooms,
        Err(e) => return tracing::warn!(error = %e, "listing open rooms"),
    };
    let now = state.shared_now_ms();
    let grace_ms = i64::try_from(state.config.grace.as_millis()).unwrap_or(i64::MAX);
    for room in rooms {
        for member in &room.members {
            let user = member.user_id;
            let result = match state.engine.is_online(user, now).await {
                Ok(true) => state.engine.clear_away(user).await.map(|()| false),
                Ok(false) => state
                    .engine
                    .note_away(user, now)
                    .await
                    .map(|since| now - since >= grace_ms),
                Err(e) => Err(e),
            };
            match result {
                Ok(true) => {
                    let _ = state
                        .end_room(&room.id, EndReason::Disconnected, Some(user))
                        .await;
                    if let Err(e) = state.engine.clear_away(user).await {
                        tracing::warn!(error = %e, "forgetting an away time");
                    }
                    break;
                }
                Ok(false) => {}
                Err(e) => tracing::warn!(error = %e, "checking a chat member's presence"),
            }
        }
    }
}

/// Moves new messages from room streams into SQL. One node at a time does it (a short
/// lease in the engine); were two to overlap, each message is still stored once.
pub async fn archive(state: &AppState) {
    match state
        .engine
        .hit(
            "lease:archive",
            1,
            ARCHIVE_EVERY - Duration::from_millis(500),
        )
        .await
    {
        Ok(hit) if hit.allowed => {}
        Ok(_) => return,
        Err(e) => return tracing::warn!(error = %e, "taking the archive lease"),
    }
    let rooms = match state.engine.rooms_to_archive().await {
        Ok(rooms) => rooms,
        Err(e) => return tracing::warn!(error = %e, "listing rooms to archive"),
    };
    for room_id in rooms {
        if let Err(e) = archive_room(state, &room_id).await {
            tracing::warn!(error = %e, room = %room_id, "archiving a room");
        }
    }
}

async fn archive_room(state: &AppState, room_id: &str) -> anyhow::Result<()> {
    let mut cursor = state.engine.archived_upto(room_id).await?;
    loop {
        let batch = state
            .engine
            .read_after(room_id, cursor.as_deref(), ARCHIVE_BATCH)
            .await?;
        let Some(last) = batch.last().map(|e| e.id.clone()) else {
            break;
        };
        let messages: Vec<ArchivedMessage> = batch
            .iter()
            .filter_map(|e| {
                let (sender_id, body, sent_at) = decode(&e.data)?;
                Some(ArchivedMessage {
                    room_id: room_id.to_owned(),
                    msg_id: e.id.clone(),
                    sender_id,
                    body,
                    sent_at,
                })
            })
            .collect();
        state.store.archive_messages(&messages).await?;
        state.engine.set_archived(room_id, &last, false).await?;
        let full = batch.len() == ARCHIVE_BATCH;
        cursor = Some(last);
        if !full {
            break;
        }
    }
    let room = state.engine.room(room_id).await?;
    let finished = match room {
        None => true,
        Some(r) => r
            .ended_ms
            .is_some_and(|t| state.shared_now_ms() - t > ENDED_STREAM_KEEP_MS),
    };
    if finished {
        state
            .engine
            .set_archived(room_id, cursor.as_deref().unwrap_or("0-0"), true)
            .await?;
    }
    Ok(())
}

async fn purge(state: &AppState) {
    match state
        .engine
        .hit("lease:purge", 1, PURGE_EVERY - Duration::from_secs(60))
        .await
    {
        Ok(hit) if hit.allowed => {}
        _ => return,
    }
    let cutoff = state.clock.now_ms() - state.config.retention_days * 24 * 3600 * 1000;
    match state.store.purge_messages_before(cutoff).await {
        Ok(0) => {}
        Ok(n) => tracing::info!(purged = n, "chat messages past retention deleted"),
        Err(e) => tracing::warn!(error = %e, "purging old chat messages"),
    }
}
