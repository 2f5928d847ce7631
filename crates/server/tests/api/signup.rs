use std::time::Duration;

use serde_json::json;

use futures_util::future::join_all;
use telepathy_domain::limits::{
    CODE_MAX_ATTEMPTS, LOOKUPS_PER_IP, SMS_DAILY_PER_IP, SMS_DAILY_PER_PHONE,
};

use telepathy_server::clock::Clock;

use crate::helpers::{
    register_body, user_id, TestApp, ORIGIN, OUTBOX_TOKEN, UNREACHABLE_PROVIDERS,
};

crate::both!(
    username_check_messages,
    sign_up_end_to_end,
    register_needs_a_verified_phone,
    register_validation_messages,
    consents_are_recorded_with_their_version,
    under_fourteen_is_refused_before_the_code,
    codes_expire_and_are_single_use,
    wrong_codes_are_limited,
    parallel_wrong_codes_are_limited,
    codes_are_bound_to_their_phone,
    verified_phone_goes_stale,
    sms_cooldown_and_daily_cap,
    a_capped_address_charges_no_phone,
    an_ipv6_network_shares_one_daily_cap,
    a_strangers_wrong_codes_spare_the_owners_sign_up,
    failed_sends_charge_no_phone,
    phone_in_use_is_behind_the_lookup_limit,
    one_active_account_per_phone,
    phone_validation_messages,
);

async fn username_check_messages(mut app: TestApp) {
    let check = |name: &'static str| json!({ "username": name });
    app.post("/api/auth/check-username", check(""))
        .await
        .assert_error(400, "USERNAME_REQUIRED");
    let a = app.post("/api/auth/check-username", check("")).await;
    assert_eq!(a.message(), "아이디를 입력해주세요.");
    app.post("/api/auth/check-username", check("ab"))
        .await
        .assert_error(400, "USERNAME_INVALID");
    let a = app.post("/api/auth/check-username", check("alice")).await;
    assert_eq!(a.assert_ok()["isAvailable"], json!(true));
    assert_eq!(a.message(), "사용 가능한 아이디입니다.");
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    let a = app.post("/api/auth/check-username", check("alice")).await;
    assert_eq!(a.assert_ok()["isAvailable"], json!(false));
    assert_eq!(a.message(), "이미 사용 중인 아이디입니다.");
}

async fn sign_up_end_to_end(mut app: TestApp) {
    assert!(!app.logged_in().await);
    app.post("/api/verify-mvp/send", json!({ "phone": "010-1111-2222" }))
        .await
        .assert_ok();
    let code = app.outbox_code("01011112222").await;
    assert_eq!(code.len(), 6);
    assert!(code.chars().all(|c| c.is_ascii_digit()));
    let wrong = if code == "000000" { "111111" } else { "000000" };
    let a = app
        .post(
            "/api/verify-mvp/check",
            json!({ "phone": "01011112222", "code": wrong }),
        )
        .await;
    a.assert_error(400, "CODE_INVALID");
    assert_eq!(a.message(), "인증번호가 올바르지 않습니다.");
    app.post(
        "/api/verify-mvp/check",
        json!({ "phone": "01011112222", "code": code }),
    )
    .await
    .assert_ok();
    let a = app
        .post(
            "/api/register",
            register_body("alice", "abcdefg1", "010-1111-2222"),
        )
        .await;
    a.assert_ok();
    let cookie = a.set_cookie.expect("a session cookie");
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"),
        "{cookie}"
    );
    assert!(app.logged_in().await);
    let profile = app.get("/api/nickname/profile").await;
    let p = profile.assert_ok();
    assert_eq!(p["username"], json!("alice"));
    assert_eq!(p["nickname"], json!(null));
    assert_eq!(p["user_id"], p["id"]);
    assert_eq!(p["userId"], p["id"]);
}

async fn register_needs_a_verified_phone(mut app: TestApp) {
    let a = app
        .post(
            "/api/register",
            register_body("alice", "abcdefg1", "01011112222"),
        )
        .await;
    a.assert_error(400, "PHONE_NOT_VERIFIED");
    assert!(app.cookie.is_none());
    // A code sent but not checked is not a verification either.
    app.post("/api/verify-mvp/send", json!({ "phone": "01011112222" }))
        .await
        .assert_ok();
    let a = app
        .post(
            "/api/register",
            register_body("alice", "abcdefg1", "01011112222"),
        )
        .await;
    a.assert_error(400, "PHONE_NOT_VERIFIED");
    let free = app
        .post("/api/auth/check-username", json!({ "username": "alice" }))
        .await;
    assert_eq!(free.body["isAvailable"], json!(true), "nothing was stored");
}

