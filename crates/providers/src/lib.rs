//! Outside services behind traits.
//!
//! Each service has a real implementation that talks to the vendor over HTTPS
//! and a demo implementation that works offline, so the app can run end to end
//! without vendor accounts:
//!
//! - SMS: [`SmsSender`], implemented by [`SolapiSms`] and [`DemoSms`].
//! - Identity verification: [`IdentityVerifier`], implemented by
//!   [`PortOneIdentity`] (PortOne V2) and [`DemoIdentity`].
//! - Card payments: [`CardPayments`], implemented by [`PortOneV1Payments`] (PortOne V1,
//!   the payment window `IMP.request_pay`) and [`DemoCardPayments`].
//! - Web Push: [`WebPush`], to the browsers' push services [`PushServices`] names (the
//!   demo sends real pushes too, with a VAPID pair of its own).

mod error;
mod http;
mod identity;
mod payments;
mod portone;
mod push;
#[cfg(feature = "stand-in")]
pub mod push_stand_in;
mod secret;
mod sms;
mod solapi;
#[cfg(feature = "stand-in")]
pub mod stand_in;
mod util;

pub use error::ProviderError;
pub use identity::{
    DemoIdentity, IdentityClientConfig, IdentityOutcome, IdentityVerifier, VerifiedPerson,
    DEMO_PERSON_NAME,
};
pub use payments::{
    CardClientConfig, CardPayment, CardPayments, CardStatus, DemoCardPayments, PortOneV1Config,
    PortOneV1Payments,
};
pub use portone::{PortOneConfig, PortOneIdentity};
pub use push::{
    PushDevice, PushMessage, PushOutcome, PushServices, Urgency, VapidKeys, WebPush,
    BROWSER_PUSH_SERVICES,
};
pub use secret::Secret;
pub use sms::{verification_text, CodePurpose, DemoSms, SentCode, SmsSender, DEMO_SMS_CAPACITY};
pub use solapi::{SolapiConfig, SolapiSms};
