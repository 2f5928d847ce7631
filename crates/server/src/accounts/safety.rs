//! Reports and sanctions: a user reports the partner of a chat; an operator suspends or
//! bans a user, which ends their sessions and closes their sockets on every node at once.

use std::time::Duration;

use telepathy_domain::limits::{FLAG_AFTER_MASKED, REPORTS_PER_DAY};
use telepathy_domain::safety::{ReportForm, ReportReason, Restriction, SanctionKind};
use telepathy_domain::ErrorCode;
use telepathy_store::{AuditEntry, NewReport, NewSanction, Resolution, Sanction, StoreError};

use crate::error::{internal_code as internal, ApiError};
use std::sync::Arc;

use telepathy_engine::Engine;
use telepathy_store::Store;

use crate::clock::{Clock, SharedClock};
use crate::metrics::Metrics;
use crate::realtime::Realtime;
use crate::security::limits::Limits;
use crate::wire::{frame, AccountWarned, EndReason};

const DAY: Duration = Duration::from_secs(24 * 60 * 60);

/// The restriction a stored sanction puts on its user, if it is one.
pub fn restriction_of(s: &Sanction) -> Option<Restriction> {
    let kind = SanctionKind::parse(&s.kind).filter(|k| k.restricts())?;
    Some(Restriction {
        kind,
        reason: s.reason.clone(),
        until: s.until,
    })
}

/// Reports and sanctions on a node, with the handles they need.
#[derive(Clone)]
pub struct Safety {
    pub store: Store,
    pub engine: Arc<dyn Engine>,
    /// Ends a reported chat; tells a sanctioned user's sockets.
    pub realtime: Realtime,
    pub limits: Limits,
    pub metrics: Arc<Metrics>,
    pub clock: Arc<dyn Clock>,
    pub shared_clock: Arc<SharedClock>,
}

impl Safety {
    /// The suspension or ban in force on `user_id`, if any.
    pub async fn restriction(&self, user_id: i64) -> Result<Option<Restriction>, ErrorCode> {
        let found = self
            .metrics
            .store(
                "active_restriction",
                self.store.active_restriction(user_id, self.clock.now_ms()),
            )
            .await
            .map_err(|e| internal("reading sanctions", e))?;
        Ok(found.as_ref().and_then(restriction_of))
    }

    /// Refuses a restricted user with why and until when.
    pub async fn refuse_restricted(&self, user_id: i64) -> Result<(), ApiError> {
        match self.restriction(user_id).await? {
            Some(r) => Err(ApiError::restricted(&r)),
            None => Ok(()),
        }
    }

    /// Records a sanction with its audit entry, and with the resolution of the report it
    /// answers when `resolves` names one (`ReportClosed` when that report was resolved
    /// already: then nothing is written). A suspension or ban ends the user's sessions in
    /// the same transaction, and their sockets on every node are told why and closed at
    /// once.
    pub async fn sanction(
        &self,
        sanction: &NewSanction<'_>,
        resolves: Option<&Resolution<'_>>,
        audit: &AuditEntry<'_>,
    ) -> Result<i64, ErrorCode> {
        let saved = match resolves {
            None => self.store.add_sanction(sanction, audit).await,
            Some(r) => self
                .store
                .resolve_report(r, Some(sanction), audit)
                .await
                .map(Option::unwrap_or_default),
        };
        let id = match saved {
            Ok(id) => id,
            Err(StoreError::ReportClosed) => return Err(ErrorCode::ReportClosed),
            Err(e) => return Err(internal("saving a sanction", e)),
        };
        tracing::info!(
            user_id = sanction.user_id,
            kind = sanction.kind,
            until = sanction.until,
            "sanction given"
        );
        if sanction.kind == SanctionKind::Warn.code() {
            // Told at once where they are connected, and otherwise at their next visit
            // (`GET /api/warnings`) until they confirm it; nothing is stopped.
            let warned = AccountWarned::of(id, sanction.reason, sanction.now);
            self.realtime
                .deliver(&[sanction.user_id], &frame("accountWarned", &warned))
                .await;
        } else {
            self.realtime.recheck_sessions(sanction.user_id).await;
        }
        Ok(id)
    }

    /// Files `reporter`'s report about their partner in `room_id` (open, or ended not
    /// long ago): the room's messages still in its stream are archived first, so the
    /// transcript holds the last words; the two are never matched again; an open chat ends
    /// (see `end_room`: the reported side is not told of the report). `reported`, when the client names one, must be
    /// that partner. Reporting the same room again files nothing new and succeeds.
    pub async fn report(
        &self,
        reporter: i64,
        room_id: &str,
        reported: Option<i64>,
        form: &ReportForm,
    ) -> Result<(), ApiError> {
        let partner = self
            .realtime
            .partner_in(reporter, room_id)
            .await?
            .filter(|p| reported.is_none_or(|r| r == *p))
            .ok_or(ErrorCode::ReportNotPartner)?;
        self.limits
            .limit(
                &format!("report:user:{reporter}"),
                REPORTS_PER_DAY,
                DAY,
                ErrorCode::RateLimited,
            )
            .await?;
        if let Err(e) = self.realtime.flush_room(room_id).await {
            // The archive's next turn stores them all the same; the report goes in.
            tracing::warn!(error = %e, room = room_id, "archiving a reported room");
        }
        let codes: Vec<&str> = form.reasons.iter().map(|r| r.code()).collect();
        let now = self.shared_clock.now_ms();
        let (id, added) = self
            .store
            .add_report(&NewReport {
                reporter_id: Some(reporter),
                reported_id: partner,
                room_id,
                reasons: &codes,
                extra: &form.extra,
                now,
            })
            .await
            .map_err(|e| internal("saving a report", e))?;
        if added {
            self.metrics.reports.user.inc();
            tracing::info!(report = id, room = room_id, "report filed");
        }
        self.realtime
            .end_room(room_id, EndReason::Report, Some(reporter), Some(reporter))
            .await?;
        // Both sockets read their lists again: the pair is kept apart from now on.
        self.realtime.recheck_sessions(reporter).await;
        self.realtime.recheck_sessions(partner).await;
        Ok(())
    }

    /// Counts a chat message of `sender` the abuse filter masked; the `FLAG_AFTER_MASKED`th
    /// in one room files a report of the filter's own for the operators. Off the path of
    /// the message: failures are only logged.
    pub fn count_masked(&self, room_id: &str, sender: i64) {
        let state = self.clone();
        let room_id = room_id.to_owned();
        tokio::spawn(async move {
            let key = format!("flag:{room_id}:{sender}");
            let hit = state.engine.hit(&key, FLAG_AFTER_MASKED, DAY).await;
            match hit {
                Ok(hit) if hit.count == FLAG_AFTER_MASKED => {}
                Ok(_) => return,
                Err(e) => return tracing::warn!(error = %e, "counting a masked message"),
            }
            let extra = format!("자동 감지: 욕설이 걸러진 메시지 {FLAG_AFTER_MASKED}건");
            let filed = state
                .store
                .add_report(&NewReport {
                    reporter_id: None,
                    reported_id: sender,
                    room_id: &room_id,
                    reasons: &[ReportReason::Harassment.code()],
                    extra: &extra,
                    now: state.shared_clock.now_ms(),
                })
                .await;
            match filed {
                Ok((id, true)) => {
                    state.metrics.reports.filter.inc();
                    tracing::info!(report = id, room = %room_id, "chat flagged by the filter");
                }
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "flagging a chat"),
            }
        });
    }
}
