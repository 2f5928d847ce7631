//! Behaviour of the providers against local stand-ins of the vendor APIs.

// Test scaffolding outside `#[test]` functions (fixtures, the stand-in servers)
// should fail loudly rather than thread errors through.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod stand_in;

use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde_json::{json, Value};
use stand_in::{hmac_hex, parse_solapi_auth, SolapiMode, PORTONE_SECRET};
use telepathy_providers::{
    verification_text, CodePurpose, DemoIdentity, DemoSms, IdentityOutcome, IdentityVerifier,
    PortOneConfig, PortOneIdentity, ProviderError, Secret, SmsSender, SolapiConfig, SolapiSms,
    VerifiedPerson, DEMO_PERSON_NAME, DEMO_SMS_CAPACITY,
};

const API_KEY: &str = "NCSTESTAPIKEY0001";
const API_SECRET: &str = "TESTSECRETTESTSECRETTESTSECRET01";
const SENDER: &str = "0212345678";

fn solapi_sms(base_url: &str, secret: &str) -> SolapiSms {
    SolapiSms::new(SolapiConfig {
        api_key: API_KEY.to_owned(),
        api_secret: Secret::new(secret),
        sender: SENDER.to_owned(),
        base_url: base_url.to_owned(),
    })
    .expect("valid config")
}

fn portone_identity(base_url: &str, secret: &str) -> PortOneIdentity {
    PortOneIdentity::new(PortOneConfig {
        api_secret: Secret::new(secret),
        store_id: "store-test".to_owned(),
        channel_key: "channel-key-test".to_owned(),
        base_url: base_url.to_owned(),
    })
    .expect("valid config")
}

// ---------------------------------------------------------------- Solapi

#[tokio::test]
async fn solapi_sends_signed_json_request() {
    let (base_url, log) = stand_in::solapi(API_KEY, API_SECRET, SolapiMode::Accept).await;
    let sms = solapi_sms(&base_url, API_SECRET);

    sms.send_code("01012345678", "482913", CodePurpose::Register)
        .await
        .expect("accepted");

    let requests = log.lock().unwrap().clone();
    assert_eq!(requests.len(), 1);
    let req = &requests[0];
    assert_eq!(req.method, "POST");
    assert_eq!(req.raw_path_and_query, "/messages/v4/send");
    assert!(req
        .content_type
        .as_deref()
        .is_some_and(|ct| ct.starts_with("application/json")));

    let body: Value = serde_json::from_slice(&req.body).expect("JSON body");
    assert_eq!(
        body,
        json!({"message": {
            "to": "01012345678",
            "from": SENDER,
            "text": "[텔레파시] 인증번호 [482913]를 입력해주세요. (3분 이내)"
        }})
    );

    // The stand-in verified the signature itself; check its verdict and recompute here too.
    let auth = req
        .auth_check
        .clone()
        .expect("auth checked")
        .expect("stand-in accepted the signature");
    assert_eq!(auth.api_key, API_KEY);
    assert_eq!(
        auth.signature,
        hmac_hex(API_SECRET, &format!("{}{}", auth.date, auth.salt))
    );
    assert!(auth.salt.len() >= 32, "salt too short: {}", auth.salt);
    assert!(auth.salt.chars().all(|c| c.is_ascii_hexdigit()));
    assert!(auth.date.ends_with('Z'), "date must be UTC: {}", auth.date);
    let date: DateTime<Utc> = DateTime::parse_from_rfc3339(&auth.date)
        .expect("ISO 8601 date")
        .with_timezone(&Utc);
    assert!((Utc::now() - date).num_seconds().abs() < 60);
    assert!(!req
        .authorization
        .as_deref()
        .unwrap_or_default()
        .contains(API_SECRET));
}

