use async_trait::async_trait;
use serde::Serialize;

use crate::util::random_uuid;
use crate::ProviderError;

/// Checks a person's identity through an outside verification service
/// (the browser runs the vendor widget; the server fetches the result).
#[async_trait]
pub trait IdentityVerifier: Send + Sync {
    /// Issues a fresh verification id for the client widget (e.g. `"identity-verification-<uuid-like random>"`).
    fn new_verification_id(&self) -> String;
    /// Public values the browser widget needs.
    fn client_config(&self) -> IdentityClientConfig;
    /// Fetches the result of a finished verification.
    async fn fetch(&self, identity_verification_id: &str)
        -> Result<IdentityOutcome, ProviderError>;
}

/// Public values for the browser widget; nothing here is secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IdentityClientConfig {
    /// PortOne store id.
    pub store_id: String,
    /// PortOne channel key of the identity-verification channel.
    pub channel_key: String,
    /// True when verifications are simulated and the widget must not be opened.
    pub demo: bool,
}

/// Result of looking up a verification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdentityOutcome {
    /// The person finished verification.
    Verified(VerifiedPerson),
    /// The verification exists but did not succeed (yet); `status` is the vendor's, e.g. "READY", "FAILED".
    NotVerified {
        /// The vendor's status string.
        status: String,
    },
    /// No verification with that id exists.
    NotFound,
}

/// What the verification service vouches for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VerifiedPerson {
    /// Legal name.
    pub name: String,
    /// Mobile number, digits only, when the channel provides it.
    pub phone: Option<String>,
    /// Birth date as `yyyy-MM-dd`, when provided.
    pub birth_date: Option<String>,
    /// Vendor gender code ("MALE", "FEMALE", "OTHER"), when provided.
    pub gender: Option<String>,
}

/// Name [`DemoIdentity`] reports for every verified demo id.
pub const DEMO_PERSON_NAME: &str = "데모사용자";

const DEMO_ID_PREFIX: &str = "demo-";

/// An [`IdentityVerifier`] that verifies everyone, for demo deployments:
/// ids it issues start with `demo-` and always come back verified.
#[derive(Debug, Clone, Default)]
pub struct DemoIdentity;

impl DemoIdentity {
    /// Creates the demo verifier.
    pub fn new() -> Self {
        Self
    }
}

#[async_trait]
impl IdentityVerifier for DemoIdentity {
    fn new_verification_id(&self) -> String {
        format!("{DEMO_ID_PREFIX}identity-verification-{}", random_uuid())
    }

    fn client_config(&self) -> IdentityClientConfig {
        IdentityClientConfig {
            store_id: String::new(),
            channel_key: String::new(),
            demo: true,
        }
    }

    async fn fetch(
        &self,
        identity_verification_id: &str,
    ) -> Result<IdentityOutcome, ProviderError> {
        if !identity_verification_id.starts_with(DEMO_ID_PREFIX) {
            return Ok(IdentityOutcome::NotFound);
        }
        tracing::info!(
            identity_verification_id,
            "demo identity verification treated as verified"
        );
        Ok(IdentityOutcome::Verified(VerifiedPerson {
            name: DEMO_PERSON_NAME.to_owned(),
            phone: None,
            birth_date: None,
            gender: None,
        }))
    }
}
