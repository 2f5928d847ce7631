//! The report queue: the dashboard's counts, the queue, a report with its chat and the
//! history of both users, and its resolution.

use poem::Request;
use poem_openapi::param::{Path, Query};
use poem_openapi::payload::Json;
use poem_openapi::{Enum, Object, OpenApi};
use telepathy_domain::limits::REPORT_DUE;
use telepathy_domain::safety::Decision;
use telepathy_domain::time::seoul_midnight_ms;
use telepathy_domain::{ErrorCode, Notice};
use telepathy_store::{NewSanction, Resolution, Store, StoreError};

use super::{millis, report_brief, report_item, sanction_item, time, ReportBrief, ReportItem};
use super::{SanctionItem, HISTORY_REPORTS};
use crate::accounts::safety::restriction_of;
use crate::api::Tag;
use crate::error::{internal, ApiError, ApiResult, OrInternal};
use crate::state::AppState;
use crate::wire::AccountRestricted;

pub struct AdminReportsApi(pub AppState);

/// The most reports one queue answer lists.
const QUEUE_MAX: i64 = 200;

/// The console's front page.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct Dashboard {
    /// Distinct users connected now, on all nodes.
    pub users_online: i64,
    /// Chats started since midnight in Seoul.
    pub matches_today: i64,
    pub open_reports: i64,
    /// Open reports filed more than 24 hours ago.
    pub overdue_reports: i64,
    /// Devices with the opening bell on.
    pub bell_devices: i64,
    /// The latest evening's opening bell; absent before the first.
    pub last_bell: Option<BellRun>,
}

/// One evening's opening bell, as its sender recorded it.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase", skip_serializing_if_is_none)]
pub struct BellRun {
    /// `YYYY-MM-DD`, Seoul.
    pub evening: String,
    /// RFC 3339.
    pub started_at: String,
    /// RFC 3339; absent while it is being sent.
    pub finished_at: Option<String>,
    /// Pushes the push services accepted.
    pub sent: i64,
    /// Devices the push services no longer knew, removed.
    pub gone: i64,
    /// Pushes that failed (a device gets the next evening's).
    pub failed: i64,
}

/// Which reports to list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "lowercase")]
pub enum QueueStatus {
    /// Waiting, oldest first.
    Open,
    /// Resolved, the latest resolved first.
    Closed,
}

#[derive(Debug, Object)]
pub struct ReportList {
    /// At most 200.
    pub reports: Vec<ReportItem>,
}

/// The room a report is about.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase", skip_serializing_if_is_none)]
pub struct RoomInfo {
    pub id: String,
    pub word: String,
    /// RFC 3339.
    pub created_at: String,
    /// RFC 3339; none while the chat is open.
    pub ended_at: Option<String>,
}

/// Who said a line of the transcript, as the report sees them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "lowercase")]
pub enum Speaker {
    Reporter,
    Reported,
    /// Anyone else (the partner of a chat the filter flagged).
    Other,
}

/// A line of the chat as it was said (the archive keeps the text before masking).
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct TranscriptLine {
    pub msg_id: String,
    pub sender_id: i64,
    pub from: Speaker,
    pub body: String,
    /// RFC 3339.
    pub sent_at: String,
}

/// One of a report's users, with their history.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase", skip_serializing_if_is_none)]
pub struct UserHistory {
    pub id: i64,
    pub username: String,
    pub nickname: Option<String>,
    /// `active`, `withdrawn` or `erased`.
    pub status: String,
    /// Reports about them, newest first (at most 50).
    pub reports_against: Vec<ReportBrief>,
    /// How many reports they filed.
    pub reports_filed: i64,
    /// Newest first.
    pub sanctions: Vec<SanctionItem>,
    /// The suspension or ban in force.
    pub restriction: Option<AccountRestricted>,
}

/// A report with everything needed to decide on it.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct ReportDetail {
    pub report: ReportItem,
    /// None when the room's record has not reached the database.
    pub room: Option<RoomInfo>,
    /// Oldest first.
    pub transcript: Vec<TranscriptLine>,
    /// None when the filter filed the report.
    pub reporter: Option<UserHistory>,
    pub reported: UserHistory,
}

