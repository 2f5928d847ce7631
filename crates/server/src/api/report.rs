//! Reports: a user reports the partner of a chat they are or were in.

use poem::Request;
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};
use telepathy_domain::safety::ReportForm;

use super::{Ack, Tag};
use crate::error::ApiResult;
use crate::state::AppState;
use telepathy_domain::Notice;

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

#[OpenApi]
impl ReportApi {
    /// Reports the partner of a chat the caller is or was in. Both members of an open
    /// chat get `chatEndedByReport`; the two are never matched again; the operations team
    /// sees the report with the chat's transcript within 24 hours.
    #[oai(
        path = "/report",
        method = "post",
        operation_id = "report",
        tag = "Tag::Safety"
    )]
    async fn report(&self, req: &Request, body: Json<ReportBody>) -> ApiResult<Ack> {
        let s = &self.0;
        let user = s.require_user(req).await?.user;
        let form = ReportForm::parse(&body.reasons, &body.extra_message)?;
        s.report(user.id, &body.room_id, body.reported_id, &form)
            .await?;
        Ok(Json(Ack::of(Notice::ReportFiled)))
    }
}
