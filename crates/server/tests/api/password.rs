use serde_json::json;
use telepathy_domain::limits::{CODE_MAX_ATTEMPTS, SMS_DAILY_PER_PHONE, SMS_DAILY_PER_PHONE_ALL};

use crate::helpers::TestApp;

const PHONE: &str = "01011112222";
const OWNER: &str = "198.51.100.7";
const STRANGER: &str = "203.0.113.66";
const ANOTHER_STRANGER: &str = "2001:db8:66::1";
/// A network alice never logged in from.
const NEW_NETWORK: &str = "192.0.2.44";

crate::both!(
    find_password_with_the_phone_code,
    reset_messages,
    reset_code_is_single_use,
    change_password_messages,
    change_keeps_this_session_and_ends_the_others,
    a_stranger_cannot_use_up_the_owners_codes,
    a_strangers_wrong_codes_spend_only_their_own_tries,
    a_strangers_new_code_leaves_the_owners_alone,
);

/// Knowing only a username, a stranger uses up their own network's share of the phone's
/// codes, not the owner's; strangers on several networks use up the phone's share of all
/// networks, but not for the browser the owner logged in on, nor for a new browser on a
/// network the owner logged in from.
async fn a_stranger_cannot_use_up_the_owners_codes(app: TestApp) {
    let mut app = app.with_vars(&[("TELEPATHY_TRUST_PROXY", "true")]).await;
    app.sign_up("alice", "abcdefg1", PHONE).await;
    app.cookie = None;
    // Alice logged in from home once.
    app.login_from(OWNER, "alice", "abcdefg1").await.assert_ok();
    let owners_device = app.device.take().expect("a login marks the device");
    app.cookie = None;
    app.flow = None;
    let send = json!({ "username": "alice" });
    let mut sent = 1; // the sign-up's code
    for _ in 0..SMS_DAILY_PER_PHONE {
        app.pass_sms_cooldown_from(STRANGER, PHONE).await;
        app.post_from(STRANGER, "/api/password/send-code", send.clone())
            .await
            .assert_ok();
        sent += 1;
    }
    app.pass_sms_cooldown_from(STRANGER, PHONE).await;
    app.post_from(STRANGER, "/api/password/send-code", send.clone())
        .await
        .assert_error(429, "SMS_DAILY_LIMIT");
    while sent < SMS_DAILY_PER_PHONE_ALL {
        app.pass_sms_cooldown_from(ANOTHER_STRANGER, PHONE).await;
        app.post_from(ANOTHER_STRANGER, "/api/password/send-code", send.clone())
            .await
            .assert_ok();
        sent += 1;
    }
    app.pass_sms_cooldown_from(ANOTHER_STRANGER, PHONE).await;
    app.post_from(ANOTHER_STRANGER, "/api/password/send-code", send.clone())
        .await
        .assert_error(429, "SMS_DAILY_LIMIT");
    // A new browser on a network alice never used waits for the next day.
    app.post_from(NEW_NETWORK, "/api/password/send-code", send.clone())
        .await
        .assert_error(429, "SMS_DAILY_LIMIT");
    // A new browser at home still gets its code, and the code works.
    app.flow = None;
    app.post_from(OWNER, "/api/password/send-code", send.clone())
        .await
        .assert_ok();
    let code = app.reset_code(PHONE);
    app.post_from(
        OWNER,
        "/api/password/reset",
        json!({ "username": "alice", "password": "newpass1", "code": code }),
    )
    .await
    .assert_ok();
    // From the browser alice logged in on, wherever it is, the code comes too.
    app.flow = None;
    app.device = Some(owners_device);
    app.post_from(NEW_NETWORK, "/api/password/send-code", send.clone())
        .await
        .assert_ok();
    let code = app.reset_code(PHONE);
    app.post_from(
        NEW_NETWORK,
        "/api/password/reset",
        json!({ "username": "alice", "password": "newpass2", "code": code }),
    )
    .await
    .assert_ok();
}

/// A stranger who asks for a code for the owner's username after the owner did (from
/// another network, or the same one) leaves the owner's code good: each browser's code is
/// its own.
async fn a_strangers_new_code_leaves_the_owners_alone(app: TestApp) {
    let mut app = app.with_vars(&[("TELEPATHY_TRUST_PROXY", "true")]).await;
    app.sign_up("alice", "abcdefg1", PHONE).await;
    app.cookie = None;
    app.device = None;
    app.flow = None;
    let send = json!({ "username": "alice" });
    app.post_from(OWNER, "/api/password/send-code", send.clone())
        .await
        .assert_ok();
    let code = app.reset_code(PHONE);
    let owners_browser = app.flow.take().expect("the owner's code flow");
    for stranger in [STRANGER, ANOTHER_STRANGER, OWNER] {
        app.flow = None;
        app.pass_sms_cooldown_from(stranger, PHONE).await;
        app.post_from(stranger, "/api/password/send-code", send.clone())
            .await
            .assert_ok();
        assert_ne!(app.flow.as_ref(), Some(&owners_browser));
    }
    app.flow = Some(owners_browser);
    app.post_from(
        OWNER,
        "/api/password/reset",
        json!({ "username": "alice", "password": "newpass1", "code": code }),
    )
    .await
    .assert_ok();
    app.login_from(OWNER, "alice", "newpass1").await.assert_ok();
}

