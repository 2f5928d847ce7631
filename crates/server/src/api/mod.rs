//! The HTTP API under `/api`, described by poem-openapi. The committed `openapi/openapi.json`
//! is generated from these types; the web app's types are generated from that file.

mod accounts;
mod admin;
mod again;
mod choice;
mod comments;
mod game;
mod identity;
mod meta;
mod password;
mod payments;
mod profile;
mod push;
mod report;
mod signup;
pub mod socket;
mod wordsets;

use poem_openapi::{Object, OpenApiService, Tags};
use telepathy_domain::Notice;

use crate::state::AppState;

#[derive(Tags)]
enum Tag {
    /// Log in, log out, session state, withdrawal.
    Auth,
    /// Sign-up: username check, phone verification, registration.
    Signup,
    /// The logged-in user's profile and nickname.
    Profile,
    /// Find and change password.
    Password,
    /// Rounds, matching, word history and feedback.
    Game,
    /// Identity verification (PortOne).
    Identity,
    /// 다시 텔레파시: wishes after a chat, pairs, and their invitations.
    Again,
    /// Reports about chat partners, and the warnings an operator gave the user.
    Safety,
    /// The comment board of the closed hours.
    Comments,
    /// Megaphones: the count owned and the card payments that buy them (PortOne V1).
    Megaphones,
    /// The paid custom word set: real name, bank transfer, the words and their review.
    Wordset,
    /// The opening bell: the notification consent and the devices that get the 8 PM push.
    Push,
    /// Facts about this deployment.
    Meta,
    /// Demo mode only.
    Dev,
    /// The operations console: operators only, each with a second factor; every action
    /// is written to the audit log.
    Admin,
}

/// The plain answer of a state change.
#[derive(Debug, Object)]
pub struct Ack {
    pub success: bool,
    /// What happened, in Korean.
    pub message: String,
}

impl Ack {
    pub fn of(notice: Notice) -> Self {
        Self {
            success: true,
            message: notice.message().to_owned(),
        }
    }
}

/// What users call, and the operations console (poem-openapi takes tuples of at most 16).
type Apis = (UserApis, AdminApis);

type UserApis = (
    accounts::AccountsApi,
    signup::SignupApi,
    profile::ProfileApi,
    password::PasswordApi,
    identity::IdentityApi,
    meta::MetaApi,
    game::GameApi,
    again::AgainApi,
    report::ReportApi,
    comments::CommentsApi,
    payments::PaymentsApi,
    wordsets::WordsetApi,
    push::PushApi,
);

type AdminApis = (
    admin::AdminAuthApi,
    admin::AdminReportsApi,
    admin::AdminUsersApi,
    admin::AdminCommentsApi,
    admin::AdminMegaphonesApi,
    admin::AdminWordsetsApi,
);

/// The API service, mounted at `/api`.
pub fn service(state: &AppState) -> OpenApiService<Apis, ()> {
    OpenApiService::new(
        (
            (
                accounts::AccountsApi(state.clone()),
                signup::SignupApi(state.clone()),
                profile::ProfileApi(state.clone()),
                password::PasswordApi(state.clone()),
                identity::IdentityApi(state.clone()),
                meta::MetaApi(state.clone()),
                game::GameApi(state.clone()),
                again::AgainApi(state.clone()),
                report::ReportApi(state.clone()),
                comments::CommentsApi(state.clone()),
                payments::PaymentsApi(state.clone()),
                wordsets::WordsetApi(state.clone()),
                push::PushApi(state.clone()),
            ),
            (
                admin::AdminAuthApi(state.clone()),
                admin::AdminReportsApi(state.clone()),
                admin::AdminUsersApi(state.clone()),
                admin::AdminCommentsApi(state.clone()),
                admin::AdminMegaphonesApi(state.clone()),
                admin::AdminWordsetsApi(state.clone()),
            ),
        ),
        "Telepathy API",
        env!("CARGO_PKG_VERSION"),
    )
    .description(
        "텔레파시: every error answers `{success: false, code, message}` with a Korean message.",
    )
    .server("/api")
}
