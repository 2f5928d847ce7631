use serde_json::json;

use crate::helpers::TestApp;

crate::both!(
    find_password_with_the_phone_code,
    reset_messages,
    reset_code_is_single_use,
    change_password_messages,
    change_keeps_this_session_and_ends_the_others,
);

async fn find_password_with_the_phone_code(mut app: TestApp) {
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    let other_session = app.cookie.take();
    let a = app
        .post("/api/password/check-user", json!({ "username": "alice" }))
        .await;
    assert_eq!(a.assert_ok()["exists"], json!(true));
    let a = app
        .post("/api/password/check-user", json!({ "username": "nobody" }))
        .await;
    assert_eq!(a.assert_ok()["exists"], json!(false));
    let a = app
        .post("/api/password/check-user", json!({ "username": "" }))
        .await;
    a.assert_error(400, "USERNAME_REQUIRED");

    app.pass_sms_cooldown("01011112222").await;
    let a = app
        .post("/api/password/send-code", json!({ "username": "alice" }))
        .await;
    assert_eq!(a.assert_ok()["maskedPhone"], json!("010-****-2222"));
    let code = app.reset_code("01011112222");
    app.post("/api/password/send-code", json!({ "username": "nobody" }))
        .await
        .assert_error(404, "NOT_FOUND");

    let a = app
        .post(
            "/api/password/reset",
            json!({ "username": "alice", "password": "newpass", "code": code }),
        )
        .await;
    assert_eq!(
        a.assert_ok()["message"],
        json!("비밀번호가 재설정되었어요.")
    );
    app.login("alice", "abcdefg1")
        .await
        .assert_error(401, "LOGIN_FAILED");
    app.login("alice", "newpass").await.assert_ok();
    app.cookie = other_session;
    assert!(!app.logged_in().await, "a reset ends every earlier session");
}

async fn reset_messages(mut app: TestApp) {
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    app.cookie = None;
    app.pass_sms_cooldown("01011112222").await;
    app.post("/api/password/send-code", json!({ "username": "alice" }))
        .await
        .assert_ok();
    let code = app.reset_code("01011112222");
    let wrong = if code == "000000" { "111111" } else { "000000" };
    let a = app
        .post(
            "/api/password/reset",
            json!({ "username": "alice", "password": "short", "code": code }),
        )
        .await;
    a.assert_error(400, "RESET_PASSWORD_MISMATCH");
    assert_eq!(a.message(), "비밀번호를 다시 확인해주세요.");
    let a = app
        .post("/api/password/reset", json!({ "username": "alice", "password": "newpass", "confirmPassword": "newpasz", "code": code }))
        .await;
    a.assert_error(400, "RESET_PASSWORD_MISMATCH");
    app.post(
        "/api/password/reset",
        json!({ "username": "alice", "password": "newpass", "code": "" }),
    )
    .await
    .assert_error(400, "CODE_REQUIRED");
    app.post(
        "/api/password/reset",
        json!({ "username": "alice", "password": "newpass", "code": wrong }),
    )
    .await
    .assert_error(400, "CODE_INVALID");
    // A sign-up code of the same phone cannot reset the password.
    app.login("alice", "abcdefg1").await.assert_ok();
}

async fn reset_code_is_single_use(mut app: TestApp) {
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    app.pass_sms_cooldown("01011112222").await;
    app.post("/api/password/send-code", json!({ "username": "alice" }))
        .await
        .assert_ok();
    let code = app.reset_code("01011112222");
    app.post(
        "/api/password/reset",
        json!({ "username": "alice", "password": "newpass", "code": code }),
    )
    .await
    .assert_ok();
    app.post(
        "/api/password/reset",
        json!({ "username": "alice", "password": "another", "code": code }),
    )
    .await
    .assert_error(400, "CODE_EXPIRED");
    app.login("alice", "newpass").await.assert_ok();
}

async fn change_password_messages(mut app: TestApp) {
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    let change =
        |current: &str, new: &str| json!({ "currentPassword": current, "newPassword": new });
    let a = app
        .post("/api/password/change", change("abcdefg1", "12345"))
        .await;
    a.assert_error(400, "NEW_PASSWORD_MISMATCH");
    assert_eq!(a.message(), "새 비밀번호를 다시 확인해주세요.");
    let a = app
        .post("/api/password/change", json!({ "currentPassword": "abcdefg1", "newPassword": "123456", "confirmPassword": "123457" }))
        .await;
    a.assert_error(400, "NEW_PASSWORD_MISMATCH");
    app.post("/api/password/change", change("wrong-one", "123456"))
        .await
        .assert_error(400, "CURRENT_PASSWORD_WRONG");
    let a = app
        .post("/api/password/change", change("abcdefg1", "123456"))
        .await;
    assert_eq!(
        a.assert_ok()["message"],
        json!("비밀번호가 변경되었습니다.")
    );
    app.login("alice", "123456").await.assert_ok();
}

async fn change_keeps_this_session_and_ends_the_others(mut app: TestApp) {
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    let phone_session = app.cookie.clone();
    app.login("alice", "abcdefg1").await.assert_ok();
    app.post(
        "/api/password/change",
        json!({ "currentPassword": "abcdefg1", "newPassword": "zxcvbn1" }),
    )
    .await
    .assert_ok();
    assert!(app.logged_in().await, "the session that changed it stays");
    app.cookie = phone_session;
    assert!(!app.logged_in().await, "every other session ends");
}
