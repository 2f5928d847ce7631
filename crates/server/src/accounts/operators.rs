//! Operator sessions: like a user's (an opaque token in an HttpOnly cookie, only its
//! SHA-256 stored, looked up on every request) but with a cookie of their own, `tp_admin`,
//! sent to this site only (SameSite=Strict), and short: they end after
//! `OPERATOR_IDLE` without a request and `OPERATOR_SESSION_MAX` after the login. A session
//! starts after the password and is of use only once it passed the second factor. A user
//! session is never an operator session.

use std::time::Duration;

use base64::Engine as _;
use poem::web::cookie::{Cookie, CookieJar, SameSite};
use poem::Request;
use rand::RngCore;
use telepathy_domain::limits::{OPERATOR_IDLE, OPERATOR_SESSION_MAX, OPERATOR_SLIDE_EVERY};
use telepathy_domain::time::millis;
use telepathy_domain::ErrorCode;
use telepathy_store::{AuditEntry, NewOperatorSession, Operator};

use super::sessions::{digest, Sessions};
use crate::error::{ApiError, OrInternal};
use crate::security::client_ip;

/// Name of the operator session cookie.
pub const ADMIN_COOKIE: &str = "tp_admin";

/// The operator of a request's live session.
#[derive(Debug)]
pub struct CurrentOperator {
    pub operator: Operator,
    pub token_hash: String,
    /// Whether the session passed the second factor.
    pub second_factor: bool,
    /// When the session ends unless used, Unix milliseconds.
    pub expires_at: i64,
    /// The client address, for the audit log.
    pub ip: String,
}

impl CurrentOperator {
    /// An audit line of an action of this operator.
    pub fn audit<'a>(
        &'a self,
        action: &'a str,
        user_id: Option<i64>,
        report_id: Option<i64>,
        detail: &'a str,
        now: i64,
    ) -> AuditEntry<'a> {
        AuditEntry {
            operator_id: Some(self.operator.id),
            action,
            user_id,
            report_id,
            detail,
            ip: &self.ip,
            now,
        }
    }
}

impl Sessions {
    /// The operator of the request's session, passed the second factor or not, if the
    /// session is live and the operator not disabled. Using a session moves its idle
    /// deadline (at most once every `OPERATOR_SLIDE_EVERY`, never past its last moment).
    pub async fn current_operator(
        &self,
        req: &Request,
    ) -> Result<Option<CurrentOperator>, ApiError> {
        let Some(token) = req.cookie().get(ADMIN_COOKIE) else {
            return Ok(None);
        };
        let token_hash = digest(token.value_str());
        let now = self.clock.now_ms();
        let Some(session) = self
            .store
            .operator_session(&token_hash, now)
            .await
            .or_internal("looking up an operator session")?
        else {
            return Ok(None);
        };
        let deadline = now.saturating_add(millis(OPERATOR_IDLE)).min(
            session
                .created_at
                .saturating_add(millis(OPERATOR_SESSION_MAX)),
        );
        let mut expires_at = session.expires_at;
        let unless_after = deadline.saturating_sub(millis(OPERATOR_SLIDE_EVERY));
        if expires_at <= unless_after {
            self.store
                .slide_operator_session(&token_hash, deadline, unless_after)
                .await
                .or_internal("extending an operator session")?;
            expires_at = deadline;
        }
        Ok(Some(CurrentOperator {
            operator: session.operator,
            token_hash,
            second_factor: session.second_factor_at.is_some(),
            expires_at,
            ip: client_ip(req, self.trusted_proxies),
        }))
    }

    /// An operator session, passed the second factor or not: `OPERATOR_ONLY` without one.
    pub async fn require_operator_session(
        &self,
        req: &Request,
    ) -> Result<CurrentOperator, ApiError> {
        self.current_operator(req)
            .await?
            .ok_or_else(|| ErrorCode::OperatorOnly.into())
    }

    /// An operator session that passed the second factor: `OPERATOR_ONLY` without an
    /// operator session (a user's does not count), `SECOND_FACTOR_REQUIRED` before the
    /// code.
    pub async fn require_operator(&self, req: &Request) -> Result<CurrentOperator, ApiError> {
        let current = self.require_operator_session(req).await?;
        if !current.second_factor {
            return Err(ErrorCode::SecondFactorRequired.into());
        }
        Ok(current)
    }

    /// Starts a session of `operator` after its password, waiting for the second factor,
    /// writes `audit` with it and sets the cookie. Always a fresh token.
    pub async fn start_operator_session(
        &self,
        cookies: &CookieJar,
        operator: &Operator,
        ip: &str,
        audit: &AuditEntry<'_>,
    ) -> Result<(), ApiError> {
        let mut bytes = [0u8; 32];
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        let token = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
        let now = self.clock.now_ms();
        self.store
            .create_operator_session(
                &NewOperatorSession {
                    token_hash: &digest(&token),
                    operator_id: operator.id,
                    now,
                    expires_at: now.saturating_add(millis(OPERATOR_IDLE)),
                    ip,
                },
                audit,
            )
            .await
            .or_internal("creating an operator session")?;
        cookies.add(self.admin_cookie(token, OPERATOR_SESSION_MAX));
        Ok(())
    }

    /// Tells the browser to drop the operator cookie.
    pub fn clear_admin_cookie(&self, cookies: &CookieJar) {
        cookies.add(self.admin_cookie(String::new(), Duration::ZERO));
    }

    /// The operator cookie: HttpOnly, SameSite=Strict, Secure outside plain-http origins.
    fn admin_cookie(&self, value: String, max_age: Duration) -> Cookie {
        let mut cookie = Cookie::new_with_str(ADMIN_COOKIE, value);
        cookie.set_http_only(true);
        cookie.set_same_site(SameSite::Strict);
        cookie.set_secure(self.secure_cookies);
        cookie.set_path("/");
        cookie.set_max_age(max_age);
        cookie
    }
}
