//! Operator login: the password starts a session that waits for the second factor; a TOTP
//! code (enrolling the authenticator app on first use) completes it.

use poem::web::cookie::CookieJar;
use poem::Request;
use poem_openapi::payload::Json;
use poem_openapi::{Enum, Object, OpenApi};
use telepathy_domain::limits::TOTP_BACKOFF;
use telepathy_domain::{Credentials, ErrorCode, Notice};
use telepathy_store::{AuditEntry, SecondFactor};

use super::time;
use crate::api::{Ack, Tag};
use crate::error::{internal, ApiResult, OrInternal};
use crate::security::client_net;
use crate::security::passwords::{self, Lane};
use crate::security::totp;
use crate::state::AppState;

pub struct AdminAuthApi(pub AppState);

#[derive(Object)]
pub struct AdminLoginBody {
    #[oai(default)]
    pub username: String,
    #[oai(default)]
    pub password: String,
}

/// What the second factor of a login needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "lowercase")]
pub enum SecondFactorStep {
    /// No authenticator app yet: `GET /admin/totp/enrollment`, then `POST /admin/totp`.
    Enroll,
    /// `POST /admin/totp` with the app's code.
    Verify,
}

/// A password accepted: the session waits for the second factor.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct AdminLogin {
    pub success: bool,
    /// What to do next, in Korean.
    pub message: String,
    pub second_factor: SecondFactorStep,
}

/// What an authenticator app needs, shown once while enrolling.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct TotpEnrollment {
    /// The secret in base32, for typing in by hand.
    pub secret: String,
    /// `otpauth://totp/Telepathy:<username>?secret=…&issuer=Telepathy`.
    pub otpauth_uri: String,
    /// The URI as a QR code: an SVG document, to show as
    /// `<img src="data:image/svg+xml;base64,…">`.
    pub qr_svg: String,
}

#[derive(Object)]
pub struct TotpBody {
    /// The 6 digits the authenticator app shows.
    #[oai(default)]
    pub code: String,
}

/// The operator of this session.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct OperatorMe {
    pub username: String,
    /// Whether the session passed the second factor.
    pub second_factor: bool,
    /// Whether the operator has enrolled an authenticator app.
    pub totp_enrolled: bool,
    /// When the session ends unless used (RFC 3339).
    pub expires_at: String,
}

#[OpenApi(tag = "Tag::Admin")]
impl AdminAuthApi {
    /// Checks an operator's password and starts a session (cookie `tp_admin`) that waits
    /// for the second factor. Wrong names and passwords, and disabled operators, answer
    /// `LOGIN_FAILED` alike.
    #[oai(path = "/admin/login", method = "post", operation_id = "adminLogin")]
    async fn login(
        &self,
        req: &Request,
        cookies: &CookieJar,
        body: Json<AdminLoginBody>,
    ) -> ApiResult<AdminLogin> {
        let s = &self.0;
        let Credentials { username, password } =
            Credentials::parse(&body.username, &body.password)?;
        let name = username.as_ref();
        let ip = client_net(req, s.config.trusted_proxies);
        let tries = s
            .limits
            .count_password_try("admin-login", &ip, name)
            .await?;
        let operator = s
            .store
            .operator_by_username(name)
            .await
            .or_internal("finding an operator")?;
        let right = passwords::verify(
            password.expose().to_owned(),
            operator.as_ref().map(|o| o.password_hash.clone()),
            Lane::Other,
        )
        .await?;
        let now = s.clock.now_ms();
        let refused = match &operator {
            None => Some("없는 아이디"),
            Some(_) if !right => Some("비밀번호 불일치"),
            Some(o) if o.disabled_at.is_some() => Some("사용 중지된 운영자"),
            Some(_) => None,
        };
        let Some(operator) = operator.filter(|_| refused.is_none()) else {
            let detail = format!("{name}: {}", refused.unwrap_or_default());
            s.store
                .audit(&AuditEntry {
                    operator_id: None,
                    action: "operator.login_failed",
                    user_id: None,
                    report_id: None,
                    detail: &detail,
                    ip: &ip,
                    now,
                })
                .await
                .or_internal("auditing a failed login")?;
            return Err(ErrorCode::LoginFailed.into());
        };
        s.limits.tries_succeeded(&tries).await?;
        let detail = format!("{name}: 비밀번호 확인");
        let audit = AuditEntry {
            operator_id: Some(operator.id),
            action: "operator.login",
            user_id: None,
            report_id: None,
            detail: &detail,
            ip: &ip,
            now,
        };
        s.sessions
            .start_operator_session(cookies, &operator, &ip, &audit)
            .await?;
        let (second_factor, message) = if operator.totp_enrolled_at.is_some() {
            (
                SecondFactorStep::Verify,
                Notice::OperatorEnterCode.message(),
            )
        } else {
            (
                SecondFactorStep::Enroll,
                Notice::OperatorEnrolThenCode.message(),
            )
        };
        Ok(Json(AdminLogin {
            success: true,
            message: message.to_owned(),
            second_factor,
        }))
    }