async fn register_validation_messages(mut app: TestApp) {
    app.verify_phone("01011112222").await;
    let cases = [
        (
            json!({ "username": "", "password": "abcdefg1" }),
            "FIELDS_REQUIRED",
            "모든 정보를 입력해주세요.",
        ),
        (
            json!({ "username": "alice", "password": "" }),
            "FIELDS_REQUIRED",
            "모든 정보를 입력해주세요.",
        ),
        (
            json!({ "username": "a!", "password": "abcdefg1" }),
            "USERNAME_INVALID",
            "",
        ),
        (
            json!({ "username": "alice", "password": "abcdefgh" }),
            "PASSWORD_WEAK",
            "비밀번호는 8자 이상이며, 영문/숫자/특수문자 중 2가지 이상을 포함해야 합니다.",
        ),
        (
            json!({ "username": "alice", "password": "a1".repeat(33) }),
            "PASSWORD_TOO_LONG",
            "",
        ),
        (
            json!({ "username": "alice", "password": "abcdefg1", "phone": "" }),
            "PHONE_REQUIRED",
            "전화번호를 입력해주세요.",
        ),
        (
            json!({ "username": "alice", "password": "abcdefg1", "phone": "021234567" }),
            "PHONE_INVALID",
            "",
        ),
        (
            json!({ "username": "alice", "password": "abcdefg1", "phone": "01011112222", "gender": "기타" }),
            "GENDER_INVALID",
            "",
        ),
        (
            json!({ "username": "alice", "password": "abcdefg1", "phone": "01011112222", "gender": "남성", "birthdate": "20001301" }),
            "BIRTHDATE_INVALID",
            "",
        ),
        // The app's clock stands at 2026-11-22 (Seoul): born 2012-11-23 is 13.
        (
            json!({ "username": "alice", "password": "abcdefg1", "phone": "01011112222", "gender": "남성", "birthdate": "2012-11-23" }),
            "UNDER_AGE",
            "만 14세 미만은 가입할 수 없어요.",
        ),
    ];
    for (body, code, message) in cases {
        let a = app.post("/api/register", body.clone()).await;
        a.assert_error(400, code);
        if !message.is_empty() {
            assert_eq!(a.message(), message, "{body}");
        }
    }
    // Fourteen today is old enough, and the verification was not spent by the refusals.
    let mut ok = json!({ "username": "alice", "password": "abcdefg1", "phone": "01011112222", "gender": "남성", "birthdate": "20121122", "service": true, "privacy": true, "youth": true });
    // Without any one of the three required terms: refused, and nothing is spent.
    for required in ["service", "privacy", "youth"] {
        let mut without = ok.clone();
        without[required] = json!(false);
        let a = app.post("/api/register", without).await;
        a.assert_error(400, "TERMS_REQUIRED");
        assert_eq!(
            a.message(),
            "필수 약관에 모두 동의해야 서비스를 이용할 수 있어요."
        );
    }
    ok["improve"] = json!(true);
    app.post("/api/register", ok).await.assert_ok();
}

/// Each terms answer of a registration is kept with its time and the version of the text;
/// the notification consent given and withdrawn later on My page adds to the same ledger.
async fn consents_are_recorded_with_their_version(mut app: TestApp) {
    app.verify_phone("01011112222").await;
    let mut body = register_body("alice", "abcdefg1", "01011112222");
    body["alarm"] = json!(true);
    app.post("/api/register", body).await.assert_ok();
    let id = user_id(&app, "alice").await;
    let registered_at = app.clock.now_ms();
    let ledger = |rows: Vec<telepathy_store::ConsentRow>| -> Vec<(String, String, i64, i64)> {
        rows.into_iter()
            .map(|r| (r.terms, r.version, r.agreed, r.at))
            .collect()
    };
    let at_signup = ["service", "privacy", "youth", "alarm"]
        .map(|t| (t.to_owned(), "2026-12-01".to_owned(), 1, registered_at));
    assert_eq!(
        ledger(app.state.store.consents_of(id).await.unwrap()),
        at_signup.to_vec(),
        "improve was not ticked"
    );

    app.clock.advance(Duration::from_secs(60));
    app.post("/api/push/consent", json!({ "agree": false }))
        .await
        .assert_ok();
    // Withdrawing twice is one withdrawal.
    app.post("/api/push/consent", json!({ "agree": false }))
        .await
        .assert_ok();
    let rows = ledger(app.state.store.consents_of(id).await.unwrap());
    assert_eq!(rows.len(), 5);
    assert_eq!(
        rows[4],
        (
            "alarm".to_owned(),
            "2026-12-01".to_owned(),
            0,
            registered_at + 60_000
        )
    );
}

