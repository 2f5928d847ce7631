use std::time::Duration;

use serde_json::json;

use crate::helpers::TestApp;

crate::both!(
    nickname_rules,
    nickname_is_kept_for_a_month,
    nicknames_are_checked_before_saving
);

async fn nickname_rules(mut app: TestApp) {
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    let set = |n: &str| json!({ "nickname": n });
    let a = app.post("/api/nickname/set-nickname", set("  ")).await;
    a.assert_error(400, "NICKNAME_REQUIRED");
    assert_eq!(a.message(), "닉네임을 입력해주세요.");
    app.post("/api/nickname/set-nickname", set("달 빛"))
        .await
        .assert_error(400, "NICKNAME_INVALID");
    let abusive = app.post("/api/nickname/set-nickname", set("tlqkf놈")).await;
    abusive.assert_error(400, "CONTENT_NOT_ALLOWED");
    assert_eq!(
        abusive.message(),
        "부적절한 표현이 포함되어 있어요. 다른 표현을 사용해주세요."
    );
    app.post("/api/nickname/set-nickname", set("moon!"))
        .await
        .assert_error(400, "NICKNAME_INVALID");
    app.post("/api/nickname/set-nickname", set(&"가".repeat(21)))
        .await
        .assert_error(400, "NICKNAME_INVALID");
    app.post("/api/nickname/set-nickname", set("달빛Moon7"))
        .await
        .assert_ok();
    let p = app.get("/api/nickname/profile").await;
    assert_eq!(p.assert_ok()["nickname"], json!("달빛Moon7"));
}

async fn nickname_is_kept_for_a_month(mut app: TestApp) {
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    app.post("/api/nickname/set-nickname", json!({ "nickname": "달빛" }))
        .await
        .assert_ok();
    app.clock.advance(Duration::from_secs(29 * 24 * 3600));
    let a = app
        .post("/api/nickname/set-nickname", json!({ "nickname": "별빛" }))
        .await;
    a.assert_error(400, "NICKNAME_LOCKED");
    app.post("/api/nickname/set-nickname", json!({ "nickname": "달빛" }))
        .await
        .assert_ok();
    app.clock.advance(Duration::from_secs(2 * 24 * 3600));
    assert!(!app.logged_in().await, "sessions last 30 days");
    app.login("alice", "abcdefg1").await.assert_ok();
    app.post("/api/nickname/set-nickname", json!({ "nickname": "별빛" }))
        .await
        .assert_ok();
    assert_eq!(
        app.get("/api/nickname/profile").await.body["nickname"],
        json!("별빛")
    );
}

/// The check the web app runs as a nickname is typed answers what saving would, for every
/// nickname case of the abuse filter's table, and saves nothing.
async fn nicknames_are_checked_before_saving(mut app: TestApp) {
    let check = |n: &str| json!({ "nickname": n });
    app.post("/api/nickname/check", check("달빛"))
        .await
        .assert_error(401, "UNAUTHORIZED");
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    let table: serde_json::Value = serde_json::from_str(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/moderation-cases.json"
    )))
    .unwrap();
    for case in table["nicknames"].as_array().unwrap() {
        let input = case["input"].as_str().unwrap();
        let answer = app.post("/api/nickname/check", check(input)).await;
        match case["nickname_error"].as_str() {
            Some(code) => answer.assert_error(400, code),
            None => {
                answer.assert_ok();
            }
        }
    }
    app.post("/api/nickname/check", check("달 빛"))
        .await
        .assert_error(400, "NICKNAME_INVALID");
    let p = app.get("/api/nickname/profile").await;
    assert!(p.assert_ok()["nickname"].is_null(), "nothing saved");
}