    /// The secret of the authenticator app to enrol, for a session waiting for its
    /// second factor whose operator has none yet. The same secret comes back until the
    /// first code enrols it.
    #[oai(
        path = "/admin/totp/enrollment",
        method = "get",
        operation_id = "adminTotpEnrollment"
    )]
    async fn enrollment(&self, req: &Request) -> ApiResult<TotpEnrollment> {
        let s = &self.0;
        let current = s.sessions.require_operator_session(req).await?;
        let operator = &current.operator;
        if current.second_factor || operator.totp_enrolled_at.is_some() {
            return Err(ErrorCode::TotpEnrolled.into());
        }
        let key = &s.config.data_key;
        let fresh = totp::seal(key, &totp::new_secret()).or_internal("starting an enrolment")?;
        let stored = s
            .store
            .start_totp_enrollment(operator.id, &fresh)
            .await
            .or_internal("starting a TOTP enrolment")?
            .ok_or(ErrorCode::TotpEnrolled)?;
        let secret = totp::open(key, &stored).or_internal("starting an enrolment")?;
        let enrollment =
            totp::enrollment(&secret, &operator.username).or_internal("making an enrolment")?;
        s.store
            .audit(&current.audit(
                "totp.enrollment",
                None,
                None,
                "인증 앱 등록 정보 조회",
                s.clock.now_ms(),
            ))
            .await
            .or_internal("auditing an enrolment")?;
        Ok(Json(TotpEnrollment {
            secret: enrollment.secret,
            otpauth_uri: enrollment.uri,
            qr_svg: enrollment.qr_svg,
        }))
    }

    /// Completes the session's second factor with the authenticator app's code; the
    /// first right code enrols the app. A code is good once; wrong codes are limited per
    /// operator.
    #[oai(path = "/admin/totp", method = "post", operation_id = "adminTotp")]
    async fn totp(&self, req: &Request, body: Json<TotpBody>) -> ApiResult<Ack> {
        let s = &self.0;
        let current = s.sessions.require_operator_session(req).await?;
        let operator = &current.operator;
        let Some(stored) = operator.totp_secret.as_deref() else {
            return Err(ErrorCode::TotpNotStarted.into());
        };
        let secret = totp::open(&s.config.data_key, stored).or_internal("checking a code")?;
        let tries = s
            .limits
            .count_code_try("totp", &operator.id.to_string(), &TOTP_BACKOFF)
            .await?;
        let now = s.clock.now_ms();
        let step = totp::matching_step(
            &secret,
            &operator.username,
            &body.code,
            u64::try_from(now / 1000).unwrap_or_default(),
        )
        .map_err(|e| internal("checking a TOTP code", e))?;
        let enrolling = operator.totp_enrolled_at.is_none();
        let (action, detail) = if enrolling {
            ("totp.enrol", "인증 앱 등록")
        } else {
            ("totp.verify", "2단계 인증")
        };
        let passed = match step.and_then(|step| i64::try_from(step).ok()) {
            None => Err("잘못된 코드"),
            Some(step) => {
                let passed = s
                    .store
                    .pass_second_factor(
                        &SecondFactor {
                            operator_id: operator.id,
                            token_hash: &current.token_hash,
                            secret: stored,
                            step,
                            now,
                        },
                        &current.audit(action, None, None, detail, now),
                    )
                    .await
                    .or_internal("accepting a TOTP code")?;
                if passed {
                    Ok(())
                } else {
                    Err("이미 사용한 코드")
                }
            }
        };
        if let Err(why) = passed {
            s.store
                .audit(&current.audit("totp.failure", None, None, why, now))
                .await
                .or_internal("auditing a wrong code")?;
            return Err(ErrorCode::TotpInvalid.into());
        }
        s.limits.tries_succeeded(&tries).await?;
        Ok(Json(Ack::of(if enrolling {
            Notice::OperatorEnrolled
        } else {
            Notice::OperatorVerified
        })))
    }

    /// Ends this operator session.
    #[oai(path = "/admin/logout", method = "post", operation_id = "adminLogout")]
    async fn logout(&self, req: &Request, cookies: &CookieJar) -> ApiResult<Ack> {
        let s = &self.0;
        if let Some(current) = s.sessions.current_operator(req).await? {
            let now = s.clock.now_ms();
            s.store
                .revoke_operator_session(
                    &current.token_hash,
                    now,
                    &current.audit("operator.logout", None, None, "로그아웃", now),
                )
                .await
                .or_internal("ending an operator session")?;
        }
        s.sessions.clear_admin_cookie(cookies);
        Ok(Json(Ack::of(Notice::LoggedOut)))
    }

    /// The operator of this session, before or after its second factor.
    #[oai(path = "/admin/me", method = "get", operation_id = "adminMe")]
    async fn me(&self, req: &Request) -> ApiResult<OperatorMe> {
        let current = self.0.sessions.require_operator_session(req).await?;
        Ok(Json(OperatorMe {
            username: current.operator.username.clone(),
            second_factor: current.second_factor,
            totp_enrolled: current.operator.totp_enrolled_at.is_some(),
            expires_at: time(current.expires_at),
        }))
    }
}
