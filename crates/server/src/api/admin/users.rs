//! Users, their sanctions and the audit log: search, a user's page, sanctions given and
//! lifted outside a report, and the log of every operator action.

use poem::Request;
use poem_openapi::param::{Path, Query};
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};
use telepathy_domain::safety::{parse_reason, SanctionOrder};
use telepathy_domain::{ErrorCode, Notice, Phone};
use telepathy_store::NewSanction;

use super::{report_brief, sanction_item, time, ReportBrief, SanctionItem, HISTORY_REPORTS};
use crate::accounts::safety::restriction_of;
use crate::api::{Ack, Tag};
use crate::error::{ApiResult, OrInternal};
use crate::state::AppState;
use crate::wire::AccountRestricted;

pub struct AdminUsersApi(pub AppState);

/// The most users a search answers.
const SEARCH_MAX: i64 = 20;
/// The longest search text read.
const SEARCH_MAX_CHARS: usize = 40;
/// Audit lines per page.
const AUDIT_PAGE: i64 = 100;

/// A user in search results.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase", skip_serializing_if_is_none)]
pub struct UserBrief {
    pub id: i64,
    pub username: String,
    pub nickname: Option<String>,
    /// `active`, `withdrawn` or `erased`.
    pub status: String,
    /// RFC 3339.
    pub created_at: String,
}

#[derive(Debug, Object)]
pub struct UserList {
    /// At most 20, oldest account first.
    pub users: Vec<UserBrief>,
}

/// A user's account as the console shows it.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase", skip_serializing_if_is_none)]
pub struct UserProfile {
    pub id: i64,
    pub username: String,
    pub nickname: Option<String>,
    pub status: String,
    /// RFC 3339.
    pub created_at: String,
    /// Masked: `010-****-5678` (empty for an erased account).
    pub phone: String,
}

/// A user's page.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase", skip_serializing_if_is_none)]
pub struct UserDetail {
    pub user: UserProfile,
    /// The suspension or ban in force.
    pub restriction: Option<AccountRestricted>,
    /// Newest first.
    pub sanctions: Vec<SanctionItem>,
    /// Reports about the user, newest first (at most 50).
    pub reports_against: Vec<ReportBrief>,
    /// Reports the user filed, newest first (at most 50).
    pub reports_filed: Vec<ReportBrief>,
}

#[derive(Object)]
pub struct SanctionBody {
    /// `warn`, `suspend` or `ban`.
    #[oai(default)]
    pub kind: String,
    /// Suspension days, 1–365; required for `suspend`, ignored otherwise.
    pub days: Option<i64>,
    /// The reason (Korean, 1–200 characters), shown to the user.
    #[oai(default)]
    pub reason: String,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct SanctionGiven {
    pub success: bool,
    pub message: String,
    pub sanction_id: i64,
}

#[derive(Object)]
pub struct LiftBody {
    /// Why (1–200 characters), for the audit log.
    #[oai(default)]
    pub reason: String,
}

/// A line of the audit log.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase", skip_serializing_if_is_none)]
pub struct AuditItem {
    pub id: i64,
    /// RFC 3339.
    pub at: String,
    /// The operator's username; none for the command line and the service's own jobs.
    pub operator: Option<String>,
    /// `operator.login`, `report.resolve`, `sanction.lift`, …
    pub action: String,
    pub user_id: Option<i64>,
    pub report_id: Option<i64>,
    pub detail: String,
    /// The client address (`cli` for the command line).
    pub ip: String,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase", skip_serializing_if_is_none)]
pub struct AuditPage {
    /// Newest first, at most 100.
    pub entries: Vec<AuditItem>,
    /// `before` of the next (older) page; none on the last.
    pub next_before: Option<i64>,
}

#[OpenApi(tag = "Tag::Admin")]
impl AdminUsersApi {
    /// Users whose id or username is `q` exactly, or whose nickname starts with it; at
    /// most 20. Each search is written to the audit log.
    #[oai(path = "/admin/users", method = "get", operation_id = "adminUsers")]
    async fn users(
        &self,
        req: &Request,
        /// An id, a username, or the start of a nickname.
        q: Query<Option<String>>,
    ) -> ApiResult<UserList> {
        let s = &self.0;
        let current = s.sessions.require_operator(req).await?;
        let query: String =
            q.0.unwrap_or_default()
                .trim()
                .chars()
                .take(SEARCH_MAX_CHARS)
                .collect();
        if query.is_empty() {
            return Ok(Json(UserList { users: Vec::new() }));
        }
        let users = s
            .store
            .find_users(&query, SEARCH_MAX)
            .await
            .or_internal("searching users")?;
        let detail = format!("사용자 검색: {query} ({}명)", users.len());
        s.store
            .audit(&current.audit("user.search", None, None, &detail, s.clock.now_ms()))
            .await
            .or_internal("auditing a search")?;
        Ok(Json(UserList {
            users: users
                .into_iter()
                .map(|u| UserBrief {
                    id: u.id,
                    username: u.username,
                    nickname: u.nickname,
                    status: u.status,
                    created_at: time(u.created_at),
                })
                .collect(),
        }))
    }