/// Someone under 14 who gives their birthdate first is refused before any code is sent.
async fn under_fourteen_is_refused_before_the_code(mut app: TestApp) {
    // The app's clock stands at 2026-11-22 (Seoul): born 2012-11-23 is 13.
    let a = app
        .post(
            "/api/verify-mvp/send",
            json!({ "phone": "01011112222", "birthdate": "2012-11-23" }),
        )
        .await;
    a.assert_error(400, "UNDER_AGE");
    app.read_outbox("01011112222", Some(OUTBOX_TOKEN))
        .await
        .assert_error(404, "NOT_FOUND");
    app.post(
        "/api/verify-mvp/send",
        json!({ "phone": "01011112222", "birthdate": "20121122" }),
    )
    .await
    .assert_ok();
    app.outbox_code("01011112222").await;
}

async fn codes_expire_and_are_single_use(mut app: TestApp) {
    app.post("/api/verify-mvp/send", json!({ "phone": "01011112222" }))
        .await
        .assert_ok();
    let code = app.outbox_code("01011112222").await;
    app.clock.advance(Duration::from_secs(181));
    let a = app
        .post(
            "/api/verify-mvp/check",
            json!({ "phone": "01011112222", "code": code }),
        )
        .await;
    a.assert_error(400, "CODE_EXPIRED");

    app.pass_sms_cooldown("01011112222").await;
    app.post("/api/verify-mvp/send", json!({ "phone": "01011112222" }))
        .await
        .assert_ok();
    let code = app.outbox_code("01011112222").await;
    app.post(
        "/api/verify-mvp/check",
        json!({ "phone": "01011112222", "code": "" }),
    )
    .await
    .assert_error(400, "CODE_REQUIRED");
    app.clock.advance(Duration::from_secs(179));
    app.post(
        "/api/verify-mvp/check",
        json!({ "phone": "01011112222", "code": code }),
    )
    .await
    .assert_ok();
    app.post(
        "/api/verify-mvp/check",
        json!({ "phone": "01011112222", "code": code }),
    )
    .await
    .assert_error(400, "CODE_EXPIRED");
}

async fn wrong_codes_are_limited(mut app: TestApp) {
    app.post("/api/verify-mvp/send", json!({ "phone": "01011112222" }))
        .await
        .assert_ok();
    let code = app.outbox_code("01011112222").await;
    let wrong = if code == "000000" { "111111" } else { "000000" };
    for _ in 0..4 {
        app.post(
            "/api/verify-mvp/check",
            json!({ "phone": "01011112222", "code": wrong }),
        )
        .await
        .assert_error(400, "CODE_INVALID");
    }
    app.post(
        "/api/verify-mvp/check",
        json!({ "phone": "01011112222", "code": wrong }),
    )
    .await
    .assert_error(400, "CODE_ATTEMPTS_EXCEEDED");
    app.post(
        "/api/verify-mvp/check",
        json!({ "phone": "01011112222", "code": code }),
    )
    .await
    .assert_error(400, "CODE_ATTEMPTS_EXCEEDED");
    let a = app
        .post(
            "/api/register",
            register_body("alice", "abcdefg1", "01011112222"),
        )
        .await;
    a.assert_error(400, "PHONE_NOT_VERIFIED");
}

/// Wrong tries sent all at once are held to the same five as tries one after another: no
/// more than five are ever compared with the code.
async fn parallel_wrong_codes_are_limited(mut app: TestApp) {
    app.post("/api/verify-mvp/send", json!({ "phone": "01011112222" }))
        .await
        .assert_ok();
    let code = app.outbox_code("01011112222").await;
    let wrong = if code == "000000" { "111111" } else { "000000" };
    let body = json!({ "phone": "01011112222", "code": wrong });
    let flow = app.flow.clone().expect("the browser's code flow");
    let tries = (0..50).map(|_| {
        app.client
            .post("/api/verify-mvp/check")
            .header("origin", ORIGIN)
            .header("cookie", &flow)
            .body_json(&body)
            .send()
    });
    let mut invalid = 0;
    for resp in join_all(tries).await {
        let text = resp.0.into_body().into_string().await.unwrap();
        let body: serde_json::Value = serde_json::from_str(&text).unwrap();
        match body["code"].as_str().unwrap() {
            "CODE_INVALID" => invalid += 1,
            "CODE_ATTEMPTS_EXCEEDED" => {}
            other => panic!("unexpected answer {other}"),
        }
    }
    assert_eq!(
        invalid,
        CODE_MAX_ATTEMPTS - 1,
        "four wrong tries are told so"
    );
    let stored = app
        .state
        .store
        .latest_phone_code("01011112222", "register", &app.flow_digest())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        stored.attempts, CODE_MAX_ATTEMPTS,
        "no try beyond the fifth was counted"
    );
    app.post(
        "/api/verify-mvp/check",
        json!({ "phone": "01011112222", "code": code }),
    )
    .await
    .assert_error(400, "CODE_ATTEMPTS_EXCEEDED");
}

