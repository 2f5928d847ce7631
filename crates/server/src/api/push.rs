//! The opening bell: the notification consent and the devices that asked for the 8 PM push.

use poem::Request;
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};
use telepathy_domain::bell::{opening_at, opening_body, PUSH_DEVICES_PER_USER};
use telepathy_domain::limits::{PUSH_CHANGES_PER_USER, PUSH_ENDPOINT_MAX_CHARS, PUSH_WINDOW};
use telepathy_domain::round::RoundAt;
use telepathy_domain::terms::Terms;
use telepathy_domain::time::seoul_date;
use telepathy_domain::{ErrorCode, Notice};
use telepathy_providers::PushDevice;
use telepathy_store::{NewPushSubscription, Subscribed};

use super::{Ack, Tag};
use crate::error::{ApiResult, OrInternal};
use crate::state::AppState;

pub struct PushApi(pub AppState);

/// The session's user's bell.
#[derive(Debug, Object)]
pub struct PushState {
    pub success: bool,
    /// Whether the user gave the notification consent (알림 수신 동의).
    pub consent: bool,
    /// How many of the user's devices have the bell on.
    pub devices: i64,
    /// What the next opening's bell will say, as things stand (a custom word set that
    /// starts before then may change its words).
    pub preview: BellPreview,
}

/// A bell's title and text, as the device will show them.
#[derive(Debug, Object)]
pub struct BellPreview {
    pub title: String,
    pub body: String,
}

/// The bell of the next opening from now, with the words of its first round.
fn preview(s: &AppState) -> BellPreview {
    let window = s.realtime.service_window();
    let now = chrono::DateTime::from_timestamp_millis(s.clock.now_ms()).unwrap_or_default();
    let today = seoul_date(now);
    let words: Vec<String> = [Some(today), today.succ_opt()]
        .into_iter()
        .flatten()
        .filter_map(|evening| opening_at(window, evening))
        .find(|at| *at > now)
        .map(|at| {
            s.realtime
                .words_of(RoundAt::of(at).number)
                .into_iter()
                .map(|w| w.word)
                .collect()
        })
        .unwrap_or_default();
    BellPreview {
        title: Notice::OpeningTitle.message().to_owned(),
        body: opening_body(&words),
    }
}

#[derive(Debug, Object)]
pub struct PushConsentBody {
    /// True gives the consent; false withdraws it and turns the bell off on every device.
    pub agree: bool,
}

#[derive(Debug, Object)]
pub struct PushConsentAnswer {
    pub success: bool,
    pub message: String,
    pub consent: bool,
    pub devices: i64,
}

/// A browser's push subscription, as `PushSubscription.toJSON()` gives it.
#[derive(Debug, Object)]
pub struct PushSubscriptionBody {
    #[oai(default)]
    pub endpoint: String,
    pub keys: Option<PushKeys>,
}

#[derive(Debug, Object)]
pub struct PushKeys {
    /// The browser's P-256 public key, base64url.
    #[oai(default)]
    pub p256dh: String,
    /// The browser's authentication secret, base64url.
    #[oai(default)]
    pub auth: String,
}

#[derive(Debug, Object)]
pub struct PushEndpointBody {
    #[oai(default)]
    pub endpoint: String,
}

#[OpenApi(tag = "Tag::Push")]
impl PushApi {
    /// Whether the session's user consents to notifications, and on how many devices the
    /// bell is on.
    #[oai(path = "/push", method = "get", operation_id = "getPushState")]
    async fn state(&self, req: &Request) -> ApiResult<PushState> {
        let s = &self.0;
        let user = s.sessions.require_user(req).await?.user;
        let (consent, devices) = read_state(s, user.id).await?;
        Ok(Json(PushState {
            success: true,
            consent,
            devices,
            preview: preview(s),
        }))
    }

