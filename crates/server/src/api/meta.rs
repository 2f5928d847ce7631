use poem::Request;
use poem_openapi::param::Query;
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};
use telepathy_domain::limits::{OUTBOX_READS_PER_IP, OUTBOX_READS_PER_PHONE, OUTBOX_WINDOW};
use telepathy_domain::megaphone::Pack;
use telepathy_domain::{ErrorCode, Phone};
use telepathy_providers::CodePurpose;

use super::Tag;
use crate::config::{BusinessInfo, Officer};
use crate::error::ApiResult;
use crate::security::{client_ip, local_or_bearer};
use crate::state::AppState;

pub struct MetaApi(pub AppState);

/// What the web app needs to know about this deployment.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct AppConfig {
    /// Demo providers are in use: the app shows a DEMO badge.
    pub demo: bool,
    /// The operator's facts for the footer, the help page and the terms.
    pub business: Business,
    /// The megaphone packs on sale, cheapest first.
    pub megaphone_packs: Vec<MegaphonePack>,
}

/// A megaphone pack on sale.
#[derive(Debug, Object)]
pub struct MegaphonePack {
    /// What `POST /payments/prepare` takes: `megaphone_1`, `megaphone_5`, `megaphone_10`.
    pub item: String,
    /// Megaphones it holds.
    pub count: i64,
    /// Its price in won.
    pub price: i64,
}

/// The operator's facts (`TELEPATHY_BUSINESS_*` and the officers). A field that is not
/// configured is absent, and the app leaves its line out.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase", skip_serializing_if_is_none)]
pub struct Business {
    /// Trade name (상호).
    pub name: Option<String>,
    /// Representative (대표자).
    pub representative: Option<String>,
    /// Business registration number (사업자등록번호), `123-45-67890`.
    pub registration_number: Option<String>,
    /// Mail-order business report number (통신판매업 신고번호).
    pub mail_order_number: Option<String>,
    pub address: Option<String>,
    pub phone: Option<String>,
    /// Contact email for questions, appeals and withdrawal requests.
    pub email: Option<String>,
    /// Hosting provider (호스팅 제공자).
    pub hosting: Option<String>,
    /// Youth protection officer (청소년보호책임자).
    pub youth_officer: Option<BusinessOfficer>,
    /// Privacy officer (개인정보 보호책임자).
    pub privacy_officer: Option<BusinessOfficer>,
}

/// An officer the operator names, with how to reach them.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct BusinessOfficer {
    pub name: String,
    pub position: Option<String>,
    pub email: Option<String>,
}

impl From<&BusinessInfo> for Business {
    fn from(b: &BusinessInfo) -> Self {
        let officer = |o: &Option<Officer>| {
            o.as_ref().map(|o| BusinessOfficer {
                name: o.name.clone(),
                position: o.position.clone(),
                email: o.email.clone(),
            })
        };
        Self {
            name: b.name.clone(),
            representative: b.representative.clone(),
            registration_number: b.registration_number.clone(),
            mail_order_number: b.mail_order_number.clone(),
            address: b.address.clone(),
            phone: b.phone.clone(),
            email: b.email.clone(),
            hosting: b.hosting.clone(),
            youth_officer: officer(&b.youth_officer),
            privacy_officer: officer(&b.privacy_officer),
        }
    }
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
            business: Business::from(&self.0.config.business),
            megaphone_packs: Pack::ALL
                .into_iter()
                .map(|p| MegaphonePack {
                    item: p.item().to_owned(),
                    count: p.count(),
                    price: p.price(),
                })
                .collect(),
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
