//! Find password (username → code to the account's own phone → new password) and change
//! password. A stranger who knows a username cannot reset without that phone.

use poem::web::cookie::CookieJar;
use poem::Request;
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};
use telepathy_domain::limits::{
    KNOWN_NETWORK_WITHIN, PASSWORD_CHANGES_PER_USER, PASSWORD_CHANGE_WINDOW,
};
use telepathy_domain::{
    check_new_password, ErrorCode, Notice, Password, PasswordContext, Phone, Username,
};
use telepathy_providers::CodePurpose;
use telepathy_store::User;

use super::signup::UsernameBody;
use super::{Ack, Tag};
use crate::error::{ApiError, ApiResult, OrInternal};
use crate::security::passwords::{self, Lane};
use crate::security::{client_net, neighbourhood};
use crate::state::AppState;

pub struct PasswordApi(pub AppState);

#[derive(Debug, Object)]
pub struct UserExists {
    pub exists: bool,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct CodeSent {
    pub success: bool,
    pub message: String,
    /// The phone the code went to, its middle hidden: 010-****-5678.
    pub masked_phone: String,
}

#[derive(Object)]
#[oai(rename_all = "camelCase")]
pub struct ResetBody {
    #[oai(default)]
    pub username: String,
    /// The new password.
    #[oai(default)]
    pub password: String,
    /// When given, must equal `password`.
    pub confirm_password: Option<String>,
    /// The code sent to the account's phone.
    #[oai(default)]
    pub code: String,
}

#[derive(Object)]
#[oai(rename_all = "camelCase")]
pub struct ChangeBody {
    #[oai(default)]
    pub current_password: String,
    #[oai(default)]
    pub new_password: String,
    /// When given, must equal `newPassword`.
    pub confirm_password: Option<String>,
}

impl PasswordApi {
    async fn lookup(&self, req: &Request, username: &str) -> Result<Option<User>, ApiError> {
        let s = &self.0;
        s.limits.limit_lookups(req).await?;
        if username.trim().is_empty() {
            return Err(ErrorCode::UsernameRequired.into());
        }
        let Ok(username) = Username::parse(&username.to_lowercase()) else {
            return Ok(None);
        };
        s.store
            .user_by_username(username.as_ref())
            .await
            .or_internal("finding a user")
    }