    /// Gives the notification consent, or withdraws it: then every device of the user
    /// stops getting the bell at once.
    #[oai(
        path = "/push/consent",
        method = "post",
        operation_id = "setPushConsent"
    )]
    async fn consent(
        &self,
        req: &Request,
        body: Json<PushConsentBody>,
    ) -> ApiResult<PushConsentAnswer> {
        let s = &self.0;
        let user = s.sessions.require_user(req).await?.user;
        limit(s, user.id).await?;
        s.store
            .set_alarm_consent(
                user.id,
                body.agree,
                Terms::Alarm.version(),
                s.clock.now_ms(),
            )
            .await
            .or_internal("recording a notification consent")?;
        let (consent, devices) = read_state(s, user.id).await?;
        let notice = if body.agree {
            Notice::PushConsentGiven
        } else {
            Notice::PushConsentWithdrawn
        };
        Ok(Json(PushConsentAnswer {
            success: true,
            message: notice.message().to_owned(),
            consent,
            devices,
        }))
    }

    /// Turns the bell on for this browser: keeps its push subscription. Needs the
    /// notification consent; only the push services of browsers are accepted.
    #[oai(
        path = "/push/subscribe",
        method = "post",
        operation_id = "subscribePush"
    )]
    async fn subscribe(&self, req: &Request, body: Json<PushSubscriptionBody>) -> ApiResult<Ack> {
        let s = &self.0;
        let user = s.sessions.require_user(req).await?.user;
        limit(s, user.id).await?;
        let keys = body
            .keys
            .as_ref()
            .ok_or(ErrorCode::PushSubscriptionInvalid)?;
        let device = PushDevice {
            endpoint: body.endpoint.trim(),
            p256dh: keys.p256dh.trim(),
            auth: keys.auth.trim(),
        };
        if device.endpoint.chars().count() > PUSH_ENDPOINT_MAX_CHARS
            || !s.config.push_services.allows(device.endpoint)
            || !device.keys_valid()
        {
            return Err(ErrorCode::PushSubscriptionInvalid.into());
        }
        let saved = s
            .store
            .save_push_subscription(
                &NewPushSubscription {
                    user_id: user.id,
                    endpoint: device.endpoint,
                    p256dh: device.p256dh,
                    auth: device.auth,
                    now: s.clock.now_ms(),
                },
                PUSH_DEVICES_PER_USER,
            )
            .await
            .or_internal("saving a push subscription")?;
        match saved {
            Subscribed::Saved { .. } => Ok(Json(Ack::of(Notice::BellOn))),
            Subscribed::NoConsent => Err(ErrorCode::PushConsentRequired.into()),
        }
    }

    /// Turns the bell off for this browser.
    #[oai(
        path = "/push/unsubscribe",
        method = "post",
        operation_id = "unsubscribePush"
    )]
    async fn unsubscribe(&self, req: &Request, body: Json<PushEndpointBody>) -> ApiResult<Ack> {
        let s = &self.0;
        let user = s.sessions.require_user(req).await?.user;
        limit(s, user.id).await?;
        s.store
            .remove_push_subscription(user.id, body.endpoint.trim())
            .await
            .or_internal("removing a push subscription")?;
        Ok(Json(Ack::of(Notice::BellOff)))
    }
}

async fn read_state(s: &AppState, user_id: i64) -> Result<(bool, i64), crate::error::ApiError> {
    let consent = s
        .store
        .alarm_consent(user_id)
        .await
        .or_internal("reading a notification consent")?;
    let devices = s
        .store
        .push_devices(user_id)
        .await
        .or_internal("counting push devices")?;
    Ok((consent, devices))
}

async fn limit(s: &AppState, user_id: i64) -> Result<(), crate::error::ApiError> {
    s.limits
        .limit(
            &format!("push:user:{user_id}"),
            PUSH_CHANGES_PER_USER,
            PUSH_WINDOW,
            ErrorCode::RateLimited,
        )
        .await
}