async fn codes_are_bound_to_their_phone(mut app: TestApp) {
    app.post("/api/verify-mvp/send", json!({ "phone": "01011112222" }))
        .await
        .assert_ok();
    let code = app.outbox_code("01011112222").await;
    app.post(
        "/api/verify-mvp/check",
        json!({ "phone": "01033334444", "code": code }),
    )
    .await
    .assert_error(400, "CODE_EXPIRED");
    app.post(
        "/api/verify-mvp/check",
        json!({ "phone": "01011112222", "code": code }),
    )
    .await
    .assert_ok();
    app.post(
        "/api/register",
        register_body("alice", "abcdefg1", "01033334444"),
    )
    .await
    .assert_error(400, "PHONE_NOT_VERIFIED");
}

async fn verified_phone_goes_stale(mut app: TestApp) {
    app.verify_phone("01011112222").await;
    app.clock.advance(Duration::from_secs(16 * 60));
    app.post(
        "/api/register",
        register_body("alice", "abcdefg1", "01011112222"),
    )
    .await
    .assert_error(400, "PHONE_NOT_VERIFIED");
}

async fn sms_cooldown_and_daily_cap(mut app: TestApp) {
    let send = json!({ "phone": "01011112222" });
    app.post("/api/verify-mvp/send", send.clone())
        .await
        .assert_ok();
    let a = app.post("/api/verify-mvp/send", send.clone()).await;
    a.assert_error(429, "SMS_COOLDOWN");
    for _ in 0..4 {
        app.pass_sms_cooldown("01011112222").await;
        app.post("/api/verify-mvp/send", send.clone())
            .await
            .assert_ok();
    }
    app.pass_sms_cooldown("01011112222").await;
    app.post("/api/verify-mvp/send", send.clone())
        .await
        .assert_error(429, "SMS_DAILY_LIMIT");
    // Another phone from the same address still gets its code.
    app.post("/api/verify-mvp/send", json!({ "phone": "01033334444" }))
        .await
        .assert_ok();
}

/// An address past its daily cap is refused before the phone it names is charged, so it
/// cannot hold a stranger's phone in its cooldown or use up its daily codes.
async fn a_capped_address_charges_no_phone(app: TestApp) {
    let mut app = app.with_vars(&[("TELEPATHY_TRUST_PROXY", "true")]).await;
    let attacker = "203.0.113.66";
    for i in 0..SMS_DAILY_PER_IP {
        app.post_from(
            attacker,
            "/api/verify-mvp/send",
            json!({ "phone": format!("0105555{i:04}") }),
        )
        .await
        .assert_ok();
    }
    for _ in 0..SMS_DAILY_PER_PHONE + 1 {
        app.post_from(
            attacker,
            "/api/verify-mvp/send",
            json!({ "phone": "01011112222" }),
        )
        .await
        .assert_error(429, "SMS_DAILY_LIMIT");
    }
    app.post_from(
        "198.51.100.7",
        "/api/verify-mvp/send",
        json!({ "phone": "01011112222" }),
    )
    .await
    .assert_ok();
}

/// Every address of one IPv6 /56 counts as one address for the daily cap.
async fn an_ipv6_network_shares_one_daily_cap(app: TestApp) {
    let mut app = app.with_vars(&[("TELEPATHY_TRUST_PROXY", "true")]).await;
    for i in 0..SMS_DAILY_PER_IP {
        app.post_from(
            &format!("2001:db8:77:{:x}::{i}", i % 256),
            "/api/verify-mvp/send",
            json!({ "phone": format!("0105555{i:04}") }),
        )
        .await
        .assert_ok();
    }
    app.post_from(
        "2001:db8:77:ff::99",
        "/api/verify-mvp/send",
        json!({ "phone": "01011112222" }),
    )
    .await
    .assert_error(429, "SMS_DAILY_LIMIT");
    app.post_from(
        "2001:db8:78::1",
        "/api/verify-mvp/send",
        json!({ "phone": "01011112222" }),
    )
    .await
    .assert_ok();
}