#[derive(Object)]
pub struct ResolveBody {
    /// `dismiss`, `warn`, `suspend` or `ban`.
    #[oai(default)]
    pub action: String,
    /// Suspension days, 1–365; required for `suspend`, ignored otherwise.
    pub days: Option<i64>,
    /// The reason (Korean, 1–200 characters), shown to the user; optional for `dismiss`.
    #[oai(default)]
    pub reason: String,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase", skip_serializing_if_is_none)]
pub struct Resolved {
    pub success: bool,
    pub message: String,
    /// The sanction given, unless dismissed.
    pub sanction_id: Option<i64>,
}

/// A user's history for a report's page.
async fn user_history(store: &Store, user_id: i64, now: i64) -> Result<UserHistory, ApiError> {
    let user = store
        .user_by_id(user_id)
        .await
        .or_internal("reading a user")?
        .ok_or(ErrorCode::NotFound)?;
    let against = store
        .reports_against(user_id, HISTORY_REPORTS)
        .await
        .or_internal("reading reports")?;
    let filed = store
        .count_reports_filed_by(user_id)
        .await
        .or_internal("counting reports")?;
    let sanctions = store
        .sanction_history(user_id)
        .await
        .or_internal("reading sanctions")?;
    let restriction = store
        .active_restriction(user_id, now)
        .await
        .or_internal("reading a restriction")?;
    Ok(UserHistory {
        id: user.id,
        username: user.username,
        nickname: user.nickname,
        status: user.status,
        reports_against: against.iter().map(report_brief).collect(),
        reports_filed: filed,
        sanctions: sanctions.iter().map(|s| sanction_item(s, now)).collect(),
        restriction: restriction
            .as_ref()
            .and_then(restriction_of)
            .map(|r| AccountRestricted::from(&r)),
    })
}

#[OpenApi(tag = "Tag::Admin")]
impl AdminReportsApi {
    /// Users online, today's matches, open and overdue reports.
    #[oai(
        path = "/admin/dashboard",
        method = "get",
        operation_id = "adminDashboard"
    )]
    async fn dashboard(&self, req: &Request) -> ApiResult<Dashboard> {
        let s = &self.0;
        s.sessions.require_operator(req).await?;
        let now = s.shared_clock.now_ms();
        let midnight =
            seoul_midnight_ms(chrono::DateTime::from_timestamp_millis(now).unwrap_or_default());
        let counts = s
            .store
            .console_counts(midnight, now.saturating_sub(millis(REPORT_DUE)))
            .await
            .or_internal("counting for the dashboard")?;
        let online = s
            .engine
            .online_count()
            .await
            .or_internal("counting users online")?;
        let (bell_devices, last_bell) =
            tokio::try_join!(s.store.push_device_total(), s.store.latest_opening())
                .or_internal("reading the opening bell")?;
        Ok(Json(Dashboard {
            users_online: i64::try_from(online).unwrap_or(i64::MAX),
            matches_today: counts.matches_today,
            open_reports: counts.open_reports,
            overdue_reports: counts.overdue_reports,
            bell_devices,
            last_bell: last_bell.map(|o| BellRun {
                evening: o.evening,
                started_at: time(o.started_at),
                finished_at: o.finished_at.map(time),
                sent: o.sent,
                gone: o.gone,
                failed: o.failed,
            }),
        }))
    }

    /// The report queue: open reports oldest first (the order they are due in), or
    /// resolved ones, the latest resolved first; at most 200.
    #[oai(path = "/admin/reports", method = "get", operation_id = "adminReports")]
    async fn reports(
        &self,
        req: &Request,
        /// `open` (the default) or `closed`.
        status: Query<Option<QueueStatus>>,
    ) -> ApiResult<ReportList> {
        let s = &self.0;
        s.sessions.require_operator(req).await?;
        let rows = match status.0.unwrap_or(QueueStatus::Open) {
            QueueStatus::Open => s.store.open_reports(QUEUE_MAX).await,
            QueueStatus::Closed => s.store.closed_reports(QUEUE_MAX).await,
        }
        .or_internal("reading the report queue")?;
        let now = s.shared_clock.now_ms();
        Ok(Json(ReportList {
            reports: rows.iter().map(|r| report_item(r, now)).collect(),
        }))
    }

    /// A report with its room, the chat as it was said, and the history of both users.
    /// Each view is written to the audit log.
    #[oai(
        path = "/admin/reports/:id",
        method = "get",
        operation_id = "adminReport"
    )]
    async fn report(&self, req: &Request, id: Path<i64>) -> ApiResult<ReportDetail> {
        let s = &self.0;
        let current = s.sessions.require_operator(req).await?;
        let report = s
            .store
            .report(id.0)
            .await
            .or_internal("reading a report")?
            .ok_or(ErrorCode::NotFound)?;
        // Lines still in the room's stream (a chat the filter flagged may go on) are
        // archived first, so the transcript is whole.
        if let Err(e) = s.realtime.flush_room(&report.room_id).await {
            tracing::warn!(error = %e, room = %report.room_id, "archiving a room for a report");
        }
        let room = s
            .store
            .room_record(&report.room_id)
            .await
            .or_internal("reading a room")?;
        let transcript = s
            .store
            .transcript(&report.room_id)
            .await
            .or_internal("reading a transcript")?;
        let now = s.clock.now_ms();
        let reporter = match report.reporter_id {
            Some(id) => Some(user_history(&s.store, id, now).await?),
            None => None,
        };
        let reported = user_history(&s.store, report.reported_id, now).await?;
        let detail = format!("신고 {} 열람 (대화 {}줄)", report.id, transcript.len());
        s.store
            .audit(&current.audit(
                "report.view",
                Some(report.reported_id),
                Some(report.id),
                &detail,
                now,
            ))
            .await
            .or_internal("auditing a report view")?;
        let speaker = |sender: i64| {
            if Some(sender) == report.reporter_id {
                Speaker::Reporter
            } else if sender == report.reported_id {
                Speaker::Reported
            } else {
                Speaker::Other
            }
        };
        Ok(Json(ReportDetail {
            report: report_item(&report, s.shared_clock.now_ms()),
            room: room.map(|r| RoomInfo {
                id: r.id,
                word: r.word,
                created_at: time(r.created_at),
                ended_at: r.ended_at.map(time),
            }),
            transcript: transcript
                .into_iter()
                .map(|m| TranscriptLine {
                    from: speaker(m.sender_id),
                    msg_id: m.msg_id,
                    sender_id: m.sender_id,
                    body: m.body,
                    sent_at: time(m.sent_at),
                })
                .collect(),
            reporter,
            reported,
        }))
    }

    /// Resolves an open report: `dismiss` it, or `warn`, `suspend` (with `days`) or `ban`
    /// the reported user, who is told `reason`. A suspension or ban ends the user's
    /// sessions and closes their sockets at once, telling them why (`accountRestricted`).
    /// A report resolved already answers 409 `REPORT_CLOSED`: of two operators at once,
    /// exactly one resolves it.
    #[oai(
        path = "/admin/reports/:id/resolve",
        method = "post",
        operation_id = "adminResolveReport"
    )]
    async fn resolve(
        &self,
        req: &Request,
        id: Path<i64>,
        body: Json<ResolveBody>,
    ) -> ApiResult<Resolved> {
        let s = &self.0;
        let current = s.sessions.require_operator(req).await?;
        let decision = Decision::parse(&body.action, body.days, &body.reason)?;
        let report = s
            .store
            .report(id.0)
            .await
            .or_internal("reading a report")?
            .ok_or(ErrorCode::NotFound)?;
        if report.status != "open" {
            return Err(ErrorCode::ReportClosed.into());
        }
        let now = s.clock.now_ms();
        let summary = decision.summary();
        let resolution = Resolution {
            report_id: report.id,
            status: decision.status(),
            resolution: &summary,
            operator_id: current.operator.id,
            now,
        };
        let audit = current.audit(
            "report.resolve",
            Some(report.reported_id),
            Some(report.id),
            &summary,
            now,
        );
        let sanction_id = match &decision {
            Decision::Dismiss { .. } => {
                match s.store.resolve_report(&resolution, None, &audit).await {
                    Ok(_) => None,
                    Err(StoreError::ReportClosed) => return Err(ErrorCode::ReportClosed.into()),
                    Err(e) => return Err(internal("dismissing a report", e)),
                }
            }
            Decision::Sanction(order) => Some(
                s.safety
                    .sanction(
                        &NewSanction {
                            user_id: report.reported_id,
                            kind: order.kind.code(),
                            reason: &order.reason,
                            until: order.until(now),
                            operator_id: Some(current.operator.id),
                            report_id: Some(report.id),
                            now,
                        },
                        Some(&resolution),
                        &audit,
                    )
                    .await?,
            ),
        };
        Ok(Json(Resolved {
            success: true,
            message: Notice::ReportResolved.message().to_owned(),
            sanction_id,
        }))
    }
}