    /// Whether the request comes from `user`'s owner as far as a stranger cannot fake it:
    /// from a browser that logged in to the account (its device cookie), or from a network
    /// one of its sessions began from lately. A stranger who spends the phone's daily codes
    /// from elsewhere then still leaves the owner theirs.
    async fn is_the_owner(&self, req: &Request, user: &User) -> Result<bool, ApiError> {
        let s = &self.0;
        if s.devices.trusted_device(req, user.id).is_some() {
            return Ok(true);
        }
        let since = s
            .clock
            .now_ms()
            .saturating_sub(i64::try_from(KNOWN_NETWORK_WITHIN.as_millis()).unwrap_or(i64::MAX));
        let net = client_net(req, s.config.trusted_proxies);
        let known = s
            .store
            .session_ips_since(user.id, since)
            .await
            .or_internal("reading an account's networks")?;
        Ok(known.iter().any(|ip| neighbourhood(ip) == net))
    }
}

#[OpenApi(tag = "Tag::Password")]
impl PasswordApi {
    /// Whether an active account has this username (find password, step 1).
    #[oai(
        path = "/password/check-user",
        method = "post",
        operation_id = "checkUser"
    )]
    async fn check_user(&self, req: &Request, body: Json<UsernameBody>) -> ApiResult<UserExists> {
        Ok(Json(UserExists {
            exists: self.lookup(req, &body.username).await?.is_some(),
        }))
    }

    /// Sends a reset code to the account's registered phone.
    #[oai(
        path = "/password/send-code",
        method = "post",
        operation_id = "sendResetCode"
    )]
    async fn send_code(
        &self,
        req: &Request,
        cookies: &CookieJar,
        body: Json<UsernameBody>,
    ) -> ApiResult<CodeSent> {
        let user = self
            .lookup(req, &body.username)
            .await?
            .ok_or(ErrorCode::NotFound)?;
        let phone = Phone::parse(&user.phone).or_internal("a stored phone is invalid")?;
        let owner = self.is_the_owner(req, &user).await?;
        self.0
            .codes
            .send_code(req, cookies, &phone, CodePurpose::Reset, owner)
            .await?;
        Ok(Json(CodeSent {
            success: true,
            message: Notice::ResetCodeSent.message().to_owned(),
            masked_phone: phone.masked(),
        }))
    }

    /// Sets a new password with the code from the account's phone; ends every session.
    #[oai(
        path = "/password/reset",
        method = "post",
        operation_id = "resetPassword"
    )]
    async fn reset(&self, req: &Request, body: Json<ResetBody>) -> ApiResult<Ack> {
        let s = &self.0;
        let b = &body.0;
        let password = check_new_password(
            PasswordContext::Reset,
            &b.password,
            b.confirm_password.as_deref(),
        )?;
        if b.code.trim().is_empty() {
            return Err(ErrorCode::CodeRequired.into());
        }
        let user = self
            .lookup(req, &b.username)
            .await?
            .ok_or(ErrorCode::CodeInvalid)?;
        let phone = Phone::parse(&user.phone).or_internal("a stored phone is invalid")?;
        let code = s
            .codes
            .check_code(req, &phone, CodePurpose::Reset, &b.code)
            .await?;
        let now = s.clock.now_ms();
        if !s
            .store
            .consume_code(code.id, now)
            .await
            .or_internal("spending a code")?
        {
            return Err(ErrorCode::CodeExpired.into());
        }
        // The code from the account's phone is spent: the owner's, the known lane.
        let hash = passwords::hash(password.expose().to_owned(), Lane::Known).await?;
        s.store
            .set_password_hash(user.id, &hash)
            .await
            .or_internal("saving a password")?;
        s.store
            .revoke_user_sessions(user.id, None, now)
            .await
            .or_internal("revoking sessions")?;
        tracing::info!(user_id = user.id, "password reset");
        s.realtime.recheck_sessions(user.id).await;
        Ok(Json(Ack::of(Notice::PasswordReset)))
    }

    /// Changes the password of the logged-in user; every other session ends.
    #[oai(
        path = "/password/change",
        method = "post",
        operation_id = "changePassword"
    )]
    async fn change(&self, req: &Request, body: Json<ChangeBody>) -> ApiResult<Ack> {
        let s = &self.0;
        let current = s.sessions.require_user(req).await?;
        let b = &body.0;
        if b.current_password.is_empty() {
            return Err(ErrorCode::CurrentPasswordWrong.into());
        }
        let new = check_new_password(
            PasswordContext::Change,
            &b.new_password,
            b.confirm_password.as_deref(),
        )?;
        let user_key = format!("pwchange:{}", current.user.id);
        s.limits
            .limit(
                &user_key,
                PASSWORD_CHANGES_PER_USER,
                PASSWORD_CHANGE_WINDOW,
                ErrorCode::RateLimited,
            )
            .await?;
        let old = Password::parse_existing(&b.current_password)
            .map_err(|_| ErrorCode::CurrentPasswordWrong)?;
        // A logged-in user's own change: the known lane.
        if !passwords::verify(
            old.expose().to_owned(),
            Some(current.user.password_hash.clone()),
            Lane::Known,
        )
        .await?
        {
            return Err(ErrorCode::CurrentPasswordWrong.into());
        }
        let hash = passwords::hash(new.expose().to_owned(), Lane::Known).await?;
        s.store
            .set_password_hash(current.user.id, &hash)
            .await
            .or_internal("saving a password")?;
        s.store
            .revoke_user_sessions(current.user.id, Some(&current.token_hash), s.clock.now_ms())
            .await
            .or_internal("revoking sessions")?;
        s.realtime.recheck_sessions(current.user.id).await;
        Ok(Json(Ack::of(Notice::PasswordChanged)))
    }
}