/// A stranger's wrong codes for a phone not yet registered use up the stranger's tries,
/// not the code the owner is about to type: a code is tried only from the browser it was
/// sent for, and the code a stranger asks for is the stranger's own.
async fn a_strangers_wrong_codes_spare_the_owners_sign_up(app: TestApp) {
    let mut app = app.with_vars(&[("TELEPATHY_TRUST_PROXY", "true")]).await;
    let (owner, stranger) = ("198.51.100.7", "203.0.113.66");
    let send = json!({ "phone": "01011112222" });
    app.post_from(owner, "/api/verify-mvp/send", send.clone())
        .await
        .assert_ok();
    let code = app.outbox_code("01011112222").await;
    let owners_browser = app
        .flow
        .take()
        .expect("a code flow for the owner's browser");
    let wrong = if code == "000000" { "111111" } else { "000000" };
    let check = |code: &str| json!({ "phone": "01011112222", "code": code });
    // A browser that asked for no code has none to try, not even the right one.
    app.post_from(stranger, "/api/verify-mvp/check", check(&code))
        .await
        .assert_error(400, "CODE_EXPIRED");
    // The stranger's own code, and its tries, are the stranger's.
    app.post_from(stranger, "/api/verify-mvp/send", send.clone())
        .await
        .assert_ok();
    assert!(app.flow.is_some());
    for _ in 0..CODE_MAX_ATTEMPTS {
        let a = app
            .post_from(stranger, "/api/verify-mvp/check", check(wrong))
            .await;
        assert!(
            matches!(a.code(), "CODE_INVALID" | "CODE_ATTEMPTS_EXCEEDED"),
            "{a:?}"
        );
    }
    app.post_from(stranger, "/api/verify-mvp/check", check(&code))
        .await
        .assert_error(400, "CODE_ATTEMPTS_EXCEEDED");
    app.flow = Some(owners_browser);
    app.post_from(owner, "/api/verify-mvp/check", check(&code))
        .await
        .assert_ok();
    app.post_from(
        owner,
        "/api/register",
        register_body("alice", "abcdefg1", "01011112222"),
    )
    .await
    .assert_ok();
}

/// A phone's cooldown and daily codes are charged only for an SMS that went out.
async fn failed_sends_charge_no_phone(app: TestApp) {
    // Every send fails.
    let mut app = app.with_vars(UNREACHABLE_PROVIDERS).await;
    for _ in 0..SMS_DAILY_PER_PHONE + 2 {
        app.post("/api/verify-mvp/send", json!({ "phone": "01011112222" }))
            .await
            .assert_error(502, "SMS_SEND_FAILED");
    }
}

/// Whether a phone has an account is told only within the look-up limit of the address.
async fn phone_in_use_is_behind_the_lookup_limit(mut app: TestApp) {
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    app.cookie = None;
    let mut refused = false;
    for _ in 0..=LOOKUPS_PER_IP {
        let a = app
            .post("/api/auth/check-username", json!({ "username": "bob12" }))
            .await;
        if a.status == 429 {
            refused = true;
            break;
        }
    }
    assert!(refused, "look-ups are limited");
    app.post("/api/verify-mvp/send", json!({ "phone": "01011112222" }))
        .await
        .assert_error(429, "RATE_LIMITED");
    app.post(
        "/api/register",
        register_body("bob12", "abcdefg1", "01011112222"),
    )
    .await
    .assert_error(429, "RATE_LIMITED");
}

async fn one_active_account_per_phone(mut app: TestApp) {
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    let a = app
        .post("/api/verify-mvp/send", json!({ "phone": "010-1111-2222" }))
        .await;
    a.assert_error(409, "PHONE_IN_USE");
    assert_eq!(a.message(), "이미 가입된 전화번호예요.");
}

async fn phone_validation_messages(mut app: TestApp) {
    let a = app
        .post("/api/verify-mvp/send", json!({ "phone": "" }))
        .await;
    a.assert_error(400, "PHONE_REQUIRED");
    assert_eq!(a.message(), "전화번호를 입력해주세요.");
    app.post("/api/verify-mvp/send", json!({ "phone": "12345" }))
        .await
        .assert_error(400, "PHONE_INVALID");
    let a = app
        .post(
            "/api/verify-mvp/check",
            json!({ "phone": "01011112222", "code": " " }),
        )
        .await;
    a.assert_error(400, "CODE_REQUIRED");
    assert_eq!(a.message(), "인증번호를 입력해주세요.");
}
