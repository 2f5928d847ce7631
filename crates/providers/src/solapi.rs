use async_trait::async_trait;
use chrono::{SecondsFormat, Utc};
use hmac::{Hmac, Mac};
use reqwest::header::{HeaderValue, AUTHORIZATION};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use crate::http::{self, http_client};
use crate::sms::{verification_text, CodePurpose, SmsSender};
use crate::util::{join_url, mask_phone, random_hex, validate_base_url};
use crate::{ProviderError, Secret};

/// Settings for [`SolapiSms`].
#[derive(Debug, Clone)]
pub struct SolapiConfig {
    /// Solapi API key (public half of the credential).
    pub api_key: String,
    /// Solapi API secret; only used to sign requests.
    pub api_secret: Secret,
    /// Caller number registered with Solapi, digits only.
    pub sender: String,
    /// API origin, normally [`SolapiConfig::DEFAULT_BASE_URL`].
    pub base_url: String,
}

impl SolapiConfig {
    /// The production API origin.
    pub const DEFAULT_BASE_URL: &'static str = "https://api.solapi.com";

    /// Settings pointing at the production API.
    pub fn new(api_key: impl Into<String>, api_secret: Secret, sender: impl Into<String>) -> Self {
        Self {
            api_key: api_key.into(),
            api_secret,
            sender: sender.into(),
            base_url: Self::DEFAULT_BASE_URL.to_owned(),
        }
    }
}

/// Sends verification codes through Solapi's "send one message" API
/// (`POST /messages/v4/send`, HMAC-SHA256 API-key authentication).
#[derive(Debug, Clone)]
pub struct SolapiSms {
    config: SolapiConfig,
    client: reqwest::Client,
}

#[derive(Serialize)]
struct SendRequest<'a> {
    message: OutgoingMessage<'a>,
}

#[derive(Serialize)]
struct OutgoingMessage<'a> {
    to: &'a str,
    from: &'a str,
    text: &'a str,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SendResponse {
    message_id: Option<String>,
    status_code: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ErrorResponse {
    error_code: Option<String>,
    error_message: Option<String>,
}

impl SolapiSms {
    /// Creates the sender; fails only on an unusable base URL or HTTP client setup.
    pub fn new(config: SolapiConfig) -> Result<Self, ProviderError> {
        validate_base_url(&config.base_url)?;
        Ok(Self {
            client: http_client()?,
            config,
        })
    }

    fn authorization(&self) -> Result<HeaderValue, ProviderError> {
        // Solapi refuses a signature reused within 15 minutes, so every request
        // gets a fresh salt even when two are sent in the same millisecond.
        let date = Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true);
        let salt = random_hex(16);
        let signature = sign(&self.config.api_secret, &date, &salt)?;
        let value = format!(
            "HMAC-SHA256 apiKey={}, date={date}, salt={salt}, signature={signature}",
            self.config.api_key
        );
        HeaderValue::from_str(&value)
            .map_err(|_| ProviderError::Config("Solapi API key is not a valid header value".into()))
    }
}

/// `hex(HMAC-SHA256(secret, date + salt))`, as Solapi's API-key authentication defines it.
fn sign(secret: &Secret, date: &str, salt: &str) -> Result<String, ProviderError> {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.expose().as_bytes())
        .map_err(|_| ProviderError::Config("unusable Solapi API secret".into()))?;
    mac.update(date.as_bytes());
    mac.update(salt.as_bytes());
    Ok(hex::encode(mac.finalize().into_bytes()))
}

#[async_trait]
impl SmsSender for SolapiSms {
    async fn send_code(
        &self,
        phone: &str,
        code: &str,
        _purpose: CodePurpose,
    ) -> Result<(), ProviderError> {
        let text = verification_text(code);
        let body = SendRequest {
            message: OutgoingMessage {
                to: phone,
                from: &self.config.sender,
                text: &text,
            },
        };
        let answer = http::call(
            self.client
                .post(join_url(&self.config.base_url, "/messages/v4/send"))
                .header(AUTHORIZATION, self.authorization()?)
                .json(&body)
                .send(),
        )
        .await?;

        if !answer.status.is_success() {
            let refusal = match serde_json::from_str::<ErrorResponse>(&answer.body) {
                Ok(ErrorResponse {
                    error_code: Some(code),
                    error_message,
                }) => answer.refused(Some(code), Some(error_message.unwrap_or_default())),
                _ => answer.refused(None, None),
            };
            tracing::warn!(phone = %mask_phone(phone), error = %refusal, "Solapi rejected SMS");
            return Err(refusal);
        }

        // The message is accepted on any 2xx; the body only feeds the log line.
        let accepted = serde_json::from_str::<SendResponse>(&answer.body).ok();
        tracing::info!(
            phone = %mask_phone(phone),
            message_id = accepted.as_ref().and_then(|r| r.message_id.as_deref()),
            status_code = accepted.as_ref().and_then(|r| r.status_code.as_deref()),
            "verification SMS accepted by Solapi"
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_matches_known_vector() {
        // Independent value: `printf '%s' '2019-07-01T00:41:48Zjqsba2jxjnrjor' |
        // openssl dgst -sha256 -hmac 'secret'`.
        let sig = sign(
            &Secret::new("secret"),
            "2019-07-01T00:41:48Z",
            "jqsba2jxjnrjor",
        );
        assert_eq!(
            sig.ok().as_deref(),
            Some("4297539ca79c85dd83b60cbddae60942710223ddcafc4bf02275193a649057ce")
        );
    }
}
