//! SMS verification codes, shared by sign-up and password reset: a 6-digit code from the
//! OS's CSPRNG, 180 s of life, bound to one phone, purpose and browser (its code flow
//! cookie), five wrong tries in all, sent under a cooldown and daily caps per phone and
//! network, a daily cap per phone and one per network.
//!
//! A code belongs to the browser that asked for it. A stranger who asks for a code for the
//! owner's phone gets a code of their own flow, which the owner never sees, and their wrong
//! tries spend that code alone: neither voids the code the owner is typing. Only the flow's
//! own browser can try a code at all, so five tries per code bound a guesser to five in a
//! million per SMS, and the phone's daily caps bound the SMS.

use std::time::Duration;

use poem::web::cookie::{Cookie, CookieJar, SameSite};
use poem::Request;
use rand::{Rng, RngCore};
use telepathy_domain::limits::{
    CODE_FLOW_TTL, CODE_MAX_ATTEMPTS, CODE_TTL, SMS_COOLDOWN, SMS_DAILY_PER_IP,
    SMS_DAILY_PER_PHONE, SMS_DAILY_PER_PHONE_ALL,
};
use telepathy_domain::{ErrorCode, Phone};
use telepathy_providers::CodePurpose;
use telepathy_store::PhoneCode;

use crate::error::{ApiError, OrInternal};
use crate::security::client_net;
use std::sync::Arc;

use telepathy_providers::SmsSender;
use telepathy_store::Store;

use super::sessions::digest;
use crate::clock::Clock;
use crate::security::limits::Limits;

const DAY: Duration = Duration::from_secs(24 * 60 * 60);

/// Name of the cookie that holds a browser's code flow: a random id, of which the store
/// keeps only the digest beside each code sent for it.
pub const FLOW_COOKIE: &str = "tp_code";

fn code_hash(purpose: CodePurpose, phone: &Phone, code: &str) -> String {
    digest(&format!("{}:{}:{}", purpose.as_str(), phone.as_ref(), code))
}

/// SMS codes on a node, with the handles they need.
pub struct Codes {
    pub sms: Arc<dyn SmsSender>,
    pub store: Store,
    pub clock: Arc<dyn Clock>,
    pub limits: Limits,
    pub secure_cookies: bool,
}

/// The code flow a request's cookie names, if it holds one of ours.
fn flow_of(req: &Request) -> Option<String> {
    let cookie = req.cookie().get(FLOW_COOKIE)?;
    let id = cookie.value_str();
    (id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit())).then(|| id.to_owned())
}

impl Codes {
    /// Sends a fresh code to `phone`, within the limits against SMS pumping and against
    /// strangers who would use up a phone's codes to keep its owner out. The network's
    /// daily cap comes first, so that a capped network charges nothing to the phone it
    /// names; then the phone's cooldown and daily cap for this network, and the phone's
    /// daily cap from all networks (which `owner`, a request the caller knows for the
    /// owner's, is not held to). Each is charged for an SMS that goes out only. The code
    /// goes to the request's code flow, begun here when it has none.
    pub async fn send_code(
        &self,
        req: &Request,
        cookies: &CookieJar,
        phone: &Phone,
        purpose: CodePurpose,
        owner: bool,
    ) -> Result<(), ApiError> {
        let p = phone.as_ref();
        let net = client_net(req, self.limits.trusted_proxies);
        self.limits
            .limit(
                &format!("sms:ip:{net}"),
                SMS_DAILY_PER_IP,
                DAY,
                ErrorCode::SmsDailyLimit,
            )
            .await?;
        // Counted before the send, so that sends at once on several nodes cannot all pass,
        // and taken back when no SMS went out.
        let cool = format!("sms:cool:{p}:{net}");
        let day = format!("sms:day:{p}:{net}");
        let all = format!("sms:all:{p}");
        if let Err(e) = self
            .limits
            .limit(&cool, 1, SMS_COOLDOWN, ErrorCode::SmsCooldown)
            .await
        {
            self.limits.refund(&[&cool]).await;
            return Err(e);
        }
        let mut limits = vec![(day.as_str(), SMS_DAILY_PER_PHONE, DAY)];
        if !owner {
            limits.push((all.as_str(), SMS_DAILY_PER_PHONE_ALL, DAY));
        }
        let sent = match self
            .limits
            .limit_all(&limits, ErrorCode::SmsDailyLimit)
            .await
        {
            Ok(()) => {
                let flow = self.keep_flow(req, cookies);
                let sent = self.deliver_code(phone, purpose, &flow).await;
                if sent.is_err() {
                    let counted: Vec<&str> = limits.iter().map(|(key, _, _)| *key).collect();
                    self.limits.refund(&counted).await;
                }
                sent
            }
            // A refused count is taken back already.
            Err(e) => Err(e),
        };
        if sent.is_err() {
            self.limits.refund(&[&cool]).await;
        }
        sent
    }