#[tokio::test]
async fn solapi_uses_a_fresh_salt_per_request() {
    let (base_url, log) = stand_in::solapi(API_KEY, API_SECRET, SolapiMode::Accept).await;
    let sms = solapi_sms(&base_url, API_SECRET);
    sms.send_code("01011112222", "111111", CodePurpose::Register)
        .await
        .expect("first");
    sms.send_code("01011112222", "222222", CodePurpose::Register)
        .await
        .expect("second");

    let auths: Vec<_> = log
        .lock()
        .unwrap()
        .iter()
        .map(|r| parse_solapi_auth(r.authorization.as_deref().unwrap()).unwrap())
        .collect();
    assert_eq!(auths.len(), 2);
    assert_ne!(auths[0].salt, auths[1].salt);
    assert_ne!(auths[0].signature, auths[1].signature);
}

#[tokio::test]
async fn solapi_signature_with_wrong_secret_is_rejected() {
    let (base_url, _log) = stand_in::solapi(API_KEY, API_SECRET, SolapiMode::Accept).await;
    let sms = solapi_sms(&base_url, "some-other-secret");
    let err = sms
        .send_code("01012345678", "123456", CodePurpose::Register)
        .await
        .unwrap_err();
    match err {
        ProviderError::Rejected { status, code, .. } => {
            assert_eq!(status, 403);
            assert_eq!(code, "SignatureDoesNotMatch");
        }
        other => panic!("expected Rejected, got {other:?}"),
    }
}

#[tokio::test]
async fn solapi_validation_error_maps_to_rejected() {
    let (base_url, _log) =
        stand_in::solapi(API_KEY, API_SECRET, SolapiMode::RejectValidation).await;
    let sms = solapi_sms(&base_url, API_SECRET);
    let err = sms
        .send_code("01012345678", "123456", CodePurpose::Register)
        .await
        .unwrap_err();
    assert_eq!(
        err,
        ProviderError::Rejected {
            status: 400,
            code: "ValidationError".to_owned(),
            message: "발신번호 01099998888 은(는) 등록되지 않은 번호입니다.".to_owned(),
        }
    );
}

#[tokio::test]
async fn solapi_non_json_error_still_maps_to_rejected() {
    let (base_url, _log) = stand_in::solapi(API_KEY, API_SECRET, SolapiMode::BadGateway).await;
    let sms = solapi_sms(&base_url, API_SECRET);
    match sms
        .send_code("01012345678", "123456", CodePurpose::Register)
        .await
        .unwrap_err()
    {
        ProviderError::Rejected {
            status,
            code,
            message,
        } => {
            assert_eq!(status, 502);
            assert_eq!(code, "HTTP_502");
            assert!(message.contains("502 Bad Gateway"), "{message}");
        }
        other => panic!("expected Rejected, got {other:?}"),
    }
}

#[tokio::test]
async fn solapi_unreachable_is_transport_error() {
    let sms = solapi_sms(&stand_in::closed_port_url(), API_SECRET);
    let err = sms
        .send_code("01012345678", "123456", CodePurpose::Register)
        .await
        .unwrap_err();
    assert!(matches!(err, ProviderError::Transport(_)), "{err:?}");
}

#[tokio::test]
async fn solapi_accepts_base_url_with_trailing_slash() {
    let (base_url, log) = stand_in::solapi(API_KEY, API_SECRET, SolapiMode::Accept).await;
    let sms = solapi_sms(&format!("{base_url}/"), API_SECRET);
    sms.send_code("01012345678", "123456", CodePurpose::Register)
        .await
        .expect("accepted");
    assert_eq!(
        log.lock().unwrap()[0].raw_path_and_query,
        "/messages/v4/send"
    );
}

#[test]
fn solapi_rejects_invalid_base_url() {
    let result = SolapiSms::new(SolapiConfig {
        base_url: "not a url".to_owned(),
        ..SolapiConfig::new(API_KEY, Secret::new(API_SECRET), SENDER)
    });
    assert!(matches!(result, Err(ProviderError::Config(_))));
}

#[test]
fn solapi_config_defaults_to_production_and_hides_secret() {
    let config = SolapiConfig::new(API_KEY, Secret::new(API_SECRET), SENDER);
    assert_eq!(config.base_url, "https://api.solapi.com");
    let shown = format!("{config:?}");
    assert!(!shown.contains(API_SECRET), "{shown}");
    let sms = SolapiSms::new(config).expect("valid");
    assert!(!format!("{sms:?}").contains(API_SECRET));
}

