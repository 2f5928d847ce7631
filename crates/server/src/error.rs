//! Errors of the API. The client gets one of the closed set of [`ErrorCode`]s with its
//! Korean message; the log gets the cause. The HTTP status of every code is decided here.

use poem_openapi::payload::Json;
use poem_openapi::{ApiResponse, Object};
use telepathy_domain::safety::Restriction;
use telepathy_domain::ErrorCode;
use telepathy_engine::EngineError;
use telepathy_store::StoreError;

use crate::wire::AccountRestricted;

/// The body of every error answer.
#[derive(Debug, Clone, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct ErrorBody {
    /// Always false.
    pub success: bool,
    /// What went wrong, for programs.
    pub code: ErrorCode,
    /// What went wrong, in Korean, for people.
    pub message: String,
    /// With `ACCOUNT_RESTRICTED`: the suspension or ban, and until when.
    // Boxed: every error answer carries the field, and most leave it empty.
    pub restriction: Option<Box<AccountRestricted>>,
}

impl ErrorBody {
    pub fn new(code: ErrorCode) -> Self {
        Self {
            success: false,
            code,
            message: code.message().to_owned(),
            restriction: None,
        }
    }
}

impl ApiError {
    /// A refusal of a suspended or banned account, saying why and until when.
    pub fn restricted(r: &Restriction) -> Self {
        let restriction = AccountRestricted::from(r);
        Self::Forbidden(Json(ErrorBody {
            success: false,
            code: ErrorCode::AccountRestricted,
            message: restriction.message.clone(),
            restriction: Some(Box::new(restriction)),
        }))
    }
}

/// An error answer of the API.
#[derive(Debug, ApiResponse)]
pub enum ApiError {
    /// The input breaks a rule.
    #[oai(status = 400)]
    BadRequest(Json<ErrorBody>),
    /// Login needed, or the credentials are wrong.
    #[oai(status = 401)]
    Unauthorized(Json<ErrorBody>),
    /// The request came from a foreign page.
    #[oai(status = 403)]
    Forbidden(Json<ErrorBody>),
    /// Nothing there.
    #[oai(status = 404)]
    NotFound(Json<ErrorBody>),
    /// The body did not arrive in time.
    #[oai(status = 408)]
    RequestTimeout(Json<ErrorBody>),
    /// Taken by someone else, or done already.
    #[oai(status = 409)]
    Conflict(Json<ErrorBody>),
    /// The body is larger than the API reads.
    #[oai(status = 413)]
    PayloadTooLarge(Json<ErrorBody>),
    /// The path and query are longer than a node reads.
    #[oai(status = 414)]
    UriTooLong(Json<ErrorBody>),
    /// Too many requests; try again later.
    #[oai(status = 429)]
    TooManyRequests(Json<ErrorBody>),
    /// Our fault; details are in the log.
    #[oai(status = 500)]
    Internal(Json<ErrorBody>),
    /// An outside provider failed.
    #[oai(status = 502)]
    BadGateway(Json<ErrorBody>),
    /// The database or Redis does not answer for now; try again shortly.
    #[oai(status = 503)]
    ServiceUnavailable(Json<ErrorBody>),
}

impl From<ErrorCode> for ApiError {
    fn from(code: ErrorCode) -> Self {
        use ErrorCode as E;
        let body = Json(ErrorBody::new(code));
        match code {
            E::Unauthorized
            | E::LoginFailed
            | E::OperatorOnly
            | E::SecondFactorRequired
            | E::TotpInvalid
            | E::SignatureInvalid => Self::Unauthorized(body),
            E::ForbiddenOrigin
            | E::NotOwner
            | E::IdentityMismatch
            | E::ReportNotPartner
            | E::PushConsentRequired
            | E::AccountRestricted => Self::Forbidden(body),
            E::NotFound | E::AgainNoPair => Self::NotFound(body),
            E::UsernameTaken
            | E::WordsetRepeated
            | E::NicknameTaken
            | E::PhoneInUse
            | E::AlreadyInRoom
            | E::TotpEnrolled
            | E::ReportClosed
            | E::SanctionLifted
            | E::PaymentNotPaid
            | E::PaymentUsed
            | E::PaymentAlreadyPaid
            | E::WordsetReviewed
            | E::RefundSettled
            | E::AgainPending
            | E::AgainInviteOver
            | E::AgainBusy => Self::Conflict(body),
            E::PayloadTooLarge => Self::PayloadTooLarge(body),
            E::UriTooLong => Self::UriTooLong(body),
            E::RequestTimeout => Self::RequestTimeout(body),
            E::RateLimited
            | E::SmsCooldown
            | E::SmsDailyLimit
            | E::MegaphoneBusy
            | E::MegaphoneTooSoon
            | E::AgainTooMany => Self::TooManyRequests(body),
            E::Internal => Self::Internal(body),
            E::SmsSendFailed | E::IdentityFailed | E::PaymentUnavailable => Self::BadGateway(body),
            E::Unavailable => Self::ServiceUnavailable(body),
            _ => Self::BadRequest(body),
        }
    }
}

/// Turns any internal failure into a logged 500, or a 503 when it is an outage.
pub trait OrInternal<T> {
    fn or_internal(self, what: &str) -> Result<T, ApiError>;
}

impl<T, E: std::fmt::Display + 'static> OrInternal<T> for Result<T, E> {
    fn or_internal(self, what: &str) -> Result<T, ApiError> {
        self.map_err(|e| internal(what, e))
    }
}

/// Logs an internal failure with what we were doing, and answers a 500 (a 503 when it is
/// an outage).
pub fn internal(what: &str, error: impl std::fmt::Display + 'static) -> ApiError {
    internal_code(what, error).into()
}

/// Logs an internal failure with what we were doing; the code to tell the client:
/// `Unavailable` when the database or Redis did not answer in time (it heals by itself,
/// and the client may try again), `Internal` for anything else.
pub fn internal_code(what: &str, error: impl std::fmt::Display + 'static) -> ErrorCode {
    let any: &dyn std::any::Any = &error;
    if is_outage(any) {
        tracing::warn!(error = %error, "unavailable: {what}");
        ErrorCode::Unavailable
    } else if any
        .downcast_ref::<StoreError>()
        .is_some_and(StoreError::is_bad_input)
    {
        tracing::info!(error = %error, "refused by the database: {what}");
        ErrorCode::InvalidRequest
    } else {
        tracing::error!(error = %error, "failed: {what}");
        ErrorCode::Internal
    }
}

/// Whether `error` is the engine's or the store's failure to answer in time.
fn is_outage(error: &dyn std::any::Any) -> bool {
    if let Some(e) = error.downcast_ref::<EngineError>() {
        return e.is_outage();
    }
    if let Some(e) = error.downcast_ref::<StoreError>() {
        return e.is_outage();
    }
    false
}

/// Handler results.
pub type ApiResult<T> = Result<Json<T>, ApiError>;

/// The HTTP status of a code, for answers built outside poem-openapi.
pub fn status_of(code: ErrorCode) -> poem::http::StatusCode {
    use poem::IntoResponse;
    ApiError::from(code).into_response().status()
}
