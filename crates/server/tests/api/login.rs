use serde_json::json;
use telepathy_domain::limits::{
    LOGINS_PER_ACCOUNT, LOGIN_ACCOUNT_BACKOFF, LOGIN_BACKOFF, LOGIN_PER_IP,
};

use crate::helpers::TestApp;

const ATTACKER: &str = "203.0.113.66";
const OWNER: &str = "198.51.100.7";

crate::both!(
    login_failures_say_little,
    login_issues_a_new_session,
    logout_revokes_the_session,
    login_attempts_are_limited,
    an_attacker_cannot_lock_the_owner_out,
    a_login_clears_the_failures,
    successful_logins_are_limited,
    guesses_spread_over_addresses_are_limited,
    a_neighbour_does_not_lock_the_owner_out,
    an_ipv6_network_is_one_address,
    an_address_has_an_overall_limit,
    withdrawal_ends_every_session,
    requests_need_a_session,
    only_a_known_username_costs_a_hash,
    a_refused_login_costs_no_hash,
);

const HASHED_KNOWN: &str = "telepathy_login_hashes_total{op=\"known\"}";
const HASHED_OTHER: &str = "telepathy_login_hashes_total{op=\"other\"}";

/// A login for a username nobody has is refused without a hash (it is counted as a
/// look-up); a wrong password costs one, in the lane of the browser it comes from.
async fn only_a_known_username_costs_a_hash(mut app: TestApp) {
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    app.cookie = None;
    let (known, other) = (app.metric(HASHED_KNOWN), app.metric(HASHED_OTHER));
    for i in 0..3 {
        app.login(&format!("nobody{i}"), "abcdefg1")
            .await
            .assert_error(401, "LOGIN_FAILED");
    }
    assert_eq!(
        app.metric(HASHED_OTHER),
        other,
        "no hash for an unknown username"
    );
    // From the browser alice signed up on, her login takes the known lane.
    app.login("alice", "abcdefg2")
        .await
        .assert_error(401, "LOGIN_FAILED");
    assert_eq!(app.metric(HASHED_KNOWN), known + 1.0);
    app.device = None;
    app.login("alice", "abcdefg2")
        .await
        .assert_error(401, "LOGIN_FAILED");
    assert_eq!(app.metric(HASHED_OTHER), other + 1.0);
}

/// An account past its logins of the window is refused before its password is hashed,
/// and a wrong password leaves the count of its logins as it was.
async fn a_refused_login_costs_no_hash(app: TestApp) {
    let mut app = app.with_vars(&[("TELEPATHY_TRUST_PROXY", "true")]).await;
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    for i in 0..LOGINS_PER_ACCOUNT {
        if i == 1 {
            // Wrong passwords between are not logins.
            for _ in 0..3 {
                app.login_from(OWNER, "alice", "wrong-pass1")
                    .await
                    .assert_error(401, "LOGIN_FAILED");
            }
        }
        app.login_from(OWNER, "alice", "abcdefg1").await.assert_ok();
    }
    let hashed = app.metric(HASHED_KNOWN) + app.metric(HASHED_OTHER);
    for ip in [OWNER, ATTACKER] {
        app.login_from(ip, "alice", "abcdefg1")
            .await
            .assert_error(429, "RATE_LIMITED");
    }
    assert_eq!(
        app.metric(HASHED_KNOWN) + app.metric(HASHED_OTHER),
        hashed,
        "a refused login costs no hash"
    );
}

async fn login_failures_say_little(mut app: TestApp) {
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    app.cookie = None;
    let wrong = app.login("alice", "abcdefg2").await;
    wrong.assert_error(401, "LOGIN_FAILED");
    let unknown = app.login("nobody", "abcdefg1").await;
    unknown.assert_error(401, "LOGIN_FAILED");
    assert_eq!(
        wrong.message(),
        unknown.message(),
        "no hint which part was wrong"
    );
    assert_eq!(wrong.message(), "아이디 또는 비밀번호가 올바르지 않아요.");
    app.login("", "").await.assert_error(400, "FIELDS_REQUIRED");
    app.login("x", "abcdefg1")
        .await
        .assert_error(401, "LOGIN_FAILED");
    assert!(!app.logged_in().await);
}

async fn login_issues_a_new_session(mut app: TestApp) {
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    let first = app.cookie.clone().unwrap();
    let a = app.login("Alice", "abcdefg1").await;
    a.assert_ok();
    let second = app.cookie.clone().unwrap();
    assert_ne!(first, second, "a fresh token at every login");
    assert!(app.logged_in().await);
}