// ---------------------------------------------------------------- PortOne

#[tokio::test]
async fn portone_verified_gives_person_and_sends_exact_authorization() {
    let (base_url, log) = stand_in::portone().await;
    let identity = portone_identity(&base_url, PORTONE_SECRET);

    let outcome = identity.fetch("iv-verified").await.expect("fetched");
    assert_eq!(
        outcome,
        IdentityOutcome::Verified(VerifiedPerson {
            name: "홍길동".to_owned(),
            phone: Some("01012345678".to_owned()),
            birth_date: Some("1995-03-04".to_owned()),
            gender: Some("MALE".to_owned()),
        })
    );

    let requests = log.lock().unwrap().clone();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].method, "GET");
    assert_eq!(
        requests[0].authorization.as_deref(),
        Some("PortOne test-portone-v2-secret")
    );
    assert_eq!(
        requests[0].raw_path_and_query,
        "/identity-verifications/iv-verified?storeId=store-test"
    );
}

#[tokio::test]
async fn portone_verified_with_only_required_fields() {
    let (base_url, _log) = stand_in::portone().await;
    let identity = portone_identity(&base_url, PORTONE_SECRET);
    assert_eq!(
        identity
            .fetch("iv-verified-minimal")
            .await
            .expect("fetched"),
        IdentityOutcome::Verified(VerifiedPerson {
            name: "김철수".to_owned(),
            phone: None,
            birth_date: Some("2000-01-01".to_owned()),
            gender: None,
        })
    );
}

#[tokio::test]
async fn portone_failed_and_ready_are_not_verified() {
    let (base_url, _log) = stand_in::portone().await;
    let identity = portone_identity(&base_url, PORTONE_SECRET);
    assert_eq!(
        identity.fetch("iv-failed").await.expect("fetched"),
        IdentityOutcome::NotVerified {
            status: "FAILED".to_owned()
        }
    );
    assert_eq!(
        identity.fetch("iv-ready").await.expect("fetched"),
        IdentityOutcome::NotVerified {
            status: "READY".to_owned()
        }
    );
}

#[tokio::test]
async fn portone_404_not_found_gives_not_found() {
    let (base_url, log) = stand_in::portone().await;
    let identity = portone_identity(&base_url, PORTONE_SECRET);
    assert_eq!(
        identity
            .fetch("identity-verification-unknown")
            .await
            .expect("fetched"),
        IdentityOutcome::NotFound
    );
    assert_eq!(log.lock().unwrap().len(), 1, "the stand-in was asked");
}

#[tokio::test]
async fn portone_404_of_another_kind_is_an_error() {
    // A wrong base path yields a plain 404, which must not read as "no such verification".
    let (base_url, _log) = stand_in::portone().await;
    let identity = portone_identity(&format!("{base_url}/wrong-prefix"), PORTONE_SECRET);
    match identity.fetch("iv-verified").await.unwrap_err() {
        ProviderError::Rejected { status, code, .. } => {
            assert_eq!(status, 404);
            assert_eq!(code, "HTTP_404");
        }
        other => panic!("expected Rejected, got {other:?}"),
    }
}

#[tokio::test]
async fn portone_wrong_secret_is_rejected() {
    let (base_url, _log) = stand_in::portone().await;
    let identity = portone_identity(&base_url, "not-the-secret");
    assert_eq!(
        identity.fetch("iv-verified").await.unwrap_err(),
        ProviderError::Rejected {
            status: 401,
            code: "UNAUTHORIZED".to_owned(),
            message: "인증 정보가 올바르지 않습니다.".to_owned(),
        }
    );
}

#[tokio::test]
async fn portone_other_errors_map_to_rejected() {
    let (base_url, _log) = stand_in::portone().await;
    let identity = portone_identity(&base_url, PORTONE_SECRET);
    match identity.fetch("iv-forbidden").await.unwrap_err() {
        ProviderError::Rejected { status, code, .. } => {
            assert_eq!(status, 403);
            assert_eq!(code, "FORBIDDEN");
        }
        other => panic!("expected Rejected, got {other:?}"),
    }
}

