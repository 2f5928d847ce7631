use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde_json::json;
use telepathy_domain::limits::IDENTITY_PREPARES_PER_USER;
use telepathy_providers::{
    IdentityClientConfig, IdentityOutcome, IdentityVerifier, ProviderError, VerifiedPerson,
};

use crate::helpers::TestApp;

crate::both!(
    demo_identity_verification,
    identity_id_messages,
    prepare_needs_a_login_and_is_limited,
    the_verified_person_must_be_the_account_holder,
);

async fn demo_identity_verification(mut app: TestApp) {
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    let a = app.post("/api/verify/prepare", json!({})).await;
    let prepared = a.assert_ok();
    assert_eq!(prepared["demo"], json!(true));
    let id = prepared["identityVerificationId"]
        .as_str()
        .unwrap()
        .to_owned();
    let a = app
        .post(
            "/api/verify/confirm",
            json!({ "identityVerificationId": id }),
        )
        .await;
    let confirmed = a.assert_ok();
    assert_eq!(confirmed["user"]["name"], json!("데모사용자"));
    let user = app
        .state
        .store
        .user_by_username("alice")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(user.real_name.as_deref(), Some("데모사용자"));
}

async fn identity_id_messages(mut app: TestApp) {
    let a = app
        .post(
            "/api/verify/confirm",
            json!({ "identityVerificationId": "" }),
        )
        .await;
    a.assert_error(400, "IDENTITY_ID_INVALID");
    assert_eq!(a.message(), "인증 ID가 유효하지 않습니다.");
    // An id the server never issued is refused even when the provider would accept it.
    app.post(
        "/api/verify/confirm",
        json!({ "identityVerificationId": "demo-forged" }),
    )
    .await
    .assert_error(400, "IDENTITY_ID_INVALID");
}

/// Only an account verifies its identity (the web app starts it from a logged-in page), and
/// each start stores a row: strangers start none, an account a few an hour.
async fn prepare_needs_a_login_and_is_limited(mut app: TestApp) {
    app.post("/api/verify/prepare", json!({}))
        .await
        .assert_error(401, "UNAUTHORIZED");
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    for _ in 0..IDENTITY_PREPARES_PER_USER {
        app.post("/api/verify/prepare", json!({})).await.assert_ok();
    }
    app.post("/api/verify/prepare", json!({}))
        .await
        .assert_error(429, "RATE_LIMITED");
}

/// A provider that vouches for whoever the test says.
struct Vouches(Mutex<VerifiedPerson>);

impl Vouches {
    fn set(&self, person: VerifiedPerson) {
        *self.0.lock().unwrap() = person;
    }
}

#[async_trait]
impl IdentityVerifier for Vouches {
    fn new_verification_id(&self) -> String {
        format!("identity-verification-{:016x}", rand::random::<u64>())
    }

    fn client_config(&self) -> IdentityClientConfig {
        IdentityClientConfig {
            store_id: "store-test".into(),
            channel_key: "channel-test".into(),
            demo: false,
        }
    }

    async fn fetch(&self, _id: &str) -> Result<IdentityOutcome, ProviderError> {
        Ok(IdentityOutcome::Verified(self.0.lock().unwrap().clone()))
    }
}

fn person(birth_date: Option<&str>, phone: Option<&str>) -> VerifiedPerson {
    VerifiedPerson {
        name: "김앨리".into(),
        phone: phone.map(str::to_owned),
        birth_date: birth_date.map(str::to_owned),
        gender: Some("FEMALE".into()),
    }
}

async fn confirm(app: &mut TestApp) -> crate::helpers::Answer {
    let a = app.post("/api/verify/prepare", json!({})).await;
    let id = a.assert_ok()["identityVerificationId"]
        .as_str()
        .unwrap()
        .to_owned();
    app.post(
        "/api/verify/confirm",
        json!({ "identityVerificationId": id }),
    )
    .await
}

/// A verification proves the account holder only when the person the provider vouches for
/// has the account's birthdate and, when the provider gives it, its phone: someone else's
/// verification neither marks the account verified nor gives it their name.
async fn the_verified_person_must_be_the_account_holder(app: TestApp) {
    let vouches = Arc::new(Vouches(Mutex::new(person(None, None))));
    let mut app = app.with_identity(vouches.clone()).await;
    // register_body: born 2000-01-01.
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    let real_name = |app: &TestApp| {
        let store = app.state.store.clone();
        async move {
            store
                .user_by_username("alice")
                .await
                .unwrap()
                .unwrap()
                .real_name
        }
    };

    for (who, birth_date, phone) in [
        ("another birthdate", Some("1995-03-04"), Some("01011112222")),
        ("another phone", Some("2000-01-01"), Some("01099998888")),
        ("no birthdate", None, Some("01011112222")),
    ] {
        vouches.set(person(birth_date, phone));
        let a = confirm(&mut app).await;
        a.assert_error(403, "IDENTITY_MISMATCH");
        assert_eq!(
            a.message(),
            "본인인증 정보가 가입 정보와 일치하지 않아요.",
            "{who}"
        );
        assert_eq!(real_name(&app).await, None, "{who}");
    }

    // The holder, with or without the phone in the answer.
    vouches.set(person(Some("2000-01-01"), None));
    confirm(&mut app).await.assert_ok();
    vouches.set(person(Some("2000-01-01"), Some("01011112222")));
    let a = confirm(&mut app).await;
    assert_eq!(a.assert_ok()["user"]["name"], json!("김앨리"));
    assert_eq!(real_name(&app).await.as_deref(), Some("김앨리"));
}