/// Wrong codes from strangers on any number of networks, with or without a code of their
/// own, never reach the owner's code: the owner's right code still resets the password.
async fn a_strangers_wrong_codes_spend_only_their_own_tries(app: TestApp) {
    let mut app = app.with_vars(&[("TELEPATHY_TRUST_PROXY", "true")]).await;
    app.sign_up("alice", "abcdefg1", PHONE).await;
    app.cookie = None;
    app.device = None;
    app.flow = None;
    app.post_from(
        OWNER,
        "/api/password/send-code",
        json!({ "username": "alice" }),
    )
    .await
    .assert_ok();
    let code = app.reset_code(PHONE);
    let owners_browser = app.flow.take().expect("the owner's code flow");
    let wrong = if code == "000000" { "111111" } else { "000000" };
    let reset = |code: &str| json!({ "username": "alice", "password": "newpass1", "code": code });
    // A browser that asked for no code has none to try.
    for stranger in [STRANGER, ANOTHER_STRANGER, NEW_NETWORK] {
        for _ in 0..CODE_MAX_ATTEMPTS {
            app.post_from(stranger, "/api/password/reset", reset(wrong))
                .await
                .assert_error(400, "CODE_EXPIRED");
        }
    }
    // One that asked spends its own code's tries, whatever it types.
    app.post_from(
        STRANGER,
        "/api/password/send-code",
        json!({ "username": "alice" }),
    )
    .await
    .assert_ok();
    for _ in 0..CODE_MAX_ATTEMPTS - 1 {
        app.post_from(STRANGER, "/api/password/reset", reset(wrong))
            .await
            .assert_error(400, "CODE_INVALID");
    }
    app.post_from(STRANGER, "/api/password/reset", reset(wrong))
        .await
        .assert_error(400, "CODE_ATTEMPTS_EXCEEDED");
    app.post_from(STRANGER, "/api/password/reset", reset(&code))
        .await
        .assert_error(400, "CODE_ATTEMPTS_EXCEEDED");
    app.flow = Some(owners_browser);
    app.post_from(OWNER, "/api/password/reset", reset(&code))
        .await
        .assert_ok();
    app.login_from(OWNER, "alice", "newpass1").await.assert_ok();
}

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
            json!({ "username": "alice", "password": "newpass1", "code": code }),
        )
        .await;
    assert_eq!(
        a.assert_ok()["message"],
        json!("비밀번호가 재설정되었어요.")
    );
    app.login("alice", "abcdefg1")
        .await
        .assert_error(401, "LOGIN_FAILED");
    app.login("alice", "newpass1").await.assert_ok();
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
            json!({ "username": "alice", "password": "", "code": code }),
        )
        .await;
    a.assert_error(400, "RESET_PASSWORD_MISMATCH");
    assert_eq!(a.message(), "비밀번호를 다시 확인해주세요.");
    // No weaker than at sign-up: the rule is said in full.
    for weak in ["short", "newpass", "123456"] {
        let a = app
            .post(
                "/api/password/reset",
                json!({ "username": "alice", "password": weak, "code": code }),
            )
            .await;
        a.assert_error(400, "PASSWORD_WEAK");
        assert_eq!(
            a.message(),
            "비밀번호는 8자 이상이며, 영문/숫자/특수문자 중 2가지 이상을 포함해야 합니다."
        );
    }
    let a = app
        .post("/api/password/reset", json!({ "username": "alice", "password": "newpass1", "confirmPassword": "newpasz1", "code": code }))
        .await;
    a.assert_error(400, "RESET_PASSWORD_MISMATCH");
    app.post(
        "/api/password/reset",
        json!({ "username": "alice", "password": "newpass1", "code": "" }),
    )
    .await
    .assert_error(400, "CODE_REQUIRED");
    app.post(
        "/api/password/reset",
        json!({ "username": "alice", "password": "newpass1", "code": wrong }),
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
        json!({ "username": "alice", "password": "newpass1", "code": code }),
    )
    .await
    .assert_ok();
    app.post(
        "/api/password/reset",
        json!({ "username": "alice", "password": "another1", "code": code }),
    )
    .await
    .assert_error(400, "CODE_EXPIRED");
    app.login("alice", "newpass1").await.assert_ok();
}

async fn change_password_messages(mut app: TestApp) {
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    let change =
        |current: &str, new: &str| json!({ "currentPassword": current, "newPassword": new });
    let a = app
        .post("/api/password/change", change("abcdefg1", ""))
        .await;
    a.assert_error(400, "NEW_PASSWORD_MISMATCH");
    assert_eq!(a.message(), "새 비밀번호를 다시 확인해주세요.");
    // No weaker than at sign-up.
    for weak in ["12345", "123456", "abcdefgh"] {
        app.post("/api/password/change", change("abcdefg1", weak))
            .await
            .assert_error(400, "PASSWORD_WEAK");
    }
    let a = app
        .post("/api/password/change", json!({ "currentPassword": "abcdefg1", "newPassword": "1234567!", "confirmPassword": "1234568!" }))
        .await;
    a.assert_error(400, "NEW_PASSWORD_MISMATCH");
    app.post("/api/password/change", change("wrong-one", "1234567!"))
        .await
        .assert_error(400, "CURRENT_PASSWORD_WRONG");
    let a = app
        .post("/api/password/change", change("abcdefg1", "1234567!"))
        .await;
    assert_eq!(
        a.assert_ok()["message"],
        json!("비밀번호가 변경되었습니다.")
    );
    app.login("alice", "1234567!").await.assert_ok();
}

async fn change_keeps_this_session_and_ends_the_others(mut app: TestApp) {
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    let phone_session = app.cookie.clone();
    app.login("alice", "abcdefg1").await.assert_ok();
    app.post(
        "/api/password/change",
        json!({ "currentPassword": "abcdefg1", "newPassword": "zxcvbn12" }),
    )
    .await
    .assert_ok();
    assert!(app.logged_in().await, "the session that changed it stays");
    app.cookie = phone_session;
    assert!(!app.logged_in().await, "every other session ends");
}
