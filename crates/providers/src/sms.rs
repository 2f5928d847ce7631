use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard};

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::util::mask_phone;
use crate::ProviderError;

/// What a verification code is for; a code of one purpose never serves another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodePurpose {
    /// Proving a phone to sign up with it.
    Register,
    /// Proving an account's own phone to set a new password.
    Reset,
}

impl CodePurpose {
    /// A stable name, for storage.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Register => "register",
            Self::Reset => "reset",
        }
    }
}

/// Sends phone-verification codes by SMS.
#[async_trait]
pub trait SmsSender: Send + Sync {
    /// Sends the phone-verification code for `purpose` to `phone` (digits only, e.g.
    /// "01012345678").
    async fn send_code(
        &self,
        phone: &str,
        code: &str,
        purpose: CodePurpose,
    ) -> Result<(), ProviderError>;
}

/// The SMS body for a verification code; the only place this wording lives.
pub fn verification_text(code: &str) -> String {
    format!("[텔레파시] 인증번호 [{code}]를 입력해주세요. (3분 이내)")
}

/// One message the demo sender pretended to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentCode {
    /// Recipient, as passed to [`SmsSender::send_code`].
    pub phone: String,
    /// The verification code.
    pub code: String,
    /// What the code is for.
    pub purpose: CodePurpose,
    /// The full SMS text that would have been sent.
    pub text: String,
    /// When it was "sent".
    pub sent_at: DateTime<Utc>,
}

/// How many messages [`DemoSms`] remembers before dropping the oldest.
pub const DEMO_SMS_CAPACITY: usize = 1000;

/// An [`SmsSender`] that sends nothing and keeps the last messages in memory,
/// so a demo deployment (or a test) can show the code instead of texting it.
#[derive(Debug, Default)]
pub struct DemoSms {
    sent: Mutex<VecDeque<SentCode>>,
}

impl DemoSms {
    /// Creates an empty demo sender.
    pub fn new() -> Self {
        Self::default()
    }

    /// The most recent code for `purpose` sent to `phone`, if it is still remembered.
    pub fn latest(&self, phone: &str, purpose: CodePurpose) -> Option<SentCode> {
        self.lock()
            .iter()
            .rev()
            .find(|m| m.phone == phone && m.purpose == purpose)
            .cloned()
    }

    /// How many messages are currently remembered (at most [`DEMO_SMS_CAPACITY`]).
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// True when nothing has been sent yet.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    // A panic while holding the lock cannot leave the queue half-updated
    // (push/pop are single operations), so a poisoned lock is safe to reuse.
    fn lock(&self) -> MutexGuard<'_, VecDeque<SentCode>> {
        self.sent
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[async_trait]
impl SmsSender for DemoSms {
    async fn send_code(
        &self,
        phone: &str,
        code: &str,
        purpose: CodePurpose,
    ) -> Result<(), ProviderError> {
        let message = SentCode {
            phone: phone.to_owned(),
            code: code.to_owned(),
            purpose,
            text: verification_text(code),
            sent_at: Utc::now(),
        };
        {
            let mut sent = self.lock();
            while sent.len() >= DEMO_SMS_CAPACITY {
                sent.pop_front();
            }
            sent.push_back(message);
        }
        // Demo codes protect nothing, and showing them is how a demo operator
        // gets past the verification step.
        tracing::info!(
            phone = %mask_phone(phone),
            purpose = purpose.as_str(),
            code,
            "demo SMS \"sent\" (not delivered)"
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_contains_code_in_brackets() {
        assert_eq!(
            verification_text("123456"),
            "[텔레파시] 인증번호 [123456]를 입력해주세요. (3분 이내)"
        );
    }

    #[test]
    fn text_uses_the_given_code() {
        let text = verification_text("987654");
        assert!(text.contains("[987654]"));
        assert!(!text.contains("123456"));
        assert!(text.starts_with("[텔레파시] "));
        assert!(text.ends_with("(3분 이내)"));
    }
}
