//! Calling a vendor over HTTP, and what goes wrong on the way: the one place that turns
//! reqwest's errors, an answer's status and its body into a [`ProviderError`].

use std::future::Future;
use std::time::Duration;

use reqwest::{Response, StatusCode};

use crate::util::truncate;
use crate::ProviderError;

/// Upper bound for one vendor call; a user is waiting on the other end.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The client of a vendor, with our time limits.
pub(crate) fn http_client() -> Result<reqwest::Client, ProviderError> {
    build(
        reqwest::Client::builder()
            .timeout(REQUEST_TIMEOUT)
            .connect_timeout(CONNECT_TIMEOUT),
    )
}

/// Builds a client set up by the caller.
pub(crate) fn build(builder: reqwest::ClientBuilder) -> Result<reqwest::Client, ProviderError> {
    builder
        .build()
        .map_err(|e| ProviderError::Config(format!("cannot build HTTP client: {e}")))
}

/// Waits for the answer to a request on its way (`RequestBuilder::send`,
/// `Client::execute`); none at all (DNS, connect, TLS, a timeout) is `Transport`.
pub(crate) async fn send(
    request: impl Future<Output = reqwest::Result<Response>>,
) -> Result<Response, ProviderError> {
    request.await.map_err(|e| transport(&e))
}

/// A vendor's answer, read whole.
pub(crate) struct Answer {
    pub(crate) status: StatusCode,
    pub(crate) body: String,
}

/// Reads an answer whole; a body cut short is `Transport`.
pub(crate) async fn read(response: Response) -> Result<Answer, ProviderError> {
    let status = response.status();
    let body = response.text().await.map_err(|e| transport(&e))?;
    Ok(Answer { status, body })
}

/// Sends a request and reads its answer whole.
pub(crate) async fn call(
    request: impl Future<Output = reqwest::Result<Response>>,
) -> Result<Answer, ProviderError> {
    read(send(request).await?).await
}

impl Answer {
    /// The refusal this answer is: the vendor's own code and message where its body names
    /// them, else `HTTP_<status>` and the start of the body.
    pub(crate) fn refused(&self, code: Option<String>, message: Option<String>) -> ProviderError {
        refused(self.status, &self.body, code, message)
    }
}

/// The refusal an answer of `status` with `body` is (see [`Answer::refused`]).
pub(crate) fn refused(
    status: StatusCode,
    body: &str,
    code: Option<String>,
    message: Option<String>,
) -> ProviderError {
    ProviderError::Rejected {
        status: status.as_u16(),
        code: code.unwrap_or_else(|| format!("HTTP_{}", status.as_u16())),
        message: message.unwrap_or_else(|| truncate(body.trim(), 200)),
    }
}

/// A failure before an answer, with its whole chain of causes (reqwest's own text rarely
/// says which of DNS, connect or TLS failed).
fn transport(err: &reqwest::Error) -> ProviderError {
    use std::error::Error as _;
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    ProviderError::Transport(text)
}
