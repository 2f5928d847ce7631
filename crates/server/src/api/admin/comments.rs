//! The comment board as operators see it: every comment, hidden ones too, and hiding one.

use poem::Request;
use poem_openapi::param::Path;
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};
use telepathy_domain::safety::parse_reason;
use telepathy_domain::{ErrorCode, Notice};

use super::time;
use crate::api::{Ack, Tag};
use crate::error::{ApiResult, OrInternal};
use crate::state::AppState;

pub struct AdminCommentsApi(pub AppState);

/// Comments a review page lists, newest first.
const REVIEW_PAGE: i64 = 200;

/// A comment as operators review it.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase", skip_serializing_if_is_none)]
pub struct ReviewComment {
    pub id: i64,
    /// The author, when a member posted it.
    pub user_id: Option<i64>,
    pub nickname: String,
    pub content: String,
    /// The client address it was posted from.
    pub ip: String,
    pub created_at: String,
    /// When it was hidden from the board.
    pub hidden_at: Option<String>,
}

#[derive(Debug, Object)]
pub struct ReviewComments {
    pub comments: Vec<ReviewComment>,
}

#[derive(Object)]
pub(super) struct HideBody {
    /// Why (1–200 characters), for the audit log.
    #[oai(default)]
    pub reason: String,
}

#[OpenApi(tag = "Tag::Admin")]
impl AdminCommentsApi {
    /// The newest 200 comments of the board, hidden ones too.
    #[oai(
        path = "/admin/comments",
        method = "get",
        operation_id = "adminComments"
    )]
    async fn comments(&self, req: &Request) -> ApiResult<ReviewComments> {
        let s = &self.0;
        s.sessions.require_operator(req).await?;
        let comments = s
            .store
            .comments_for_review(REVIEW_PAGE)
            .await
            .or_internal("reading comments")?
            .into_iter()
            .map(|c| ReviewComment {
                id: c.id,
                user_id: c.user_id,
                nickname: c.nickname,
                content: c.content,
                ip: c.ip,
                created_at: time(c.created_at),
                hidden_at: c.hidden_at.map(time),
            })
            .collect();
        Ok(Json(ReviewComments { comments }))
    }

    /// Hides a comment from the board (it stays for the record). Hidden already or never
    /// there: 404.
    #[oai(
        path = "/admin/comments/:id/hide",
        method = "post",
        operation_id = "adminHideComment"
    )]
    async fn hide(&self, req: &Request, id: Path<i64>, body: Json<HideBody>) -> ApiResult<Ack> {
        let s = &self.0;
        let current = s.sessions.require_operator(req).await?;
        let reason = parse_reason(&body.reason)?;
        let now = s.clock.now_ms();
        let detail = format!("댓글 {} 숨김: {reason}", id.0);
        let hidden = s
            .store
            .hide_comment(
                id.0,
                Some(current.operator.id),
                now,
                &current.audit("comment.hide", None, None, &detail, now),
            )
            .await
            .or_internal("hiding a comment")?;
        if !hidden {
            return Err(ErrorCode::NotFound.into());
        }
        Ok(Json(Ack::of(Notice::CommentHidden)))
    }
}
