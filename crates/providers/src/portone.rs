use async_trait::async_trait;
use reqwest::header::{HeaderValue, AUTHORIZATION};
use reqwest::StatusCode;
use serde::Deserialize;

use crate::http::{self, http_client};
use crate::identity::{IdentityClientConfig, IdentityOutcome, IdentityVerifier, VerifiedPerson};
use crate::util::{encode_path_segment, join_url, random_uuid, validate_base_url};
use crate::{ProviderError, Secret};

/// Settings for [`PortOneIdentity`].
#[derive(Debug, Clone)]
pub struct PortOneConfig {
    /// PortOne V2 API secret; sent only in the `Authorization` header.
    pub api_secret: Secret,
    /// Store id (`store-...`), also given to the browser widget.
    pub store_id: String,
    /// Channel key of the identity-verification channel, given to the browser widget.
    pub channel_key: String,
    /// API origin, normally [`PortOneConfig::DEFAULT_BASE_URL`].
    pub base_url: String,
}

impl PortOneConfig {
    /// The production API origin.
    pub const DEFAULT_BASE_URL: &'static str = "https://api.portone.io";

    /// Settings pointing at the production API.
    pub fn new(
        api_secret: Secret,
        store_id: impl Into<String>,
        channel_key: impl Into<String>,
    ) -> Self {
        Self {
            api_secret,
            store_id: store_id.into(),
            channel_key: channel_key.into(),
            base_url: Self::DEFAULT_BASE_URL.to_owned(),
        }
    }
}

/// Identity verification (본인인증) through the PortOne V2 REST API
/// (`GET /identity-verifications/{identityVerificationId}`).
#[derive(Debug, Clone)]
pub struct PortOneIdentity {
    config: PortOneConfig,
    client: reqwest::Client,
}

/// The parts of PortOne's `IdentityVerification` union this crate reads;
/// the union is tagged by `status` ("READY", "VERIFIED", "FAILED").
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct IdentityVerificationBody {
    status: String,
    verified_customer: Option<VerifiedCustomer>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct VerifiedCustomer {
    name: String,
    phone_number: Option<String>,
    birth_date: Option<String>,
    gender: Option<String>,
}

/// PortOne V2 error body: `{"type": "...", "message": "..."}`.
#[derive(Deserialize)]
struct ErrorBody {
    #[serde(rename = "type")]
    kind: Option<String>,
    message: Option<String>,
}

const NOT_FOUND_TYPE: &str = "IDENTITY_VERIFICATION_NOT_FOUND";

impl PortOneIdentity {
    /// Creates the verifier; fails only on an unusable base URL or HTTP client setup.
    pub fn new(config: PortOneConfig) -> Result<Self, ProviderError> {
        validate_base_url(&config.base_url)?;
        Ok(Self {
            client: http_client()?,
            config,
        })
    }

    fn authorization(&self) -> Result<HeaderValue, ProviderError> {
        let mut value =
            HeaderValue::from_str(&format!("PortOne {}", self.config.api_secret.expose()))
                .map_err(|_| {
                    ProviderError::Config("PortOne API secret is not a valid header value".into())
                })?;
        value.set_sensitive(true);
        Ok(value)
    }
}

#[async_trait]
impl IdentityVerifier for PortOneIdentity {
    fn new_verification_id(&self) -> String {
        format!("identity-verification-{}", random_uuid())
    }

    fn client_config(&self) -> IdentityClientConfig {
        IdentityClientConfig {
            store_id: self.config.store_id.clone(),
            channel_key: self.config.channel_key.clone(),
            demo: false,
        }
    }

    async fn fetch(
        &self,
        identity_verification_id: &str,
    ) -> Result<IdentityOutcome, ProviderError> {
        // The id comes from the browser. Empty and dot-only ids would not stay a
        // single path segment (URL parsing collapses "." and ".."), and no
        // verification can carry them anyway.
        if matches!(identity_verification_id, "" | "." | "..") {
            return Ok(IdentityOutcome::NotFound);
        }
        let url = join_url(
            &self.config.base_url,
            &format!(
                "/identity-verifications/{}",
                encode_path_segment(identity_verification_id)
            ),
        );
        let mut request = self
            .client
            .get(url)
            .header(AUTHORIZATION, self.authorization()?);
        // Needed when the secret covers several stores; harmless otherwise.
        if !self.config.store_id.is_empty() {
            request = request.query(&[("storeId", self.config.store_id.as_str())]);
        }
        let answer = http::call(request.send()).await?;

        if !answer.status.is_success() {
            let error = serde_json::from_str::<ErrorBody>(&answer.body).ok();
            let kind = error.as_ref().and_then(|e| e.kind.clone());
            if answer.status == StatusCode::NOT_FOUND && kind.as_deref() == Some(NOT_FOUND_TYPE) {
                return Ok(IdentityOutcome::NotFound);
            }
            let refusal = answer.refused(kind, error.and_then(|e| e.message));
            tracing::warn!(
                identity_verification_id,
                error = %refusal,
                "PortOne identity lookup failed"
            );
            return Err(refusal);
        }

        let body: IdentityVerificationBody = serde_json::from_str(&answer.body).map_err(|e| {
            ProviderError::InvalidResponse(format!("PortOne identity verification body: {e}"))
        })?;
        if body.status != "VERIFIED" {
            return Ok(IdentityOutcome::NotVerified {
                status: body.status,
            });
        }
        let customer = body.verified_customer.ok_or_else(|| {
            ProviderError::InvalidResponse(
                "VERIFIED identity verification without verifiedCustomer".into(),
            )
        })?;
        Ok(IdentityOutcome::Verified(VerifiedPerson {
            name: customer.name,
            phone: customer.phone_number,
            birth_date: customer.birth_date,
            gender: customer.gender,
        }))
    }
}
