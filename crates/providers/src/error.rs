use thiserror::Error;

/// Failure talking to an outside service.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ProviderError {
    /// The request never got a usable HTTP answer (DNS, connect, TLS, timeout, ...).
    #[error("transport error: {0}")]
    Transport(String),
    /// The service answered with a non-success status.
    #[error("rejected by provider (HTTP {status}): {code}: {message}")]
    Rejected {
        /// HTTP status code of the answer.
        status: u16,
        /// The vendor's error code, e.g. Solapi `errorCode` or PortOne `type`.
        code: String,
        /// The vendor's human-readable error message.
        message: String,
    },
    /// The service answered with success but the body was not what its API documents.
    #[error("unexpected response from provider: {0}")]
    InvalidResponse(String),
    /// The provider is misconfigured (bad base URL, unusable credentials, ...).
    #[error("provider misconfigured: {0}")]
    Config(String),
}
