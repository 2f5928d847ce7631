use poem::Request;
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};
use telepathy_domain::limits::NICKNAME_KEEP_DAYS;
use telepathy_domain::{ErrorCode, Nickname, Notice};

use super::{Ack, Tag};
use crate::error::{ApiResult, OrInternal};
use crate::state::AppState;

pub struct ProfileApi(pub AppState);

/// The logged-in user. The id appears under three names because clients of the spec read
/// any of them.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct Profile {
    pub success: bool,
    pub user_id: i64,
    pub id: i64,
    #[oai(rename = "userId")]
    pub user_id_camel: i64,
    pub username: String,
    /// None until the user picks one.
    pub nickname: Option<String>,
}

#[derive(Debug, Object)]
pub struct NicknameBody {
    #[oai(default)]
    pub nickname: String,
}

#[OpenApi(tag = "Tag::Profile")]
impl ProfileApi {
    /// The logged-in user's profile.
    #[oai(
        path = "/nickname/profile",
        method = "get",
        operation_id = "getProfile"
    )]
    async fn profile(&self, req: &Request) -> ApiResult<Profile> {
        let user = self.0.require_user(req).await?.user;
        Ok(Json(Profile {
            success: true,
            user_id: user.id,
            id: user.id,
            user_id_camel: user.id,
            username: user.username,
            nickname: user.nickname,
        }))
    }

    /// Checks a nickname as the user types it, by the rules the save applies (the abuse
    /// filter included), without saving it.
    #[oai(
        path = "/nickname/check",
        method = "post",
        operation_id = "checkNickname"
    )]
    async fn check_nickname(&self, req: &Request, body: Json<NicknameBody>) -> ApiResult<Ack> {
        self.0.require_user(req).await?;
        Nickname::parse(&body.nickname)?;
        Ok(Json(Ack::of(Notice::NicknameAvailable)))
    }

    /// Sets the nickname; once set it is kept for a month.
    #[oai(
        path = "/nickname/set-nickname",
        method = "post",
        operation_id = "setNickname"
    )]
    async fn set_nickname(&self, req: &Request, body: Json<NicknameBody>) -> ApiResult<Ack> {
        let s = &self.0;
        let user = s.require_user(req).await?.user;
        let nickname = Nickname::parse(&body.nickname)?;
        let now = s.clock.now_ms();
        let keep_ms = NICKNAME_KEEP_DAYS * 24 * 60 * 60 * 1000;
        if let (Some(current), Some(set_at)) = (&user.nickname, user.nickname_set_at) {
            if current == nickname.as_ref() {
                return Ok(Json(Ack::of(Notice::NicknameSaved)));
            }
            if now - set_at < keep_ms {
                return Err(ErrorCode::NicknameLocked.into());
            }
        }
        s.store
            .set_nickname(user.id, nickname.as_ref(), now)
            .await
            .or_internal("setting a nickname")?;
        // Open sockets read the user again, so the next match carries the new name.
        s.recheck_sessions(user.id).await;
        Ok(Json(Ack::of(Notice::NicknameSaved)))
    }
}
