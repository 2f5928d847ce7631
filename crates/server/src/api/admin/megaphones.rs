//! Megaphones as operators see them: every one sent, hidden ones too, and hiding one.

use poem::Request;
use poem_openapi::param::Path;
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};
use telepathy_domain::safety::parse_reason;
use telepathy_domain::{ErrorCode, Notice};

use super::comments::HideBody;
use super::time;
use crate::api::{Ack, Tag};
use crate::error::{ApiResult, OrInternal};
use crate::state::AppState;
use crate::wire::{frame, MegaphoneHidden};

pub struct AdminMegaphonesApi(pub AppState);

/// Megaphones a review page lists, newest first.
const REVIEW_PAGE: i64 = 200;

/// A megaphone as operators review it.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase", skip_serializing_if_is_none)]
pub struct ReviewMegaphone {
    pub id: i64,
    pub user_id: i64,
    /// The sender's nickname when it was sent.
    pub nickname: String,
    pub message: String,
    pub sent_at: String,
    pub hidden_at: Option<String>,
}

#[derive(Debug, Object)]
pub struct ReviewMegaphones {
    pub megaphones: Vec<ReviewMegaphone>,
}

#[OpenApi(tag = "Tag::Admin")]
impl AdminMegaphonesApi {
    /// The newest 200 megaphones, hidden ones too.
    #[oai(
        path = "/admin/megaphones",
        method = "get",
        operation_id = "adminMegaphones"
    )]
    async fn megaphones(&self, req: &Request) -> ApiResult<ReviewMegaphones> {
        let s = &self.0;
        s.sessions.require_operator(req).await?;
        let megaphones = s
            .store
            .recent_megaphones(REVIEW_PAGE)
            .await
            .or_internal("reading megaphones")?
            .into_iter()
            .map(|m| ReviewMegaphone {
                id: m.id,
                user_id: m.user_id,
                nickname: m.nickname,
                message: m.message,
                sent_at: time(m.sent_at),
                hidden_at: m.hidden_at.map(time),
            })
            .collect();
        Ok(Json(ReviewMegaphones { megaphones }))
    }

    /// Hides a megaphone: screens still showing it drop it at once (`megaphoneHidden` to
    /// everyone online), and the record says so. Hidden already or never sent: 404.
    #[oai(
        path = "/admin/megaphones/:id/hide",
        method = "post",
        operation_id = "adminHideMegaphone"
    )]
    async fn hide(&self, req: &Request, id: Path<i64>, body: Json<HideBody>) -> ApiResult<Ack> {
        let s = &self.0;
        let current = s.sessions.require_operator(req).await?;
        let reason = parse_reason(&body.reason)?;
        let now = s.clock.now_ms();
        let detail = format!("확성기 {} 숨김: {reason}", id.0);
        let hidden = s
            .store
            .hide_megaphone(
                id.0,
                Some(current.operator.id),
                now,
                &current.audit("megaphone.hide", None, None, &detail, now),
            )
            .await
            .or_internal("hiding a megaphone")?;
        if !hidden {
            return Err(ErrorCode::NotFound.into());
        }
        let gone = frame("megaphoneHidden", &MegaphoneHidden { id: id.0 });
        if let Err(e) = s.engine.broadcast(&gone).await {
            // It leaves every screen within its 5 s anyway.
            tracing::warn!(error = %e, id = id.0, "telling screens of a hidden megaphone");
        }
        Ok(Json(Ack::of(Notice::MegaphoneHidden)))
    }
}
