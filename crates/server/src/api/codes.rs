//! SMS verification codes, shared by sign-up and password reset: a 6-digit code from the
//! OS's CSPRNG, 180 s of life, bound to one phone and purpose, five wrong tries, sent under
//! a per-phone cooldown and daily caps per phone and per client address.

use std::time::Duration;

use poem::Request;
use rand::Rng;
use telepathy_domain::limits::{
    CODE_MAX_ATTEMPTS, CODE_TTL, SMS_COOLDOWN, SMS_DAILY_PER_IP, SMS_DAILY_PER_PHONE,
};
use telepathy_domain::{ErrorCode, Phone};
use telepathy_providers::CodePurpose;
use telepathy_store::PhoneCode;

use crate::error::{ApiError, OrInternal};
use crate::security::client_ip;
use crate::session::digest;
use crate::state::AppState;

const DAY: Duration = Duration::from_secs(24 * 60 * 60);

fn code_hash(purpose: CodePurpose, phone: &Phone, code: &str) -> String {
    digest(&format!("{}:{}:{}", purpose.as_str(), phone.as_ref(), code))
}

impl AppState {
    /// Sends a fresh code to `phone`, within the limits against SMS pumping: the client
    /// address's daily cap first, so that a capped address charges nothing to the phone it
    /// names; then the phone's cooldown and daily cap, charged for an SMS that goes out only.
    pub async fn send_code(
        &self,
        req: &Request,
        phone: &Phone,
        purpose: CodePurpose,
    ) -> Result<(), ApiError> {
        let p = phone.as_ref();
        let ip = client_ip(req, self.config.trusted_proxies);
        self.limit(
            &format!("sms:ip:{ip}"),
            SMS_DAILY_PER_IP,
            DAY,
            ErrorCode::SmsDailyLimit,
        )
        .await?;
        // Counted before the send, so that sends at once on several nodes cannot all pass,
        // and taken back when no SMS went out.
        let cool = format!("sms:cool:{p}");
        let day = format!("sms:day:{p}");
        if let Err(e) = self
            .limit(&cool, 1, SMS_COOLDOWN, ErrorCode::SmsCooldown)
            .await
        {
            self.refund(&[&cool]).await;
            return Err(e);
        }
        let sent = match self
            .limit(&day, SMS_DAILY_PER_PHONE, DAY, ErrorCode::SmsDailyLimit)
            .await
        {
            Ok(()) => self.deliver_code(phone, purpose).await,
            Err(e) => Err(e),
        };
        if sent.is_err() {
            self.refund(&[&cool, &day]).await;
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

    /// Checks `code` against the latest live code of `phone` for `purpose`, within its five
    /// tries. The caller then marks the code verified or spends it.
    pub async fn check_code(
        &self,
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
        // The try is taken before the code is compared, in one step with the check of the
        // limit: tries sent at once cannot all read "fewer than five" and all be compared.
        let Some(attempts) = self
            .store
            .take_code_attempt(stored.id, CODE_MAX_ATTEMPTS)
            .await
            .or_internal("counting a code try")?
        else {
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
