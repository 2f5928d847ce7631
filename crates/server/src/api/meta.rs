use poem_openapi::param::Query;
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};
use telepathy_domain::{ErrorCode, Phone};

use super::Tag;
use crate::error::ApiResult;
use crate::state::AppState;

pub struct MetaApi(pub AppState);

/// What the web app needs to know about this deployment.
#[derive(Debug, Object)]
pub struct AppConfig {
    /// Demo providers are in use: the app shows a DEMO badge.
    pub demo: bool,
}

/// The latest code the demo SMS provider "sent" to a phone.
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

    /// Demo mode only: the latest SMS code sent to `phone`. Outside demo mode: 404.
    #[oai(
        path = "/dev/sms-outbox",
        method = "get",
        operation_id = "getSmsOutbox",
        tag = "Tag::Dev"
    )]
    async fn sms_outbox(&self, phone: Query<String>) -> ApiResult<OutboxEntry> {
        let outbox = self.0.demo_sms.as_ref().ok_or(ErrorCode::NotFound)?;
        let phone = Phone::parse(&phone.0)?;
        let sent = outbox.latest(phone.as_ref()).ok_or(ErrorCode::NotFound)?;
        Ok(Json(OutboxEntry {
            phone: sent.phone,
            code: sent.code,
            text: sent.text,
            sent_at: sent.sent_at.to_rfc3339(),
        }))
    }
}