#[tokio::test]
async fn portone_verified_without_customer_is_invalid_response() {
    let (base_url, _log) = stand_in::portone().await;
    let identity = portone_identity(&base_url, PORTONE_SECRET);
    let err = identity.fetch("iv-verified-no-customer").await.unwrap_err();
    assert!(matches!(err, ProviderError::InvalidResponse(_)), "{err:?}");
}

#[tokio::test]
async fn portone_id_is_url_encoded_as_one_segment() {
    let (base_url, log) = stand_in::portone().await;
    let identity = portone_identity(&base_url, PORTONE_SECRET);
    let outcome = identity.fetch("a/b c?d").await.expect("fetched");
    assert!(
        matches!(outcome, IdentityOutcome::Verified(_)),
        "{outcome:?}"
    );
    let req = log.lock().unwrap()[0].clone();
    assert_eq!(
        req.raw_path_and_query,
        "/identity-verifications/a%2Fb%20c%3Fd?storeId=store-test"
    );
    assert_eq!(req.decoded_id.as_deref(), Some("a/b c?d"));
}

#[tokio::test]
async fn portone_dot_and_empty_ids_are_not_found_without_a_request() {
    let (base_url, log) = stand_in::portone().await;
    let identity = portone_identity(&base_url, PORTONE_SECRET);
    for id in ["", ".", ".."] {
        assert_eq!(
            identity.fetch(id).await.expect("fetched"),
            IdentityOutcome::NotFound
        );
    }
    assert!(log.lock().unwrap().is_empty());
}

#[tokio::test]
async fn portone_unreachable_is_transport_error() {
    let identity = portone_identity(&stand_in::closed_port_url(), PORTONE_SECRET);
    let err = identity.fetch("iv-verified").await.unwrap_err();
    assert!(matches!(err, ProviderError::Transport(_)), "{err:?}");
}

#[test]
fn portone_ids_and_client_config() {
    let identity = portone_identity("http://127.0.0.1:9", PORTONE_SECRET);
    let a = identity.new_verification_id();
    let b = identity.new_verification_id();
    assert!(a.starts_with("identity-verification-"), "{a}");
    assert!(a.len() >= "identity-verification-".len() + 32, "{a}");
    assert_ne!(a, b);

    let config = identity.client_config();
    assert_eq!(config.store_id, "store-test");
    assert_eq!(config.channel_key, "channel-key-test");
    assert!(!config.demo);
    let shown = serde_json::to_value(&config).expect("serializable");
    assert_eq!(
        shown,
        json!({"storeId": "store-test", "channelKey": "channel-key-test", "demo": false})
    );
    assert!(!format!("{identity:?}").contains(PORTONE_SECRET));
}

#[test]
fn portone_config_defaults_to_production() {
    let config = PortOneConfig::new(Secret::new(PORTONE_SECRET), "store-1", "channel-1");
    assert_eq!(config.base_url, "https://api.portone.io");
    assert!(!format!("{config:?}").contains(PORTONE_SECRET));
}

// ---------------------------------------------------------------- Demo

#[tokio::test]
async fn demo_sms_keeps_latest_code_per_phone() {
    let sms = DemoSms::new();
    assert!(sms.latest("01012345678", CodePurpose::Register).is_none());
    let before = Utc::now();

    sms.send_code("01012345678", "111111", CodePurpose::Register)
        .await
        .expect("sent");
    sms.send_code("01099998888", "333333", CodePurpose::Register)
        .await
        .expect("sent");
    sms.send_code("01012345678", "222222", CodePurpose::Register)
        .await
        .expect("sent");

    let latest = sms
        .latest("01012345678", CodePurpose::Register)
        .expect("remembered");
    assert_eq!(latest.phone, "01012345678");
    assert_eq!(latest.code, "222222");
    assert_eq!(latest.text, verification_text("222222"));
    assert!(latest.sent_at >= before && latest.sent_at <= Utc::now());
    assert_eq!(
        sms.latest("01099998888", CodePurpose::Register)
            .expect("remembered")
            .code,
        "333333"
    );
    assert!(sms.latest("01000000000", CodePurpose::Register).is_none());
    assert_eq!(sms.len(), 3);
}

