//! Card payments through PortOne V1 (iamport): the browser pays in PortOne's payment
//! window (`IMP.request_pay`); the server registers each order's amount first
//! (`POST /payments/prepare`) and afterwards reads the payment back from PortOne
//! (`GET /payments/{imp_uid}`) instead of believing the browser.

use std::sync::Mutex;

use async_trait::async_trait;
use reqwest::header::{HeaderValue, AUTHORIZATION};
use reqwest::StatusCode;
use serde::{Deserialize, Serialize};

use crate::http::{self, http_client};
use crate::util::{encode_path_segment, join_url, validate_base_url};
use crate::{ProviderError, Secret};

/// Where a card payment stands at PortOne.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CardStatus {
    /// Not paid yet (or a virtual account awaiting its deposit).
    Ready,
    Paid,
    Failed,
    Cancelled,
    /// A status this client does not know; never treated as paid.
    Other(String),
}

impl CardStatus {
    fn of(status: &str) -> Self {
        match status {
            "ready" => Self::Ready,
            "paid" => Self::Paid,
            "failed" => Self::Failed,
            "cancelled" => Self::Cancelled,
            other => Self::Other(other.to_owned()),
        }
    }
}

/// A card payment as PortOne keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardPayment {
    pub imp_uid: String,
    /// The order id we issued.
    pub merchant_uid: String,
    /// What was charged, in won.
    pub amount: i64,
    pub status: CardStatus,
}

/// Public values the browser's payment window needs; nothing here is secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CardClientConfig {
    /// The merchant code given to `IMP.init` (`imp12345678`).
    pub imp_code: String,
    /// The `pg` parameter of `IMP.request_pay` (e.g. `html5_inicis`).
    pub pg: String,
    /// True when payments are simulated: no window is opened and no card is charged.
    pub demo: bool,
}

/// Card payments: register an order's amount, then read a payment back.
#[async_trait]
pub trait CardPayments: Send + Sync {
    fn client_config(&self) -> CardClientConfig;
    /// Registers the amount the order `merchant_uid` must be paid with, so the payment
    /// window refuses any other amount.
    async fn prepare(&self, merchant_uid: &str, amount: i64) -> Result<(), ProviderError>;
    /// The payment `imp_uid`, or `None` when PortOne has no such payment.
    async fn find(&self, imp_uid: &str) -> Result<Option<CardPayment>, ProviderError>;
}

/// Settings for [`PortOneV1Payments`].
#[derive(Debug, Clone)]
pub struct PortOneV1Config {
    /// REST API key (`imp_key`).
    pub api_key: String,
    /// REST API secret (`imp_secret`).
    pub api_secret: Secret,
    /// Merchant code for the browser (`imp12345678`).
    pub imp_code: String,
    /// The `pg` of the payment window.
    pub pg: String,
    /// API origin, normally [`PortOneV1Config::DEFAULT_BASE_URL`].
    pub base_url: String,
}

impl PortOneV1Config {
    pub const DEFAULT_BASE_URL: &'static str = "https://api.iamport.kr";
}

/// [`CardPayments`] through the PortOne V1 REST API. Its access token (valid for 30
/// minutes) is reused until shortly before it expires, and fetched again when PortOne
/// answers 401.
#[derive(Debug)]
pub struct PortOneV1Payments {
    config: PortOneV1Config,
    client: reqwest::Client,
    /// The access token and when it expires (Unix seconds, PortOne's clock).
    token: Mutex<Option<(String, i64)>>,
}

/// Every V1 answer: `{"code": 0, "message": null, "response": ...}`; a non-zero code is
/// a refusal whatever the HTTP status.
#[derive(Deserialize)]
struct Envelope<T> {
    code: i64,
    message: Option<String>,
    response: Option<T>,
}

#[derive(Deserialize)]
struct Token {
    access_token: String,
    now: i64,
    expired_at: i64,
}

#[derive(Deserialize)]
struct PaymentBody {
    imp_uid: String,
    merchant_uid: String,
    amount: f64,
    status: String,
}

/// A token is fetched again when it has less than this left.
const TOKEN_MARGIN_SECS: i64 = 60;

impl PortOneV1Payments {
    pub fn new(config: PortOneV1Config) -> Result<Self, ProviderError> {
        validate_base_url(&config.base_url)?;
        Ok(Self {
            client: http_client()?,
            config,
            token: Mutex::new(None),
        })
    }

    fn cached_token(&self) -> Option<String> {
        let now = chrono::Utc::now().timestamp();
        let token = self.token.lock().unwrap_or_else(|e| e.into_inner());
        token
            .as_ref()
            .filter(|(_, expires)| *expires - TOKEN_MARGIN_SECS > now)
            .map(|(t, _)| t.clone())
    }

    async fn token(&self) -> Result<String, ProviderError> {
        if let Some(token) = self.cached_token() {
            return Ok(token);
        }
        let response = http::send(
            self.client
                .post(join_url(&self.config.base_url, "/users/getToken"))
                .json(&serde_json::json!({
                    "imp_key": self.config.api_key,
                    "imp_secret": self.config.api_secret.expose(),
                }))
                .send(),
        )
        .await?;
        let token: Token = read(response, "getToken").await?.ok_or_else(|| {
            ProviderError::InvalidResponse("PortOne getToken without a token".into())
        })?;
        // PortOne's `expired_at` is on its clock; measure the life it gives from ours.
        let expires = chrono::Utc::now().timestamp() + (token.expired_at - token.now);
        *self.token.lock().unwrap_or_else(|e| e.into_inner()) =
            Some((token.access_token.clone(), expires));
        Ok(token.access_token)
    }

