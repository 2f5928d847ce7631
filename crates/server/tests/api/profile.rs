use std::time::Duration;

use serde_json::json;

use telepathy_server::clock::Clock;

use crate::helpers::TestApp;

crate::both!(
    nickname_rules,
    nickname_is_kept_for_a_month,
    nicknames_are_checked_before_saving,
    a_nickname_belongs_to_one_account,
    the_profile_says_when_the_nickname_may_change
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

/// Nobody takes a nickname another active account holds, in any case: neither the check
/// nor the save; a withdrawal frees it.
async fn a_nickname_belongs_to_one_account(mut app: TestApp) {
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    app.post(
        "/api/nickname/set-nickname",
        json!({ "nickname": "MoonCat" }),
    )
    .await
    .assert_ok();
    // Her own nickname is hers to check and save again.
    app.post("/api/nickname/check", json!({ "nickname": "mooncat" }))
        .await
        .assert_ok();
    app.post("/api/auth/logout", json!({})).await.assert_ok();

    app.sign_up("bobby", "abcdefg1", "01033334444").await;
    for taken in ["MoonCat", "mooncat", "MOONCAT"] {
        let check = app
            .post("/api/nickname/check", json!({ "nickname": taken }))
            .await;
        check.assert_error(409, "NICKNAME_TAKEN");
        assert_eq!(
            check.message(),
            "이미 사용 중인 닉네임이에요. 다른 닉네임을 정해주세요."
        );
        app.post("/api/nickname/set-nickname", json!({ "nickname": taken }))
            .await
            .assert_error(409, "NICKNAME_TAKEN");
    }
    app.post(
        "/api/nickname/set-nickname",
        json!({ "nickname": "MoonCat2" }),
    )
    .await
    .assert_ok();
    app.post("/api/auth/logout", json!({})).await.assert_ok();

    app.login("alice", "abcdefg1").await.assert_ok();
    app.post("/api/auth/withdraw", json!({})).await.assert_ok();
    app.sign_up("carol", "abcdefg1", "01055556666").await;
    app.post(
        "/api/nickname/set-nickname",
        json!({ "nickname": "mooncat" }),
    )
    .await
    .assert_ok();
}

/// My page offers a change once the month is over: until then the profile says when.
async fn the_profile_says_when_the_nickname_may_change(mut app: TestApp) {
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    let profile = app.get("/api/nickname/profile").await;
    assert!(profile.assert_ok().get("nickname_changeable_at").is_none());
    app.post("/api/nickname/set-nickname", json!({ "nickname": "달빛" }))
        .await
        .assert_ok();
    let set_at = app.clock.now_ms();
    let profile = app.get("/api/nickname/profile").await;
    let at = profile.assert_ok()["nickname_changeable_at"]
        .as_str()
        .expect("a time while the nickname is kept")
        .to_owned();
    let at = chrono::DateTime::parse_from_rfc3339(&at).unwrap();
    assert_eq!(at.timestamp_millis(), set_at + 30 * 24 * 3600 * 1000);

    app.clock.advance(Duration::from_secs(30 * 24 * 3600));
    app.login("alice", "abcdefg1").await.assert_ok();
    let profile = app.get("/api/nickname/profile").await;
    assert!(profile.assert_ok().get("nickname_changeable_at").is_none());
    app.post("/api/nickname/set-nickname", json!({ "nickname": "별빛" }))
        .await
        .assert_ok();
}