    /// A user's account (phone masked), restriction in force, sanctions, and the reports
    /// about them and by them. Each view is written to the audit log.
    #[oai(path = "/admin/users/:id", method = "get", operation_id = "adminUser")]
    async fn user(&self, req: &Request, id: Path<i64>) -> ApiResult<UserDetail> {
        let s = &self.0;
        let current = s.sessions.require_operator(req).await?;
        let user = s
            .store
            .user_by_id(id.0)
            .await
            .or_internal("reading a user")?
            .ok_or(ErrorCode::NotFound)?;
        let now = s.clock.now_ms();
        let sanctions = s
            .store
            .sanction_history(user.id)
            .await
            .or_internal("reading sanctions")?;
        let restriction = s
            .store
            .active_restriction(user.id, now)
            .await
            .or_internal("reading a restriction")?;
        let against = s
            .store
            .reports_against(user.id, HISTORY_REPORTS)
            .await
            .or_internal("reading reports")?;
        let filed = s
            .store
            .reports_filed_by(user.id, HISTORY_REPORTS)
            .await
            .or_internal("reading reports")?;
        let detail = format!("사용자 {} 열람", user.id);
        s.store
            .audit(&current.audit("user.view", Some(user.id), None, &detail, now))
            .await
            .or_internal("auditing a user view")?;
        Ok(Json(UserDetail {
            user: UserProfile {
                id: user.id,
                phone: Phone::parse(&user.phone)
                    .map(|p| p.masked())
                    .unwrap_or_default(),
                username: user.username,
                nickname: user.nickname,
                status: user.status,
                created_at: time(user.created_at),
            },
            restriction: restriction
                .as_ref()
                .and_then(restriction_of)
                .map(|r| AccountRestricted::from(&r)),
            sanctions: sanctions.iter().map(|x| sanction_item(x, now)).collect(),
            reports_against: against.iter().map(report_brief).collect(),
            reports_filed: filed.iter().map(report_brief).collect(),
        }))
    }

    /// Warns, suspends (with `days`) or bans a user outside a report; the user is told
    /// `reason`. A suspension or ban ends their sessions and closes their sockets at once.
    #[oai(
        path = "/admin/users/:id/sanctions",
        method = "post",
        operation_id = "adminSanctionUser"
    )]
    async fn sanction(
        &self,
        req: &Request,
        id: Path<i64>,
        body: Json<SanctionBody>,
    ) -> ApiResult<SanctionGiven> {
        let s = &self.0;
        let current = s.sessions.require_operator(req).await?;
        let order = SanctionOrder::parse(&body.kind, body.days, &body.reason)?;
        let user = s
            .store
            .user_by_id(id.0)
            .await
            .or_internal("reading a user")?
            .ok_or(ErrorCode::NotFound)?;
        let now = s.clock.now_ms();
        let summary = order.summary();
        let sanction_id = s
            .safety
            .sanction(
                &NewSanction {
                    user_id: user.id,
                    kind: order.kind.code(),
                    reason: &order.reason,
                    until: order.until(now),
                    operator_id: Some(current.operator.id),
                    report_id: None,
                    now,
                },
                None,
                &current.audit("sanction.add", Some(user.id), None, &summary, now),
            )
            .await?;
        Ok(Json(SanctionGiven {
            success: true,
            message: Notice::SanctionGiven.message().to_owned(),
            sanction_id,
        }))
    }

    /// Lifts a sanction still in force (the user may log in again). Lifted or run out
    /// already: 409 `SANCTION_LIFTED`.
    #[oai(
        path = "/admin/sanctions/:id/lift",
        method = "post",
        operation_id = "adminLiftSanction"
    )]
    async fn lift(&self, req: &Request, id: Path<i64>, body: Json<LiftBody>) -> ApiResult<Ack> {
        let s = &self.0;
        let current = s.sessions.require_operator(req).await?;
        let reason = parse_reason(&body.reason)?;
        let sanction = s
            .store
            .sanction(id.0)
            .await
            .or_internal("reading a sanction")?
            .ok_or(ErrorCode::NotFound)?;
        let now = s.clock.now_ms();
        let detail = format!("제재 {} 해제: {reason}", sanction.id);
        let lifted = s
            .store
            .lift_sanction(
                sanction.id,
                now,
                &current.audit(
                    "sanction.lift",
                    Some(sanction.user_id),
                    sanction.report_id,
                    &detail,
                    now,
                ),
            )
            .await
            .or_internal("lifting a sanction")?;
        if !lifted {
            return Err(ErrorCode::SanctionLifted.into());
        }
        tracing::info!(
            sanction = sanction.id,
            user_id = sanction.user_id,
            "sanction lifted"
        );
        Ok(Json(Ack::of(Notice::SanctionLifted)))
    }

    /// The audit log, newest first, 100 lines a page: `before` is the `nextBefore` of the
    /// page before.
    #[oai(path = "/admin/audit", method = "get", operation_id = "adminAudit")]
    async fn audit(
        &self,
        req: &Request,
        /// Lines older than this id.
        before: Query<Option<i64>>,
    ) -> ApiResult<AuditPage> {
        let s = &self.0;
        s.sessions.require_operator(req).await?;
        let rows = s
            .store
            .audit_page(before.0, AUDIT_PAGE)
            .await
            .or_internal("reading the audit log")?;
        let next_before = if rows.len() as i64 == AUDIT_PAGE {
            rows.last().map(|r| r.id)
        } else {
            None
        };
        Ok(Json(AuditPage {
            entries: rows
                .into_iter()
                .map(|r| AuditItem {
                    id: r.id,
                    at: time(r.at),
                    operator: r.operator,
                    action: r.action,
                    user_id: r.user_id,
                    report_id: r.report_id,
                    detail: r.detail,
                    ip: r.ip,
                })
                .collect(),
            next_before,
        }))
    }
}