    /// The request's code flow, or a new one; either way the browser keeps it for
    /// `CODE_FLOW_TTL` from now.
    fn keep_flow(&self, req: &Request, cookies: &CookieJar) -> String {
        let flow = flow_of(req).unwrap_or_else(|| {
            let mut id = [0u8; 16];
            rand::rngs::OsRng.fill_bytes(&mut id);
            hex::encode(id)
        });
        let mut cookie = Cookie::new_with_str(FLOW_COOKIE, &flow);
        cookie.set_http_only(true);
        cookie.set_same_site(SameSite::Strict);
        cookie.set_secure(self.secure_cookies);
        cookie.set_path("/api/");
        cookie.set_max_age(CODE_FLOW_TTL);
        cookies.add(cookie);
        flow
    }

    /// Stores a fresh code's hash for `flow` and sends the code.
    async fn deliver_code(
        &self,
        phone: &Phone,
        purpose: CodePurpose,
        flow: &str,
    ) -> Result<(), ApiError> {
        let p = phone.as_ref();
        let code = format!("{:06}", rand::rngs::OsRng.gen_range(0..1_000_000u32));
        let now = self.clock.now_ms();
        let ttl = i64::try_from(CODE_TTL.as_millis()).unwrap_or(i64::MAX);
        self.store
            .insert_phone_code(
                p,
                purpose.as_str(),
                &digest(flow),
                &code_hash(purpose, phone, &code),
                now,
                now + ttl,
            )
            .await
            .or_internal("storing a verification code")?;
        self.sms.send_code(p, &code, purpose).await.map_err(|e| {
            tracing::warn!(error = %e, "the SMS provider failed");
            ApiError::from(ErrorCode::SmsSendFailed)
        })
    }

    /// Checks `code` against the latest live code of `phone` for `purpose` that was sent to
    /// this browser's flow: at most `CODE_MAX_ATTEMPTS` tries, counted and checked in one
    /// step of the store so that tries at once on several nodes cannot pass together. A
    /// browser with no flow has no code to try. The caller then marks the code verified or
    /// spends it.
    pub async fn check_code(
        &self,
        req: &Request,
        phone: &Phone,
        purpose: CodePurpose,
        code: &str,
    ) -> Result<PhoneCode, ApiError> {
        let code = code.trim();
        if code.is_empty() {
            return Err(ErrorCode::CodeRequired.into());
        }
        let Some(flow) = flow_of(req) else {
            return Err(ErrorCode::CodeExpired.into());
        };
        let now = self.clock.now_ms();
        let latest = self
            .store
            .latest_phone_code(phone.as_ref(), purpose.as_str(), &digest(&flow))
            .await
            .or_internal("reading a verification code")?;
        let Some(stored) = latest.filter(|c| c.expires_at > now && c.verified_at.is_none()) else {
            return Err(ErrorCode::CodeExpired.into());
        };
        let Some(attempts) = self
            .store
            .take_code_attempt(stored.id, CODE_MAX_ATTEMPTS)
            .await
            .or_internal("counting a code try")?
        else {
            self.limits.count_limited("code-try");
            return Err(ErrorCode::CodeAttemptsExceeded.into());
        };
        if stored.code_hash != code_hash(purpose, phone, code) {
            return Err(if attempts >= CODE_MAX_ATTEMPTS {
                ErrorCode::CodeAttemptsExceeded
            } else {
                ErrorCode::CodeInvalid
            }
            .into());
        }
        Ok(stored)
    }
}
