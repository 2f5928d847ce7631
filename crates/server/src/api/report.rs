//! Reports (a user reports the partner of a chat they are or were in) and the warnings
//! an operator gave the user, shown until the user confirms them.

use poem::Request;
use poem_openapi::param::Path;
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};
use telepathy_domain::safety::ReportForm;
use telepathy_domain::{ErrorCode, Notice};

use super::{Ack, Tag};
use crate::error::{ApiResult, OrInternal};
use crate::state::AppState;
use crate::wire::AccountWarned;

pub struct ReportApi(pub AppState);

/// The spec's report payload. The reporter is the session's user, whatever `reporterId`
/// says; the reported user is the reporter's partner in `roomId` (`reportedId`, when
/// given, must name that partner).
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ReportBody {
    /// Ignored, whatever its type: the session says who reports.
    pub reporter_id: Option<serde_json::Value>,
    pub reported_id: Option<i64>,
    #[oai(default)]
    pub room_id: String,
    /// Any of 광고/홍보성 메시지, 욕설/비하, 위협, 성적인 발언/행위, 기타 (or their codes
    /// ad, harassment, threat, sexual, other).
    #[oai(default)]
    pub reasons: Vec<String>,
    /// At most 200 characters; a reason or this text is needed.
    #[oai(default)]
    pub extra_message: String,
}

/// The warnings the user has not confirmed yet.
#[derive(Debug, Object)]
pub struct Warnings {
    pub success: bool,
    /// Oldest first; the same shape as the `accountWarned` frame.
    pub warnings: Vec<AccountWarned>,
}

#[OpenApi]
impl ReportApi {
    /// Reports the partner of a chat the caller is or was in. An open chat ends: the
    /// caller is told `chatEndedByReport`, the partner only that the caller left
    /// (`chatEnded`); the two are never matched again; the operations team
    /// sees the report with the chat's transcript within 24 hours.
    #[oai(
        path = "/report",
        method = "post",
        operation_id = "report",
        tag = "Tag::Safety"
    )]
    async fn report(&self, req: &Request, body: Json<ReportBody>) -> ApiResult<Ack> {
        let s = &self.0;
        let user = s.sessions.require_user(req).await?.user;
        let form = ReportForm::parse(&body.reasons, &body.extra_message)?;
        s.safety
            .report(user.id, &body.room_id, body.reported_id, &form)
            .await?;
        Ok(Json(Ack::of(Notice::ReportFiled)))
    }

    /// The warnings an operator gave the caller that they have not confirmed seeing: a
    /// user who was not connected when warned is told at their next visit.
    #[oai(
        path = "/warnings",
        method = "get",
        operation_id = "getWarnings",
        tag = "Tag::Safety"
    )]
    async fn warnings(&self, req: &Request) -> ApiResult<Warnings> {
        let s = &self.0;
        let user = s.sessions.require_user(req).await?.user;
        let warnings = s
            .store
            .unseen_warnings(user.id)
            .await
            .or_internal("reading warnings")?
            .into_iter()
            .map(|w| AccountWarned::of(w.id, &w.reason, w.created_at))
            .collect();
        Ok(Json(Warnings {
            success: true,
            warnings,
        }))
    }

    /// The caller saw their warning `id` (from `GET /warnings` or the `accountWarned`
    /// frame); it is not shown again. Another user's, or no warning: 404.
    #[oai(
        path = "/warnings/:id/seen",
        method = "post",
        operation_id = "confirmWarning",
        tag = "Tag::Safety"
    )]
    async fn confirm_warning(&self, req: &Request, id: Path<i64>) -> ApiResult<Ack> {
        let s = &self.0;
        let user = s.sessions.require_user(req).await?.user;
        let found = s
            .store
            .mark_warning_seen(user.id, id.0, s.clock.now_ms())
            .await
            .or_internal("confirming a warning")?;
        if !found {
            return Err(ErrorCode::NotFound.into());
        }
        Ok(Json(Ack::of(Notice::WarningSeen)))
    }
}