#[tokio::test]
async fn demo_sms_keeps_purposes_apart() {
    let sms = DemoSms::new();
    sms.send_code("01012345678", "111111", CodePurpose::Register)
        .await
        .expect("sent");
    sms.send_code("01012345678", "222222", CodePurpose::Reset)
        .await
        .expect("sent");
    let register = sms
        .latest("01012345678", CodePurpose::Register)
        .expect("remembered");
    assert_eq!(
        register.code, "111111",
        "a later reset code does not hide it"
    );
    assert_eq!(register.purpose, CodePurpose::Register);
    assert_eq!(
        sms.latest("01012345678", CodePurpose::Reset)
            .expect("remembered")
            .code,
        "222222"
    );
    assert!(sms.latest("01099998888", CodePurpose::Reset).is_none());
}

#[tokio::test]
async fn demo_sms_is_bounded() {
    let sms = DemoSms::new();
    let total = DEMO_SMS_CAPACITY + 5;
    for i in 0..total {
        sms.send_code(
            &format!("010{i:08}"),
            &format!("{:06}", i % 1_000_000),
            CodePurpose::Register,
        )
        .await
        .expect("sent");
    }
    assert_eq!(sms.len(), DEMO_SMS_CAPACITY);
    const { assert!(DEMO_SMS_CAPACITY <= 1000) };
    for i in 0..5 {
        assert!(
            sms.latest(&format!("010{i:08}"), CodePurpose::Register)
                .is_none(),
            "{i} evicted"
        );
    }
    assert!(sms
        .latest(&format!("010{:08}", 5), CodePurpose::Register)
        .is_some());
    assert!(sms
        .latest(&format!("010{:08}", total - 1), CodePurpose::Register)
        .is_some());
}

#[tokio::test]
async fn demo_identity_verifies_its_own_ids_only() {
    let identity = DemoIdentity::new();
    let id = identity.new_verification_id();
    assert!(id.starts_with("demo-"), "{id}");
    assert_ne!(id, identity.new_verification_id());

    match identity.fetch(&id).await.expect("fetched") {
        IdentityOutcome::Verified(person) => {
            assert_eq!(person.name, "데모사용자");
            // It vouches for nobody in particular: no birthdate or phone to hold against
            // an account.
            assert_eq!((person.birth_date, person.phone), (None, None));
        }
        other => panic!("expected Verified, got {other:?}"),
    }
    assert_eq!(DEMO_PERSON_NAME, "데모사용자");
    assert_eq!(
        identity
            .fetch("identity-verification-123")
            .await
            .expect("fetched"),
        IdentityOutcome::NotFound
    );
    assert_eq!(
        identity.fetch("").await.expect("fetched"),
        IdentityOutcome::NotFound
    );
    assert!(identity.client_config().demo);
}

#[tokio::test]
async fn providers_work_as_trait_objects() {
    let demo_sms = Arc::new(DemoSms::new());
    let sms: Arc<dyn SmsSender> = demo_sms.clone();
    sms.send_code("01012345678", "654321", CodePurpose::Register)
        .await
        .expect("sent");
    assert_eq!(
        demo_sms
            .latest("01012345678", CodePurpose::Register)
            .expect("sent")
            .code,
        "654321"
    );

    let verifiers: Vec<Arc<dyn IdentityVerifier>> = vec![
        Arc::new(DemoIdentity::new()),
        Arc::new(portone_identity("http://127.0.0.1:9", PORTONE_SECRET)),
    ];
    assert!(verifiers[0].client_config().demo);
    assert!(!verifiers[1].client_config().demo);
}

// ---------------------------------------------------------------- Secret

#[test]
fn secret_debug_hides_value() {
    let secret = Secret::new("s3cr3t-value");
    let shown = format!("{secret:?}");
    assert_eq!(shown, "Secret(***)");
    assert!(!shown.contains("s3cr3t"));
    assert_eq!(secret.expose(), "s3cr3t-value");
    assert!(!format!("{:?}", Some(secret)).contains("s3cr3t"));
}
