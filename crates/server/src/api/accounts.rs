use poem::web::cookie::CookieJar;
use poem::Request;
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};
use telepathy_domain::{Credentials, ErrorCode, Notice};

use super::{Ack, Tag};
use crate::error::{ApiError, ApiResult, OrInternal};
use crate::security::client_net;
use crate::security::passwords::{self, Lane};
use crate::state::AppState;

pub struct AccountsApi(pub AppState);

#[derive(Object)]
pub struct LoginBody {
    #[oai(default)]
    pub username: String,
    #[oai(default)]
    pub password: String,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct LoginState {
    pub logged_in: bool,
}

#[OpenApi(tag = "Tag::Auth")]
impl AccountsApi {
    /// Logs in with username and password; a new session cookie on success.
    #[oai(path = "/auth/login", method = "post", operation_id = "login")]
    async fn login(
        &self,
        req: &Request,
        cookies: &CookieJar,
        body: Json<LoginBody>,
    ) -> ApiResult<Ack> {
        let s = &self.0;
        let Credentials { username, password } =
            Credentials::parse(&body.username, &body.password)?;
        // Every try is counted before the password is checked; a try that succeeds is
        // taken back, but for the network's count of tries.
        let ip = client_net(req, s.config.trusted_proxies);
        let user = s
            .store
            .user_by_username(username.as_ref())
            .await
            .or_internal("finding a user")?;
        let device = user
            .as_ref()
            .and_then(|u| s.devices.trusted_device(req, u.id));
        let tries = s
            .limits
            .count_login_try(&ip, username.as_ref(), device.as_ref())
            .await?;
        // An unknown username costs no hash. Whether a username is taken is no secret
        // (find password's first step says so, under the look-up limit), so such a login
        // is counted as a look-up instead of taking as long as a wrong password.
        let Some(user) = user else {
            s.limits.limit_lookups(req).await?;
            return Err(ErrorCode::LoginFailed.into());
        };
        // An account past its logins is refused before its password costs a hash.
        s.limits.count_login(user.id).await?;
        let lane = if device.is_some() {
            Lane::Known
        } else {
            Lane::Other
        };
        let checked = passwords::verify(
            password.expose().to_owned(),
            Some(user.password_hash.clone()),
            lane,
        )
        .await;
        let right = match checked {
            Ok(right) => {
                match lane {
                    Lane::Known => s.metrics.count_login_hash("known"),
                    Lane::Other => s.metrics.count_login_hash("other"),
                }
                right
            }
            Err(busy) => {
                s.metrics.count_login_hash("busy");
                s.limits.uncount_login(user.id).await;
                s.limits.tries_not_checked(&tries).await;
                return Err(busy.into());
            }
        };
        if !right {
            s.limits.uncount_login(user.id).await;
            return Err(ErrorCode::LoginFailed.into());
        }
        // A suspended or banned account is told why and until when, only once its
        // password is right.
        if let Err(e) = s.safety.refuse_restricted(user.id).await {
            s.limits.uncount_login(user.id).await;
            return Err(e);
        }
        // This username's back-off from this address starts over.
        s.limits.tries_succeeded(&tries).await?;
        s.sessions.start_session(req, cookies, user.id).await?;
        // A sanction given while this login was on its way ended every session but this
        // new one: look again, and end it too.
        if let Some(r) = s.safety.restriction(user.id).await? {
            s.store
                .revoke_user_sessions(user.id, None, s.clock.now_ms())
                .await
                .or_internal("ending sessions")?;
            s.sessions.clear_cookie(cookies);
            return Err(ApiError::restricted(&r));
        }
        Ok(Json(Ack::of(Notice::LoggedIn)))
    }

    /// Ends this session.
    #[oai(path = "/auth/logout", method = "post", operation_id = "logout")]
    async fn logout(&self, req: &Request, cookies: &CookieJar) -> ApiResult<Ack> {
        let s = &self.0;
        if let Some(current) = s.sessions.current_user(req).await? {
            s.store
                .revoke_session(&current.token_hash, s.clock.now_ms())
                .await
                .or_internal("revoking a session")?;
            s.realtime.recheck_sessions(current.user.id).await;
        }
        s.sessions.clear_cookie(cookies);
        Ok(Json(Ack::of(Notice::LoggedOut)))
    }

    /// Whether the request carries a live session.
    #[oai(path = "/auth/check", method = "get", operation_id = "checkAuth")]
    async fn check(&self, req: &Request) -> ApiResult<LoginState> {
        Ok(Json(LoginState {
            logged_in: self.0.sessions.current_user(req).await?.is_some(),
        }))
    }

    /// Deactivates the account and ends all of its sessions.
    #[oai(path = "/auth/withdraw", method = "post", operation_id = "withdraw")]
    async fn withdraw(&self, req: &Request, cookies: &CookieJar) -> ApiResult<Ack> {
        let s = &self.0;
        let current = s.sessions.require_user(req).await?;
        s.store
            .withdraw_user(current.user.id, s.clock.now_ms())
            .await
            .or_internal("withdrawing")?;
        tracing::info!(user_id = current.user.id, "account withdrawn");
        s.realtime.recheck_sessions(current.user.id).await;
        s.sessions.clear_cookie(cookies);
        Ok(Json(Ack::of(Notice::Withdrawn)))
    }
}
