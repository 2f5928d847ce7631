//! The comment board shown while the service is closed.

use poem::Request;
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};
use telepathy_domain::limits::{
    COMMENTS_PER_IP, COMMENTS_PER_USER, COMMENTS_SHOWN, COMMENT_WINDOW,
};
use telepathy_domain::{CommentText, ErrorCode, Notice};
use telepathy_store::NewComment;

use super::Tag;
use crate::error::{ApiResult, OrInternal};
use crate::security::client_net;
use crate::state::AppState;

/// The name a guest's comment is posted under, and the name it is shown with.
const GUEST_USERNAME: &str = "guest_user";
const GUEST_NICKNAME: &str = "익명";

pub struct CommentsApi(pub AppState);

/// A comment of the board. `username` never carries a login ID: it is `guest_user` for a
/// guest and the nickname for a member.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct CommentItem {
    pub id: i64,
    pub nickname: String,
    pub username: String,
    pub content: String,
    /// RFC 3339.
    pub created_at: String,
}

/// The spec's comment payload: only `content` is read; the author comes from the session
/// (a guest posts as `guest_user`, shown as 익명).
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct CommentBody {
    /// Ignored, whatever its type.
    pub username: Option<serde_json::Value>,
    /// Ignored, whatever its type.
    pub nickname: Option<serde_json::Value>,
    /// 1–100 characters after trimming.
    #[oai(default)]
    pub content: String,
}

#[derive(Debug, Object)]
pub struct CommentPosted {
    pub success: bool,
    pub message: String,
    pub comment: CommentItem,
}

fn item(c: telepathy_store::Comment) -> CommentItem {
    let username = if c.user_id.is_some() {
        c.nickname.clone()
    } else {
        GUEST_USERNAME.to_owned()
    };
    CommentItem {
        id: c.id,
        username,
        nickname: c.nickname,
        content: c.content,
        created_at: chrono::DateTime::from_timestamp_millis(c.created_at)
            .unwrap_or_default()
            .to_rfc3339(),
    }
}

#[OpenApi]
impl CommentsApi {
    /// The newest comments of the board, newest first (at most 30).
    #[oai(
        path = "/comments",
        method = "get",
        operation_id = "listComments",
        tag = "Tag::Comments"
    )]
    async fn list(&self) -> ApiResult<Vec<CommentItem>> {
        let comments = self
            .0
            .store
            .recent_comments(COMMENTS_SHOWN)
            .await
            .or_internal("reading comments")?;
        Ok(Json(comments.into_iter().map(item).collect()))
    }

    /// Posts a comment, as the session's user (by nickname) or as a guest (익명). Abusive
    /// words are refused and contact details and links masked (the board is public);
    /// limited per user and per address.
    #[oai(
        path = "/comments",
        method = "post",
        operation_id = "postComment",
        tag = "Tag::Comments"
    )]
    async fn post(&self, req: &Request, body: Json<CommentBody>) -> ApiResult<CommentPosted> {
        let s = &self.0;
        let user = s.sessions.current_user(req).await?.map(|c| c.user);
        let text = CommentText::parse(&body.content)?;
        let ip = client_net(req, s.config.trusted_proxies);
        let ip_key = format!("comment:ip:{ip}");
        let user_key = user.as_ref().map(|u| format!("comment:user:{}", u.id));
        let mut limits = vec![(ip_key.as_str(), COMMENTS_PER_IP, COMMENT_WINDOW)];
        if let Some(key) = &user_key {
            limits.push((key.as_str(), COMMENTS_PER_USER, COMMENT_WINDOW));
        }
        s.limits.limit_all(&limits, ErrorCode::RateLimited).await?;
        let nickname = user
            .as_ref()
            .and_then(|u| u.nickname.clone())
            .unwrap_or_else(|| GUEST_NICKNAME.to_owned());
        let comment = s
            .store
            .add_comment(&NewComment {
                user_id: user.as_ref().map(|u| u.id),
                nickname: &nickname,
                content: text.as_ref(),
                ip: &ip,
                now: s.clock.now_ms(),
            })
            .await
            .or_internal("saving a comment")?;
        Ok(Json(CommentPosted {
            success: true,
            message: Notice::CommentPosted.message().to_owned(),
            comment: item(comment),
        }))
    }
}
