use poem::web::cookie::CookieJar;
use poem::Request;
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};
use telepathy_domain::limits::{MIN_AGE, VERIFIED_PHONE_TTL};
use telepathy_domain::terms::{Agreement, Terms};
use telepathy_domain::time::seoul_date;
use telepathy_domain::{Birthdate, ErrorCode, Gender, Notice, Password, Phone, Username};
use telepathy_providers::CodePurpose;
use telepathy_store::{Consent, NewUser, StoreError};

use super::choice::{Choice, GenderChoices};
use super::{Ack, Tag};
use crate::error::{internal, ApiResult, OrInternal};
use crate::security::passwords::{self, Lane};
use crate::state::AppState;

pub struct SignupApi(pub AppState);

#[derive(Debug, Object)]
pub struct UsernameBody {
    #[oai(default)]
    pub username: String,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct Availability {
    pub success: bool,
    pub is_available: bool,
    pub message: String,
}

#[derive(Debug, Object)]
pub struct SignupPhoneBody {
    #[oai(default)]
    pub phone: String,
    /// YYYY-MM-DD or YYYYMMDD. When given, someone under 14 is refused before a code is
    /// sent.
    #[oai(default)]
    pub birthdate: String,
}

#[derive(Debug, Object)]
pub struct PhoneCodeBody {
    #[oai(default)]
    pub phone: String,
    #[oai(default)]
    pub code: String,
}

#[derive(Object)]
pub struct RegisterBody {
    #[oai(default)]
    pub username: String,
    #[oai(default)]
    pub password: String,
    #[oai(default)]
    pub phone: String,
    #[oai(default)]
    pub gender: Choice<GenderChoices>,
    /// YYYY-MM-DD (YYYYMMDD is accepted too).
    #[oai(default)]
    pub birthdate: String,
    /// The terms agreed to in the terms modal; the first three are required.
    /// 서비스 이용약관.
    #[oai(default)]
    pub service: bool,
    /// 개인정보 처리방침.
    #[oai(default)]
    pub privacy: bool,
    /// 청소년 보호정책.
    #[oai(default)]
    pub youth: bool,
    /// The optional 서비스 개선 목적 정보 활용 동의.
    #[oai(default)]
    pub improve: bool,
    /// The optional notification consent (알림 수신 동의).
    #[oai(default)]
    pub alarm: bool,
}

impl RegisterBody {
    fn agreement(&self) -> Result<Agreement, ErrorCode> {
        let ticked = [
            (Terms::Service, self.service),
            (Terms::Privacy, self.privacy),
            (Terms::Youth, self.youth),
            (Terms::Improve, self.improve),
            (Terms::Alarm, self.alarm),
        ];
        Agreement::parse(ticked.into_iter().filter(|(_, on)| *on).map(|(t, _)| t))
    }
}

/// Refuses someone younger than the service allows, by the birthdate they gave.
fn check_age(birthdate: &Birthdate, now: chrono::DateTime<chrono::Utc>) -> Result<(), ErrorCode> {
    if birthdate.age_on(seoul_date(now)) < MIN_AGE {
        return Err(ErrorCode::UnderAge);
    }
    Ok(())
}

#[OpenApi(tag = "Tag::Signup")]
impl SignupApi {
    /// Whether a username is free.
    #[oai(
        path = "/auth/check-username",
        method = "post",
        operation_id = "checkUsername"
    )]
    async fn check_username(
        &self,
        req: &Request,
        body: Json<UsernameBody>,
    ) -> ApiResult<Availability> {
        let s = &self.0;
        s.limits.limit_lookups(req).await?;
        let username = Username::parse(&body.username)?;
        let taken = s
            .store
            .username_taken(username.as_ref())
            .await
            .or_internal("checking a username")?;
        Ok(Json(Availability {
            success: true,
            is_available: !taken,
            message: if taken {
                ErrorCode::UsernameTaken.message()
            } else {
                Notice::UsernameAvailable.message()
            }
            .to_owned(),
        }))
    }

    /// Sends a sign-up code to a phone that no active account uses. With a birthdate,
    /// someone under 14 is told so before any code is sent.
    #[oai(
        path = "/verify-mvp/send",
        method = "post",
        operation_id = "sendSignupCode"
    )]
    async fn send(
        &self,
        req: &Request,
        cookies: &CookieJar,
        body: Json<SignupPhoneBody>,
    ) -> ApiResult<Ack> {
        let s = &self.0;
        if !body.birthdate.trim().is_empty() {
            check_age(&Birthdate::parse(&body.birthdate)?, s.clock.now())?;
        }
        let phone = Phone::parse(&body.phone)?;
        // Whether a phone has an account is a look-up: limited, so numbers cannot be
        // enumerated.
        s.limits.limit_lookups(req).await?;
        if s.store
            .phone_in_use(phone.as_ref())
            .await
            .or_internal("checking a phone")?
        {
            return Err(ErrorCode::PhoneInUse.into());
        }
        // A phone not yet registered has no account, so no device of its owner.
        s.codes
            .send_code(req, cookies, &phone, CodePurpose::Register, false)
            .await?;
        Ok(Json(Ack::of(Notice::CodeSent)))
    }

    /// Checks a sign-up code; a right one lets this phone register for the next minutes.
    #[oai(
        path = "/verify-mvp/check",
        method = "post",
        operation_id = "checkSignupCode"
    )]
    async fn check(&self, req: &Request, body: Json<PhoneCodeBody>) -> ApiResult<Ack> {
        let s = &self.0;
        let phone = Phone::parse(&body.phone)?;
        let code = s
            .codes
            .check_code(req, &phone, CodePurpose::Register, &body.code)
            .await?;
        s.store
            .mark_code_verified(code.id, s.clock.now_ms())
            .await
            .or_internal("marking a code verified")?;
        Ok(Json(Ack::of(Notice::PhoneVerified)))
    }

    /// Creates the account of a phone verified moments before, and logs it in.
    #[oai(path = "/register", method = "post", operation_id = "register")]
    async fn register(
        &self,
        req: &Request,
        cookies: &CookieJar,
        body: Json<RegisterBody>,
    ) -> ApiResult<Ack> {
        let s = &self.0;
        let b = &body.0;
        if b.username.trim().is_empty() || b.password.is_empty() {
            return Err(ErrorCode::FieldsRequired.into());
        }
        let username = Username::parse(&b.username)?;
        let password = Password::parse_new(&b.password)?;
        let phone = Phone::parse(&b.phone)?;
        let gender = Gender::parse(b.gender.as_str())?;
        let birthdate = Birthdate::parse(&b.birthdate)?;
        let now = s.clock.now();
        check_age(&birthdate, now)?;
        let agreement = b.agreement()?;
        // The answers below tell whether a username or phone has an account: look-ups.
        s.limits.limit_lookups(req).await?;
        if s.store
            .username_taken(username.as_ref())
            .await
            .or_internal("checking a username")?
        {
            return Err(ErrorCode::UsernameTaken.into());
        }
        if s.store
            .phone_in_use(phone.as_ref())
            .await
            .or_internal("checking a phone")?
        {
            return Err(ErrorCode::PhoneInUse.into());
        }
        let now_ms = now.timestamp_millis();
        let since = now_ms - i64::try_from(VERIFIED_PHONE_TTL.as_millis()).unwrap_or(0);
        // Only a phone its owner just proved costs a hash, so the hash takes the known lane.
        if !s
            .store
            .phone_verified_since(phone.as_ref(), since)
            .await
            .or_internal("checking a verified phone")?
        {
            return Err(ErrorCode::PhoneNotVerified.into());
        }
        let hash = passwords::hash(password.expose().to_owned(), Lane::Known).await?;
        let consents: Vec<Consent> = agreement
            .terms()
            .map(|t| Consent {
                terms: t.as_str(),
                version: t.version(),
                agreed: true,
            })
            .collect();
        let registered = s
            .store
            .register_user(
                &NewUser {
                    username: username.as_ref(),
                    password_hash: &hash,
                    phone: phone.as_ref(),
                    gender: gender.as_korean(),
                    birthdate: &birthdate.iso(),
                    alarm_consent: agreement.agrees_to(Terms::Alarm),
                    consents: &consents,
                    now: now_ms,
                },
                since,
            )
            .await;
        let id = match registered {
            Ok(Some(id)) => id,
            Ok(None) => return Err(ErrorCode::PhoneNotVerified.into()),
            Err(StoreError::UsernameTaken) => return Err(ErrorCode::UsernameTaken.into()),
            Err(StoreError::PhoneInUse) => return Err(ErrorCode::PhoneInUse.into()),
            Err(e) => return Err(internal("registering", e)),
        };
        tracing::info!(user_id = id, "account registered");
        s.sessions.start_session(req, cookies, id).await?;
        Ok(Json(Ack::of(Notice::Registered)))
    }
}