async fn logout_revokes_the_session(mut app: TestApp) {
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    let token = app.cookie.clone().unwrap();
    let a = app.post("/api/auth/logout", json!({})).await;
    a.assert_ok();
    assert!(a.set_cookie.unwrap().contains("Max-Age=0"));
    // The old token, replayed, is dead on the server, not merely forgotten by the browser.
    app.cookie = Some(token);
    assert!(!app.logged_in().await);
    app.get("/api/nickname/profile")
        .await
        .assert_error(401, "UNAUTHORIZED");
}

async fn login_attempts_are_limited(mut app: TestApp) {
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    app.cookie = None;
    for _ in 0..LOGIN_BACKOFF[0].0 {
        app.login("alice", "wrong-pass1")
            .await
            .assert_error(401, "LOGIN_FAILED");
    }
    // The address that failed waits, even with the right password.
    let a = app.login("alice", "abcdefg1").await;
    a.assert_error(429, "RATE_LIMITED");
    assert_eq!(
        a.message(),
        "요청이 너무 많아요. 잠시 후 다시 시도해주세요."
    );
    assert!(app.cookie.is_none());
}

/// Failures are counted per username and address: however often a stranger fails for
/// alice, alice still logs in from her own address.
async fn an_attacker_cannot_lock_the_owner_out(app: TestApp) {
    let mut app = app.with_vars(&[("TELEPATHY_TRUST_PROXY", "true")]).await;
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    // Neither the stranger nor the owner's new device has a device cookie of alice's.
    app.cookie = None;
    app.device = None;
    let (first, _) = LOGIN_BACKOFF[0];
    for i in 0..first + 10 {
        let a = app.login_from(ATTACKER, "alice", "wrong-pass1").await;
        if i < first {
            a.assert_error(401, "LOGIN_FAILED");
        } else {
            a.assert_error(429, "RATE_LIMITED");
        }
    }
    app.login_from(ATTACKER, "alice", "abcdefg1")
        .await
        .assert_error(429, "RATE_LIMITED");
    assert!(app.cookie.is_none());
    app.login_from(OWNER, "alice", "abcdefg1").await.assert_ok();
    assert!(app.logged_in().await);
}

/// A login that succeeds clears the failures of its address for that username.
async fn a_login_clears_the_failures(app: TestApp) {
    let mut app = app.with_vars(&[("TELEPATHY_TRUST_PROXY", "true")]).await;
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    app.device = None;
    let (first, _) = LOGIN_BACKOFF[0];
    for _ in 0..2 {
        for _ in 0..first - 1 {
            app.login_from(OWNER, "alice", "wrong-pass1")
                .await
                .assert_error(401, "LOGIN_FAILED");
        }
        app.login_from(OWNER, "alice", "abcdefg1").await.assert_ok();
        app.device = None;
    }
}

/// One account gets a few fresh sessions a window, however right its password: each login
/// costs an Argon2id hash and leaves a session row for 30 days.
async fn successful_logins_are_limited(app: TestApp) {
    let mut app = app.with_vars(&[("TELEPATHY_TRUST_PROXY", "true")]).await;
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    app.sign_up("bobby", "abcdefg1", "01033334444").await;
    for _ in 0..LOGINS_PER_ACCOUNT {
        app.login_from(OWNER, "alice", "abcdefg1").await.assert_ok();
    }
    app.cookie = None;
    let a = app.login_from(ATTACKER, "alice", "abcdefg1").await;
    a.assert_error(429, "RATE_LIMITED");
    assert!(app.cookie.is_none(), "no session past the limit");
    // Another account from the same address is not held back.
    app.login_from(OWNER, "bobby", "abcdefg1").await.assert_ok();
}

/// Guesses for one username spread over many addresses are held back for the username,
/// but not the devices that logged in to it before.
async fn guesses_spread_over_addresses_are_limited(app: TestApp) {
    let mut app = app.with_vars(&[("TELEPATHY_TRUST_PROXY", "true")]).await;
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    let owners_device = app.device.take().expect("sign-up marks the device");
    app.cookie = None;
    let (limit, _) = LOGIN_ACCOUNT_BACKOFF[0];
    for i in 0..limit {
        app.login_from(&format!("203.0.113.{i}"), "alice", "wrong-pass1")
            .await
            .assert_error(401, "LOGIN_FAILED");
    }
    app.login_from("203.0.113.200", "alice", "wrong-pass1")
        .await
        .assert_error(429, "RATE_LIMITED");
    // A new device, even the owner's, waits too.
    app.login_from(OWNER, "alice", "abcdefg1")
        .await
        .assert_error(429, "RATE_LIMITED");
    // The browser that logged in before does not.
    app.device = Some(owners_device);
    app.login_from(OWNER, "alice", "abcdefg1").await.assert_ok();
}

