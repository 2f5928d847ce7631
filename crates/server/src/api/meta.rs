use poem::Request;
use poem_openapi::param::Query;
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};
use telepathy_domain::limits::{OUTBOX_READS_PER_IP, OUTBOX_READS_PER_PHONE, OUTBOX_WINDOW};
use telepathy_domain::{ErrorCode, Phone};
use telepathy_providers::CodePurpose;

use super::Tag;
use crate::error::ApiResult;
use crate::security::{client_ip, local_or_bearer};
use crate::state::AppState;

pub struct MetaApi(pub AppState);

/// What the web app needs to know about this deployment.
#[derive(Debug, Object)]
pub struct AppConfig {
    /// Demo providers are in use: the app shows a DEMO badge.
    pub demo: bool,
}

/// The latest sign-up code the demo SMS provider "sent" to a phone.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct OutboxEntry {
    pub phone: String,
    pub code: String,
    pub text: String,
    /// RFC 3339.
    pub sent_at: String,
}

#[OpenApi]
impl MetaApi {
    /// Facts about this deployment.
    #[oai(
        path = "/app-config",
        method = "get",
        operation_id = "getAppConfig",
        tag = "Tag::Meta"
    )]
    async fn app_config(&self) -> ApiResult<AppConfig> {
        Ok(Json(AppConfig {
            demo: self.0.config.demo,
        }))
    }

    /// Demo mode only: the latest sign-up code sent to `phone`, for this machine (a loopback
    /// peer that came through no proxy) or with `Authorization: Bearer
    /// $TELEPATHY_OUTBOX_TOKEN`; otherwise 404. Password-reset codes are never shown: they
    /// prove the phone of an existing account.
    #[oai(
        path = "/dev/sms-outbox",
        method = "get",
        operation_id = "getSmsOutbox",
        tag = "Tag::Dev"
    )]
    async fn sms_outbox(&self, req: &Request, phone: Query<String>) -> ApiResult<OutboxEntry> {
        let s = &self.0;
        let outbox = s.demo_sms.as_ref().ok_or(ErrorCode::NotFound)?;
        if !local_or_bearer(req, s.config.outbox_token.as_ref()) {
            return Err(ErrorCode::NotFound.into());
        }
        let ip = client_ip(req, s.config.trusted_proxies);
        s.limit(
            &format!("outbox:ip:{ip}"),
            OUTBOX_READS_PER_IP,
            OUTBOX_WINDOW,
            ErrorCode::RateLimited,
        )
        .await?;
        let phone = Phone::parse(&phone.0)?;
        s.limit(
            &format!("outbox:phone:{}", phone.as_ref()),
            OUTBOX_READS_PER_PHONE,
            OUTBOX_WINDOW,
            ErrorCode::RateLimited,
        )
        .await?;
        let sent = outbox
            .latest(phone.as_ref(), CodePurpose::Register)
            .ok_or(ErrorCode::NotFound)?;
        Ok(Json(OutboxEntry {
            phone: sent.phone,
            code: sent.code,
            text: sent.text,
            sent_at: sent.sent_at.to_rfc3339(),
        }))
    }
}
