//! SMS verification codes, shared by sign-up and password reset: a 6-digit code from the
//! OS's CSPRNG, 180 s of life, bound to one phone and purpose, five wrong tries per network
//! (fifteen in all), sent under a cooldown and daily caps per phone and network, a daily cap
//! per phone and one per network.

use std::time::Duration;

use poem::Request;
use rand::Rng;
use telepathy_domain::limits::{
    CODE_MAX_ATTEMPTS, CODE_MAX_ATTEMPTS_ALL, CODE_TTL, SMS_COOLDOWN, SMS_DAILY_PER_IP,
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

fn code_hash(purpose: CodePurpose, phone: &Phone, code: &str) -> String {
    digest(&format!("{}:{}:{}", purpose.as_str(), phone.as_ref(), code))
}

/// SMS codes on a node, with the handles they need.
pub struct Codes {
    pub sms: Arc<dyn SmsSender>,
    pub store: Store,
    pub clock: Arc<dyn Clock>,
    pub limits: Limits,
}

impl Codes {
    /// Sends a fresh code to `phone`, within the limits against SMS pumping and against
    /// strangers who would use up a phone's codes to keep its owner out. The network's
    /// daily cap comes first, so that a capped network charges nothing to the phone it
    /// names; then the phone's cooldown and daily cap for this network, and the phone's
    /// daily cap from all networks (which `owner_device`, a browser that logged in to the
    /// phone's account before, is not held to). Each is charged for an SMS that goes out
    /// only.
    pub async fn send_code(
        &self,
        req: &Request,
        phone: &Phone,
        purpose: CodePurpose,
        owner_device: bool,
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
        if !owner_device {
            limits.push((all.as_str(), SMS_DAILY_PER_PHONE_ALL, DAY));
        }
        let sent = match self
            .limits
            .limit_all(&limits, ErrorCode::SmsDailyLimit)
            .await
        {
            Ok(()) => {
                let sent = self.deliver_code(phone, purpose).await;
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

    /// Stores a fresh code's hash and sends the code.
    async fn deliver_code(&self, phone: &Phone, purpose: CodePurpose) -> Result<(), ApiError> {
        let p = phone.as_ref();
        let code = format!("{:06}", rand::rngs::OsRng.gen_range(0..1_000_000u32));
        let now = self.clock.now_ms();
        let ttl = i64::try_from(CODE_TTL.as_millis()).unwrap_or(i64::MAX);
        self.store
            .insert_phone_code(
                p,
                purpose.as_str(),
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

    /// Checks `code` against the latest live code of `phone` for `purpose`: at most
    /// `CODE_MAX_ATTEMPTS` tries from the request's network and `CODE_MAX_ATTEMPTS_ALL`
    /// from all, so a stranger's wrong tries use up their own network's, not the code. The
    /// caller then marks the code verified or spends it.
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
        let now = self.clock.now_ms();
        let latest = self
            .store
            .latest_phone_code(phone.as_ref(), purpose.as_str())
            .await
            .or_internal("reading a verification code")?;
        let Some(stored) = latest.filter(|c| c.expires_at > now && c.verified_at.is_none()) else {
            return Err(ErrorCode::CodeExpired.into());
        };
        // The tries are taken before the code is compared, each in one step with the check
        // of its limit: tries sent at once cannot all read "fewer than five" and all be
        // compared.
        let net = client_net(req, self.limits.trusted_proxies);
        let key = format!("code-try:{}:{net}", stored.id);
        let limit = u32::try_from(CODE_MAX_ATTEMPTS).unwrap_or(u32::MAX);
        let ours = self.limits.hit(&key, limit, CODE_TTL).await?;
        if !ours.allowed {
            return Err(ErrorCode::CodeAttemptsExceeded.into());
        }
        let Some(attempts) = self
            .store
            .take_code_attempt(stored.id, CODE_MAX_ATTEMPTS_ALL)
            .await
            .or_internal("counting a code try")?
        else {
            self.limits.count_limited("code-all");
            return Err(ErrorCode::CodeAttemptsExceeded.into());
        };
        if stored.code_hash != code_hash(purpose, phone, code) {
            let last =
                i64::from(ours.count) >= CODE_MAX_ATTEMPTS || attempts >= CODE_MAX_ATTEMPTS_ALL;
            return Err(if last {
                ErrorCode::CodeAttemptsExceeded
            } else {
                ErrorCode::CodeInvalid
            }
            .into());
        }
        Ok(stored)
    }
}