/// An address that failed too often for everyone still lets the owner's own device in.
async fn a_neighbour_does_not_lock_the_owner_out(app: TestApp) {
    let mut app = app.with_vars(&[("TELEPATHY_TRUST_PROXY", "true")]).await;
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    let owners_device = app.device.take().expect("sign-up marks the device");
    app.cookie = None;
    for i in 0..LOGIN_PER_IP {
        app.login_from(OWNER, &format!("user{i}"), "wrong-pass1")
            .await
            .assert_error(401, "LOGIN_FAILED");
    }
    app.login_from(OWNER, "alice", "abcdefg1")
        .await
        .assert_error(429, "RATE_LIMITED");
    app.device = Some(owners_device);
    app.login_from(OWNER, "alice", "abcdefg1").await.assert_ok();
}

/// Every address of one IPv6 /56 is one neighbour: its failures for a username share one
/// back-off.
async fn an_ipv6_network_is_one_address(app: TestApp) {
    let mut app = app.with_vars(&[("TELEPATHY_TRUST_PROXY", "true")]).await;
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    app.device = None;
    app.cookie = None;
    let (first, _) = LOGIN_BACKOFF[0];
    for i in 0..first {
        app.login_from(&format!("2001:db8:77:{i}::{i}"), "alice", "wrong-pass1")
            .await
            .assert_error(401, "LOGIN_FAILED");
    }
    app.login_from("2001:db8:77:ff::1", "alice", "abcdefg1")
        .await
        .assert_error(429, "RATE_LIMITED");
    // Another customer's /56 is another neighbour.
    app.login_from("2001:db8:77:100::1", "alice", "abcdefg1")
        .await
        .assert_ok();
}

/// An address that fails for many usernames is held back as a whole.
async fn an_address_has_an_overall_limit(app: TestApp) {
    let mut app = app.with_vars(&[("TELEPATHY_TRUST_PROXY", "true")]).await;
    for i in 0..LOGIN_PER_IP {
        app.login_from(ATTACKER, &format!("user{i}"), "wrong-pass1")
            .await
            .assert_error(401, "LOGIN_FAILED");
    }
    app.login_from(ATTACKER, "someone", "wrong-pass1")
        .await
        .assert_error(429, "RATE_LIMITED");
    app.login_from(OWNER, "someone", "wrong-pass1")
        .await
        .assert_error(401, "LOGIN_FAILED");
}

async fn withdrawal_ends_every_session(mut app: TestApp) {
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    let first = app.cookie.clone().unwrap();
    app.login("alice", "abcdefg1").await.assert_ok();
    let a = app.post("/api/auth/withdraw", json!({})).await;
    assert_eq!(a.assert_ok()["message"], json!("회원 탈퇴가 완료되었어요."));
    assert!(!app.logged_in().await);
    app.cookie = Some(first);
    assert!(!app.logged_in().await, "the other session ended too");
    app.cookie = None;
    app.login("alice", "abcdefg1")
        .await
        .assert_error(401, "LOGIN_FAILED");
    // The phone is free again for a new account.
    app.pass_sms_cooldown("01011112222").await;
    app.sign_up("alice2", "abcdefg1", "01011112222").await;
}

async fn requests_need_a_session(mut app: TestApp) {
    for path in ["/api/nickname/profile"] {
        app.get(path).await.assert_error(401, "UNAUTHORIZED");
    }
    for path in [
        "/api/auth/withdraw",
        "/api/nickname/set-nickname",
        "/api/password/change",
    ] {
        let a = app.post(path, json!({ "nickname": "달빛", "currentPassword": "abcdefg1", "newPassword": "abcdefg2" })).await;
        a.assert_error(401, "UNAUTHORIZED");
        assert_eq!(a.message(), "로그인이 필요해요.");
    }
    app.cookie = Some("tp_session=forged".into());
    app.get("/api/nickname/profile")
        .await
        .assert_error(401, "UNAUTHORIZED");
}
