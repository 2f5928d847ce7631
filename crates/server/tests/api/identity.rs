use serde_json::json;

use crate::helpers::TestApp;

crate::both!(demo_identity_verification, identity_id_messages);

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
