//! The people of the service and what keeps them safe: users' and operators' sessions
//! (`sessions`, `operators`), the SMS codes of sign-up and password reset (`codes`), and
//! reports and sanctions (`safety`). Each area is a service holding the few handles it
//! needs; `AppState` holds one of each.

pub mod codes;
pub mod operators;
pub mod safety;
pub mod sessions;