    fn forget_token(&self) {
        *self.token.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }

    /// Sends a request with the access token, once more with a fresh token on a 401.
    async fn authorized(
        &self,
        build: impl Fn(&reqwest::Client) -> reqwest::RequestBuilder,
    ) -> Result<reqwest::Response, ProviderError> {
        for attempt in 0..2 {
            let mut value = HeaderValue::from_str(&self.token().await?).map_err(|_| {
                ProviderError::InvalidResponse("PortOne token is not a header value".into())
            })?;
            value.set_sensitive(true);
            let response =
                http::send(build(&self.client).header(AUTHORIZATION, value).send()).await?;
            if response.status() == StatusCode::UNAUTHORIZED && attempt == 0 {
                self.forget_token();
                continue;
            }
            return Ok(response);
        }
        unreachable!("the loop returns on its second attempt")
    }
}

/// Reads a V1 envelope: `Ok(Some)` on code 0, `Ok(None)` on a 404, a refusal otherwise.
async fn read<T: serde::de::DeserializeOwned>(
    response: reqwest::Response,
    what: &str,
) -> Result<Option<T>, ProviderError> {
    let answer = http::read(response).await?;
    let status = answer.status;
    let envelope = serde_json::from_str::<Envelope<T>>(&answer.body);
    match envelope {
        Ok(e) if status.is_success() && e.code == 0 => Ok(e.response),
        _ if status == StatusCode::NOT_FOUND => Ok(None),
        Ok(e) => {
            let refusal = answer.refused(
                Some(e.code.to_string()),
                Some(e.message.unwrap_or_default()),
            );
            tracing::warn!(what, error = %refusal, "PortOne refused");
            Err(refusal)
        }
        Err(_) if !status.is_success() => Err(answer.refused(None, None)),
        Err(e) => Err(ProviderError::InvalidResponse(format!(
            "PortOne {what} body: {e}"
        ))),
    }
}

#[async_trait]
impl CardPayments for PortOneV1Payments {
    fn client_config(&self) -> CardClientConfig {
        CardClientConfig {
            imp_code: self.config.imp_code.clone(),
            pg: self.config.pg.clone(),
            demo: false,
        }
    }

    async fn prepare(&self, merchant_uid: &str, amount: i64) -> Result<(), ProviderError> {
        let url = join_url(&self.config.base_url, "/payments/prepare");
        let body = serde_json::json!({ "merchant_uid": merchant_uid, "amount": amount });
        let response = self.authorized(|c| c.post(&url).json(&body)).await?;
        read::<serde_json::Value>(response, "prepare").await?;
        Ok(())
    }

    async fn find(&self, imp_uid: &str) -> Result<Option<CardPayment>, ProviderError> {
        // The id comes from the browser: keep it one path segment.
        if matches!(imp_uid, "" | "." | "..") {
            return Ok(None);
        }
        let url = join_url(
            &self.config.base_url,
            &format!("/payments/{}", encode_path_segment(imp_uid)),
        );
        let response = self.authorized(|c| c.get(&url)).await?;
        let Some(body) = read::<PaymentBody>(response, "payment").await? else {
            return Ok(None);
        };
        Ok(Some(CardPayment {
            imp_uid: body.imp_uid,
            merchant_uid: body.merchant_uid,
            // Won have no fractions; an amount that has one matches no price.
            amount: if body.amount.fract() == 0.0 {
                body.amount as i64
            } else {
                -1
            },
            status: CardStatus::of(&body.status),
        }))
    }
}

/// [`CardPayments`] for demo deployments: no card, no window. The demo checkout pays an
/// order with [`DemoCardPayments::pay`], whose payment id carries the order and amount,
/// so every node reads the same payment back without shared state.
#[derive(Debug, Clone, Default)]
pub struct DemoCardPayments;

const DEMO_PREFIX: &str = "imp_demo_";

impl DemoCardPayments {
    pub fn new() -> Self {
        Self
    }

    /// The id of a demo payment of `amount` won for `merchant_uid`.
    pub fn pay(merchant_uid: &str, amount: i64) -> String {
        format!("{DEMO_PREFIX}{amount}_{merchant_uid}")
    }
}

#[async_trait]
impl CardPayments for DemoCardPayments {
    fn client_config(&self) -> CardClientConfig {
        CardClientConfig {
            imp_code: String::new(),
            pg: String::new(),
            demo: true,
        }
    }

    async fn prepare(&self, _merchant_uid: &str, _amount: i64) -> Result<(), ProviderError> {
        Ok(())
    }

    async fn find(&self, imp_uid: &str) -> Result<Option<CardPayment>, ProviderError> {
        let parsed = imp_uid
            .strip_prefix(DEMO_PREFIX)
            .and_then(|rest| rest.split_once('_'))
            .and_then(|(amount, merchant)| Some((amount.parse::<i64>().ok()?, merchant)));
        Ok(parsed.map(|(amount, merchant_uid)| CardPayment {
            imp_uid: imp_uid.to_owned(),
            merchant_uid: merchant_uid.to_owned(),
            amount,
            status: CardStatus::Paid,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_demo_payment_reads_back_as_paid() {
        let demo = DemoCardPayments::new();
        let id = DemoCardPayments::pay("mega_ab12", 2000);
        let paid = demo.find(&id).await.unwrap().unwrap();
        assert_eq!(
            (paid.merchant_uid.as_str(), paid.amount, paid.status),
            ("mega_ab12", 2000, CardStatus::Paid)
        );
        assert_eq!(demo.find("imp_123").await.unwrap(), None);
        assert_eq!(demo.find("imp_demo_x_m").await.unwrap(), None);
    }
}
