//! The rules of Telepathy, free of I/O: what a valid username, password, phone number,
//! birthdate and nickname are, the Korean message of every client-facing error, and the
//! time arithmetic of the service (Asia/Seoul), the abuse filter of chat text, and what
//! reports and restrictions say, the rules of the paid custom word set, and the first
//! questions drawn from a chat's shared word.
//!
//! Everything here is pure and deterministic; callers pass the current time in.

/// Declares an enum and its `ALL` from one list, so a new variant is written once (and its
/// text in the enum's `message`, which the compiler asks for).
macro_rules! with_all {
    (
        $(#[$meta:meta])*
        pub enum $name:ident { $($(#[$doc:meta])* $variant:ident,)* }
    ) => {
        $(#[$meta])*
        pub enum $name { $($(#[$doc])* $variant,)* }

        impl $name {
            /// Every variant, in the order declared: for tests and documentation.
            pub const ALL: &'static [$name] = &[$(Self::$variant),*];
        }
    };
}

pub mod bell;
mod emotion;
mod error;
pub mod limits;
pub mod megaphone;
pub mod moderation;
mod notice;
pub mod questions;
pub mod round;
pub mod safety;
pub mod terms;
pub mod text;
pub mod time;
mod validate;
#[cfg(test)]
mod voice;
pub mod words;
pub mod wordset;

pub use emotion::Emotion;
pub use error::ErrorCode;
pub use notice::Notice;
pub use validate::{
    check_new_password, normalize_phone, Birthdate, CommentText, Credentials, Gender, Nickname,
    Password, PasswordContext, Phone, Username, OPERATOR_PASSWORD_MIN_CHARS,
};
