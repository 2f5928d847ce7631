use poem::Request;
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};
use telepathy_domain::limits::{IDENTITY_PREPARES_PER_USER, IDENTITY_WINDOW};
use telepathy_domain::{Birthdate, ErrorCode, Notice, Phone};
use telepathy_providers::{IdentityOutcome, VerifiedPerson};
use telepathy_store::User;

use super::Tag;
use crate::error::{ApiResult, OrInternal};
use crate::state::AppState;

pub struct IdentityApi(pub AppState);

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct Prepared {
    /// The id to give the provider's widget.
    pub identity_verification_id: String,
    pub store_id: String,
    pub channel_key: String,
    /// True when no real provider is behind it.
    pub demo: bool,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ConfirmBody {
    #[oai(default)]
    pub identity_verification_id: String,
}

#[derive(Debug, Object)]
pub struct VerifiedUser {
    /// The verified real name.
    pub name: String,
}

#[derive(Debug, Object)]
pub struct Confirmed {
    pub success: bool,
    pub message: String,
    pub user: VerifiedUser,
}

#[OpenApi(tag = "Tag::Identity")]
impl IdentityApi {
    /// Issues an identity verification id for the provider's widget, to the logged-in
    /// account (a few an hour: each is stored).
    #[oai(
        path = "/verify/prepare",
        method = "post",
        operation_id = "prepareIdentity"
    )]
    async fn prepare(&self, req: &Request) -> ApiResult<Prepared> {
        let s = &self.0;
        let user = s.sessions.require_user(req).await?.user.id;
        s.limits
            .limit(
                &format!("identity:user:{user}"),
                IDENTITY_PREPARES_PER_USER,
                IDENTITY_WINDOW,
                ErrorCode::RateLimited,
            )
            .await?;
        let id = s.identity.new_verification_id();
        s.store
            .create_identity_check(&id, Some(user), s.clock.now_ms())
            .await
            .or_internal("starting an identity check")?;
        let client = s.identity.client_config();
        Ok(Json(Prepared {
            identity_verification_id: id,
            store_id: client.store_id,
            channel_key: client.channel_key,
            demo: client.demo,
        }))
    }

    /// Asks the provider how a verification ended; when the verified person is the account
    /// holder (same birthdate, and same phone when the provider gives one), marks the
    /// account verified and keeps the real name.
    #[oai(
        path = "/verify/confirm",
        method = "post",
        operation_id = "confirmIdentity"
    )]
    async fn confirm(&self, body: Json<ConfirmBody>) -> ApiResult<Confirmed> {
        let s = &self.0;
        let id = body.identity_verification_id.trim();
        if id.is_empty() || id.len() > 200 {
            return Err(ErrorCode::IdentityIdInvalid.into());
        }
        let check = s
            .store
            .identity_check(id)
            .await
            .or_internal("reading an identity check")?
            .ok_or(ErrorCode::IdentityIdInvalid)?;
        let outcome = s.identity.fetch(id).await.map_err(|e| {
            tracing::warn!(error = %e, "the identity provider failed");
            ErrorCode::IdentityFailed
        })?;
        let person = match outcome {
            IdentityOutcome::Verified(person) => person,
            IdentityOutcome::NotVerified { status } => {
                tracing::info!(status, "identity check not verified");
                return Err(ErrorCode::IdentityNotVerified.into());
            }
            IdentityOutcome::NotFound => return Err(ErrorCode::IdentityIdInvalid.into()),
        };
        // A verification started by no account proves nothing here.
        let user = match check.user_id {
            Some(user_id) => s
                .store
                .user_by_id(user_id)
                .await
                .or_internal("finding a user")?,
            None => None,
        }
        .ok_or(ErrorCode::IdentityIdInvalid)?;
        if !is_holder(&person, &user, s.identity.client_config().demo) {
            tracing::info!(user_id = user.id, "identity verified for another person");
            return Err(ErrorCode::IdentityMismatch.into());
        }
        s.store
            .complete_identity_check(id, &person.name, s.clock.now_ms())
            .await
            .or_internal("completing an identity check")?;
        s.store
            .set_real_name(user.id, &person.name)
            .await
            .or_internal("saving a real name")?;
        Ok(Json(Confirmed {
            success: true,
            message: Notice::IdentityVerified.message().to_owned(),
            user: VerifiedUser { name: person.name },
        }))
    }
}

/// Whether the verified person is the account holder: the same birthdate, and the same
/// phone when the provider gives one. A real provider always gives the birthdate (PortOne
/// requires it of a verified customer), so one without it is no proof; the demo provider
/// vouches for nobody in particular and gives none.
fn is_holder(person: &VerifiedPerson, user: &User, demo: bool) -> bool {
    let birthdate_ok = match &person.birth_date {
        Some(date) => Birthdate::parse(date).is_ok_and(|b| b.iso() == user.birthdate),
        None => demo,
    };
    let phone_ok = match &person.phone {
        Some(phone) => Phone::parse(phone).is_ok_and(|p| p.as_ref() == user.phone),
        None => true,
    };
    birthdate_ok && phone_ok
}
