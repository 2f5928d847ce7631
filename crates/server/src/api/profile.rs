use poem::Request;
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};
use telepathy_domain::limits::{LOOKUP_WINDOW, NICKNAME_CHECKS_PER_USER, NICKNAME_KEEP_DAYS};
use telepathy_domain::{ErrorCode, Nickname, Notice};

use telepathy_store::{StoreError, User};

use super::{Ack, Tag};
use crate::error::{internal, ApiResult, OrInternal};
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
    /// When the nickname may be changed again (RFC 3339); absent when it may be now, or
    /// none is set yet.
    pub nickname_changeable_at: Option<String>,
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
        let user = self.0.sessions.require_user(req).await?.user;
        let changeable_at = nickname_unlocks_at(&user)
            .filter(|at| *at > self.0.clock.now_ms())
            .and_then(chrono::DateTime::from_timestamp_millis)
            .map(|at| at.to_rfc3339());
        Ok(Json(Profile {
            success: true,
            user_id: user.id,
            id: user.id,
            user_id_camel: user.id,
            username: user.username,
            nickname: user.nickname,
            nickname_changeable_at: changeable_at,
        }))
    }

    /// Checks a nickname as the user types it, by the rules the save applies (the abuse
    /// filter and uniqueness included), without saving it.
    #[oai(
        path = "/nickname/check",
        method = "post",
        operation_id = "checkNickname"
    )]
    async fn check_nickname(&self, req: &Request, body: Json<NicknameBody>) -> ApiResult<Ack> {
        let s = &self.0;
        let user = s.sessions.require_user(req).await?.user;
        let nickname = Nickname::parse(&body.nickname)?;
        s.limits
            .limit(
                &format!("nickname-check:{}", user.id),
                NICKNAME_CHECKS_PER_USER,
                LOOKUP_WINDOW,
                ErrorCode::RateLimited,
            )
            .await?;
        if s.store
            .nickname_taken(&nickname.key(), user.id)
            .await
            .or_internal("checking a nickname")?
        {
            return Err(ErrorCode::NicknameTaken.into());
        }
        Ok(Json(Ack::of(Notice::NicknameAvailable)))
    }

    /// Sets the nickname, unless another active account has it (case and spaces aside);
    /// once set it is kept for a month.
    #[oai(
        path = "/nickname/set-nickname",
        method = "post",
        operation_id = "setNickname"
    )]
    async fn set_nickname(&self, req: &Request, body: Json<NicknameBody>) -> ApiResult<Ack> {
        let s = &self.0;
        let user = s.sessions.require_user(req).await?.user;
        let nickname = Nickname::parse(&body.nickname)?;
        let now = s.clock.now_ms();
        if user.nickname.as_deref() == Some(nickname.as_ref()) {
            return Ok(Json(Ack::of(Notice::NicknameSaved)));
        }
        if nickname_unlocks_at(&user).is_some_and(|at| now < at) {
            return Err(ErrorCode::NicknameLocked.into());
        }
        match s
            .store
            .set_nickname(user.id, nickname.as_ref(), &nickname.key(), now)
            .await
        {
            Ok(()) => {}
            Err(StoreError::NicknameTaken) => return Err(ErrorCode::NicknameTaken.into()),
            Err(e) => return Err(internal("setting a nickname", e)),
        }
        // Open sockets read the user again, so the next match carries the new name.
        s.realtime.recheck_sessions(user.id).await;
        Ok(Json(Ack::of(Notice::NicknameSaved)))
    }
}

/// When a set nickname may change again: a month after it was set.
fn nickname_unlocks_at(user: &User) -> Option<i64> {
    let keep_ms = NICKNAME_KEEP_DAYS * 24 * 60 * 60 * 1000;
    user.nickname
        .as_ref()
        .and(user.nickname_set_at)
        .map(|set_at| set_at + keep_ms)
}
