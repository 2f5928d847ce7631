//! Login sessions: an opaque random token in an HttpOnly cookie; the database keeps only
//! its SHA-256, so a leaked table cannot be replayed. Every request looks the session up,
//! so a revocation takes effect on every node at once.

use base64::Engine as _;
use poem::web::cookie::{Cookie, CookieJar, SameSite};
use poem::Request;
use rand::RngCore;
use sha2::{Digest, Sha256};
use telepathy_domain::limits::SESSION_TTL;
use telepathy_domain::ErrorCode;
use telepathy_store::{NewSession, User};

use crate::error::{ApiError, OrInternal};
use crate::security::client_ip;
use std::sync::Arc;

use telepathy_store::Store;

use crate::clock::Clock;
use crate::security::devices::Devices;

/// Name of the session cookie.
pub const COOKIE: &str = "tp_session";

/// The hex SHA-256 of a token or code.
pub fn digest(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// The hash of the request's session token, if it carries one.
fn token_hash(req: &Request) -> Option<String> {
    req.cookie()
        .get(COOKIE)
        .map(|token| digest(token.value_str()))
}

/// The logged-in user of a request, and the hash of its session token.
pub struct CurrentUser {
    pub user: User,
    pub token_hash: String,
}

/// The sessions of users and operators (see `operators`), with the handles they need.
pub struct Sessions {
    pub store: Store,
    pub clock: Arc<dyn Clock>,
    /// Leaves the device cookie a login earns.
    pub devices: Devices,
    /// See `security::client_of`.
    pub trusted_proxies: usize,
    /// Cookies are `Secure` (the public origin is https).
    pub secure_cookies: bool,
}

impl Sessions {
    /// The user of the request's session, if it is live.
    pub async fn current_user(&self, req: &Request) -> Result<Option<CurrentUser>, ApiError> {
        let Some(token_hash) = token_hash(req) else {
            return Ok(None);
        };
        let user = self
            .store
            .session_user(&token_hash, self.clock.now_ms())
            .await
            .or_internal("looking up a session")?;
        Ok(user.map(|user| CurrentUser { user, token_hash }))
    }

    /// [`Self::current_user`] and whom the user is kept apart from, read together: what a
    /// socket opens with.
    pub async fn current_user_apart(
        &self,
        req: &Request,
    ) -> Result<Option<(CurrentUser, Vec<i64>)>, ApiError> {
        let Some(token_hash) = token_hash(req) else {
            return Ok(None);
        };
        let found = self
            .store
            .session_user_apart(&token_hash, self.clock.now_ms())
            .await
            .or_internal("looking up a session")?;
        Ok(found.map(|(user, apart)| (CurrentUser { user, token_hash }, apart)))
    }

    /// Like [`Self::current_user`] but refuses a request without a live session.
    pub async fn require_user(&self, req: &Request) -> Result<CurrentUser, ApiError> {
        self.current_user(req)
            .await?
            .ok_or_else(|| ErrorCode::Unauthorized.into())
    }

    /// Starts a new session for `user_id` and sets its cookie. Always a fresh token, so a
    /// token planted before login is worthless after it.
    pub async fn start_session(
        &self,
        req: &Request,
        cookies: &CookieJar,
        user_id: i64,
    ) -> Result<(), ApiError> {
        let mut bytes = [0u8; 32];
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        let token = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
        let now = self.clock.now_ms();
        let ttl_ms = i64::try_from(SESSION_TTL.as_millis()).unwrap_or(i64::MAX);
        let user_agent: String = req
            .headers()
            .get(poem::http::header::USER_AGENT)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .chars()
            .take(300)
            .collect();
        self.store
            .create_session(&NewSession {
                token_hash: &digest(&token),
                user_id,
                now,
                expires_at: now.saturating_add(ttl_ms),
                ip: &client_ip(req, self.trusted_proxies),
                user_agent: &user_agent,
            })
            .await
            .or_internal("creating a session")?;
        cookies.add(self.session_cookie(token, SESSION_TTL));
        self.devices.mark_device(cookies, user_id);
        Ok(())
    }

    /// Tells the browser to drop the session cookie.
    pub fn clear_cookie(&self, cookies: &CookieJar) {
        cookies.add(self.session_cookie(String::new(), std::time::Duration::ZERO));
    }

    /// The session cookie: HttpOnly, SameSite=Lax, Secure outside plain-http origins.
    fn session_cookie(&self, value: String, max_age: std::time::Duration) -> Cookie {
        let mut cookie = Cookie::new_with_str(COOKIE, value);
        cookie.set_http_only(true);
        cookie.set_same_site(SameSite::Lax);
        cookie.set_secure(self.secure_cookies);
        cookie.set_path("/");
        cookie.set_max_age(max_age);
        cookie
    }
}
