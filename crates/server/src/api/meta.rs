use chrono::{NaiveDate, NaiveTime, TimeZone as _};
use chrono_tz::Asia::Seoul;
use poem::Request;
use poem_openapi::param::Query;
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};
use telepathy_domain::limits::{OUTBOX_READS_PER_IP, OUTBOX_READS_PER_PHONE, OUTBOX_WINDOW};
use telepathy_domain::megaphone::Pack;
use telepathy_domain::time::seoul_date;
use telepathy_domain::{ErrorCode, Phone};
use telepathy_providers::CodePurpose;

use super::Tag;
use crate::config::Business;
use crate::error::ApiResult;
use crate::security::{client_net, local_or_bearer};
use crate::state::AppState;

pub struct MetaApi(pub AppState);

/// How far from today the demo clock may be set.
const DEMO_CLOCK_MAX_DAYS: i64 = 366;

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
    /// The VAPID public key (base64url, uncompressed P-256 point) browsers subscribe to the
    /// opening bell with (`applicationServerKey`).
    pub push_public_key: String,
    /// The operator's pages outside the app; the app does without one not set.
    pub links: Links,
}

/// The operator's pages the app links to, each an https address.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase", skip_serializing_if_is_none)]
pub struct Links {
    /// The community gallery, in the bottom navigation.
    pub community: Option<String>,
    /// The payment inquiry form, on My page.
    pub payment_inquiry: Option<String>,
    /// The operator's FAQ, on My page (the help page's questions otherwise).
    pub faq: Option<String>,
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

/// The latest sign-up code the demo SMS provider "sent" to a phone.
/// Where to set the demo clock.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ClockBody {
    /// `HH:MM:SS` (or `HH:MM`), Seoul time; absent: the real time again.
    pub seoul_time: Option<String>,
    /// `YYYY-MM-DD`, Seoul; absent: today.
    pub date: Option<String>,
}

/// The demo clock's time now.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ClockAnswer {
    pub success: bool,
    /// RFC 3339, UTC.
    pub now: String,
    /// `YYYY-MM-DD HH:MM:SS`, Seoul.
    pub seoul_time: String,
}

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
            business: self.0.config.business.clone(),
            megaphone_packs: Pack::ALL
                .into_iter()
                .map(|p| MegaphonePack {
                    item: p.item().to_owned(),
                    count: p.count(),
                    price: p.price(),
                })
                .collect(),
            push_public_key: self.0.push.keys().public_base64().to_owned(),
            links: Links {
                community: self.0.config.links.community.clone(),
                payment_inquiry: self.0.config.links.payment_inquiry.clone(),
                faq: self.0.config.links.faq.clone(),
            },
        }))
    }

    /// Demo mode only, for this machine (or with the outbox token): sets the demo's clock
    /// to a Seoul time of day (today, or `date`), to see the 8 PM bell or the closed hours
    /// without waiting; without `seoulTime`, back to the real time. The clock goes on
    /// running from there. Demo mode is always open until its clock is moved; on a moved
    /// clock the service keeps the spec's hours (20:00–02:00), and back on the real time it
    /// is always open again. Each evening's bell rings once: for a second try, name another
    /// date.
    #[oai(
        path = "/dev/clock",
        method = "post",
        operation_id = "setDemoClock",
        tag = "Tag::Dev"
    )]
    async fn set_clock(&self, req: &Request, body: Json<ClockBody>) -> ApiResult<ClockAnswer> {
        let s = &self.0;
        let clock = s.demo_clock.as_ref().ok_or(ErrorCode::NotFound)?;
        if !local_or_bearer(req, s.config.outbox_token.as_ref()) {
            return Err(ErrorCode::NotFound.into());
        }
        match body.seoul_time.as_deref() {
            None => clock.reset(),
            Some(time) => {
                let time = NaiveTime::parse_from_str(time.trim(), "%H:%M:%S")
                    .or_else(|_| NaiveTime::parse_from_str(time.trim(), "%H:%M"))
                    .map_err(|_| ErrorCode::InvalidRequest)?;
                let today = seoul_date(chrono::Utc::now());
                let date = match body.date.as_deref() {
                    Some(d) => NaiveDate::parse_from_str(d.trim(), "%Y-%m-%d")
                        .map_err(|_| ErrorCode::InvalidRequest)?,
                    None => today,
                };
                // A year either way is room enough for a demo; further, sessions and codes
                // would all look expired or not yet made.
                if (date - today).num_days().abs() > DEMO_CLOCK_MAX_DAYS {
                    return Err(ErrorCode::InvalidRequest.into());
                }
                let at = Seoul
                    .from_local_datetime(&date.and_time(time))
                    .earliest()
                    .ok_or(ErrorCode::InvalidRequest)?;
                clock.set(at.with_timezone(&chrono::Utc));
            }
        }
        let now = s.clock.now();
        Ok(Json(ClockAnswer {
            success: true,
            now: now.to_rfc3339(),
            seoul_time: now
                .with_timezone(&Seoul)
                .format("%Y-%m-%d %H:%M:%S")
                .to_string(),
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
        let ip = client_net(req, s.config.trusted_proxies);
        s.limits
            .limit(
                &format!("outbox:ip:{ip}"),
                OUTBOX_READS_PER_IP,
                OUTBOX_WINDOW,
                ErrorCode::RateLimited,
            )
            .await?;
        let phone = Phone::parse(&phone.0)?;
        s.limits
            .limit(
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
