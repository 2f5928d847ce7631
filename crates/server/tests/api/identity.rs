use serde_json::json;
use telepathy_domain::limits::IDENTITY_PREPARES_PER_USER;

use crate::helpers::TestApp;

crate::both!(
    demo_identity_verification,
    identity_id_messages,
    prepare_needs_a_login_and_is_limited,
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
