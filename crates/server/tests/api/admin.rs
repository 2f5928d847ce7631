//! The operations console: operators made on the command line, their password and TOTP
//! login, the report queue, resolutions and sanctions, and the audit log.

use std::time::Duration;

use chrono::{DateTime, Utc};
use clap::Parser;
use serde_json::{json, Value};
use telepathy_domain::Password;
use telepathy_server::cli::operator::execute;
use telepathy_server::cli::{Cli, Command};
use telepathy_server::clock::Clock;
use telepathy_store::NewReport;
use totp_rs::{Algorithm, Secret, TOTP};

use crate::helpers::{user_id, TestApp};
use crate::realtime::{pair, user};
use crate::ws_client::SOON;

crate::both!(
    a_user_session_is_no_operator_session,
    an_operator_needs_the_second_factor,
    enrolment_takes_a_right_code_once,
    wrong_codes_back_off,
    every_operator_action_is_audited_once,
    the_queue_is_oldest_first_and_due_in_a_day,
    a_ban_from_a_report_closes_the_socket_and_refuses_login,
    decisions_are_checked_and_suspensions_lift,
    a_disabled_operator_cannot_log_in,
    a_reset_authenticator_enrols_again,
    authenticator_secrets_are_kept_sealed,
    operator_sessions_are_short,
    an_operator_hides_a_comment_from_the_board,
    an_operator_hides_a_megaphone_from_every_screen,
);

const PASSWORD: &str = "Correct-horse-7";

/// Runs `telepathy operator <args>` on the app's store.
async fn cli(app: &TestApp, args: &[&str]) -> anyhow::Result<String> {
    let line = ["telepathy", "operator"].iter().chain(args);
    let Command::Operator(command) = Cli::try_parse_from(line)?.into_command() else {
        anyhow::bail!("not an operator command: {args:?}");
    };
    let password = Password::parse_operator(PASSWORD).unwrap();
    execute(
        &app.state.store,
        &command,
        Some(&password),
        app.clock.now_ms(),
    )
    .await
}

/// The code an authenticator app shows for `secret` at Unix second `at`, computed apart
/// from the server's own code.
fn code_at(secret: &str, at: u64) -> String {
    let bytes = Secret::Encoded(secret.to_owned()).to_bytes().unwrap();
    let totp = TOTP::new(Algorithm::SHA1, 6, 1, 30, bytes, None, "x".into()).unwrap();
    totp.generate(at)
}

fn secs(app: &TestApp) -> u64 {
    u64::try_from(app.clock.now().timestamp()).unwrap()
}

/// The code an authenticator app shows for `secret` at the app's clock.
fn code(app: &TestApp, secret: &str) -> String {
    code_at(secret, secs(app))
}

/// Lets the authenticator app show its next code.
fn next_step(app: &TestApp) {
    app.clock.advance(Duration::from_secs(30));
}

async fn admin_login(app: &mut TestApp, name: &str) -> crate::helpers::Answer {
    app.cookie = None;
    app.post(
        "/api/admin/login",
        json!({ "username": name, "password": PASSWORD }),
    )
    .await
}

/// Adds operator `name`, logs in, enrols an authenticator app; answers its secret. The
/// app's cookie is the operator's.
pub async fn operator(app: &mut TestApp, name: &str) -> String {
    cli(app, &["add", name]).await.unwrap();
    let login = admin_login(app, name).await;
    assert_eq!(login.assert_ok()["secondFactor"], json!("enroll"));
    let enrollment = app.get("/api/admin/totp/enrollment").await;
    let secret = enrollment.assert_ok()["secret"]
        .as_str()
        .unwrap()
        .to_owned();
    let code = code(app, &secret);
    app.post("/api/admin/totp", json!({ "code": code }))
        .await
        .assert_ok();
    secret
}

/// The database never holds an authenticator's secret in the clear: enrolment stores it
/// sealed with the data key, and one stored in the clear (as before secrets were sealed)
/// is sealed at a node's start and keeps working.
async fn authenticator_secrets_are_kept_sealed(mut app: TestApp) {
    let secret = operator(&mut app, "mina").await;
    let store = &app.state.store;
    let stored = store.totp_secrets().await.unwrap();
    assert_eq!(stored.len(), 1);
    let (id, sealed) = stored[0].clone();
    assert!(
        sealed.starts_with("v1:") && !sealed.contains(&secret),
        "{sealed}"
    );

    // As a database written before secrets were sealed holds it.
    assert!(store
        .replace_totp_secret(id, &sealed, &secret)
        .await
        .unwrap());
    let key = &app.state.config.data_key;
    assert_eq!(
        telepathy_server::security::totp::seal_stored_secrets(store, key)
            .await
            .unwrap(),
        1
    );
    assert_eq!(
        telepathy_server::security::totp::seal_stored_secrets(store, key)
            .await
            .unwrap(),
        0,
        "once"
    );
    let resealed = store.totp_secrets().await.unwrap()[0].1.clone();
    assert!(resealed.starts_with("v1:") && !resealed.contains(&secret));
    relogin(&mut app, "mina", &secret).await;
    app.get("/api/admin/dashboard").await.assert_ok();
}

/// Logs in again as `name`, enrolled with `secret`, at the next code.
async fn relogin(app: &mut TestApp, name: &str, secret: &str) {
    next_step(app);
    let login = admin_login(app, name).await;
    assert_eq!(login.assert_ok()["secondFactor"], json!("verify"));
    let code = code(app, secret);
    app.post("/api/admin/totp", json!({ "code": code }))
        .await
        .assert_ok();
}

async fn audit_lines(app: &TestApp) -> Vec<telepathy_store::AuditRow> {
    app.state.store.audit_page(None, 10_000).await.unwrap()
}

/// Asserts that exactly one audit line was added since `before` lines, naming `action`;
/// answers the new count.
#[track_caller]
fn one_more(lines: &[telepathy_store::AuditRow], before: usize, action: &str) -> usize {
    assert_eq!(
        lines.len(),
        before + 1,
        "one line for {action}: {:?}",
        &lines[..lines.len().min(3)]
    );
    assert_eq!(lines[0].action, action);
    lines.len()
}

fn ms(at: &Value) -> i64 {
    at.as_str()
        .unwrap()
        .parse::<DateTime<Utc>>()
        .unwrap()
        .timestamp_millis()
}

const CONSOLE: &[&str] = &[
    "/api/admin/dashboard",
    "/api/admin/reports",
    "/api/admin/reports/1",
    "/api/admin/users?q=alice",
    "/api/admin/users/1",
    "/api/admin/audit",
    "/api/admin/comments",
];

async fn a_user_session_is_no_operator_session(mut app: TestApp) {
    for path in CONSOLE {
        app.get(path).await.assert_error(401, "OPERATOR_ONLY");
    }
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    for path in CONSOLE.iter().chain(&["/api/admin/me"]) {
        app.get(path).await.assert_error(401, "OPERATOR_ONLY");
    }
    app.post(
        "/api/admin/reports/1/resolve",
        json!({ "action": "dismiss", "reason": "" }),
    )
    .await
    .assert_error(401, "OPERATOR_ONLY");
    app.post(
        "/api/admin/users/1/sanctions",
        json!({ "kind": "ban", "reason": "욕설" }),
    )
    .await
    .assert_error(401, "OPERATOR_ONLY");
    // A user's token under the operator cookie's name is still no operator session.
    let token = app.cookie.clone().unwrap();
    let token = token.strip_prefix("tp_session=").unwrap();
    app.cookie = Some(format!("tp_admin={token}"));
    app.get("/api/admin/dashboard")
        .await
        .assert_error(401, "OPERATOR_ONLY");
    // The user's own login is not an operator's either.
    app.cookie = None;
    app.post(
        "/api/admin/login",
        json!({ "username": "alice", "password": "abcdefg1" }),
    )
    .await
    .assert_error(401, "LOGIN_FAILED");
}

async fn an_operator_needs_the_second_factor(mut app: TestApp) {
    cli(&app, &["add", "mina"]).await.unwrap();
    let login = admin_login(&mut app, "mina").await;
    assert_eq!(login.assert_ok()["secondFactor"], json!("enroll"));
    let cookie = login.set_cookie.clone().unwrap();
    for attribute in ["tp_admin=", "HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(cookie.contains(attribute), "{attribute} in {cookie}");
    }
    for path in CONSOLE {
        app.get(path)
            .await
            .assert_error(401, "SECOND_FACTOR_REQUIRED");
    }
    app.post(
        "/api/admin/reports/1/resolve",
        json!({ "action": "dismiss", "reason": "" }),
    )
    .await
    .assert_error(401, "SECOND_FACTOR_REQUIRED");
    let me = app.get("/api/admin/me").await;
    assert_eq!(me.assert_ok()["username"], json!("mina"));
    assert_eq!(me.body["secondFactor"], json!(false));
    assert_eq!(me.body["totpEnrolled"], json!(false));
    // A pending session is no user session either.
    app.get("/api/auth/check").await.assert_ok();
    assert!(!app.logged_in().await);
}

async fn enrolment_takes_a_right_code_once(mut app: TestApp) {
    cli(&app, &["add", "mina"]).await.unwrap();
    admin_login(&mut app, "mina").await.assert_ok();
    app.post("/api/admin/totp", json!({ "code": "123456" }))
        .await
        .assert_error(400, "TOTP_NOT_STARTED");
    let first = app.get("/api/admin/totp/enrollment").await;
    let secret = first.assert_ok()["secret"].as_str().unwrap().to_owned();
    assert_eq!(
        first.body["otpauthUri"],
        json!(format!(
            "otpauth://totp/Telepathy:mina?secret={secret}&issuer=Telepathy"
        ))
    );
    assert!(first.body["qrSvg"].as_str().unwrap().contains("<svg"));
    let again = app.get("/api/admin/totp/enrollment").await;
    assert_eq!(
        again.assert_ok()["secret"],
        json!(secret),
        "kept until enrolled"
    );

    let right = code(&app, &secret);
    let wrong = format!("{:06}", (right.parse::<u32>().unwrap() + 1) % 1_000_000);
    app.post("/api/admin/totp", json!({ "code": wrong }))
        .await
        .assert_error(401, "TOTP_INVALID");
    app.post("/api/admin/totp", json!({ "code": "abcdef" }))
        .await
        .assert_error(401, "TOTP_INVALID");
    app.post("/api/admin/totp", json!({ "code": right }))
        .await
        .assert_ok();
    let me = app.get("/api/admin/me").await;
    assert_eq!(me.assert_ok()["secondFactor"], json!(true));
    assert_eq!(me.body["totpEnrolled"], json!(true));
    app.get("/api/admin/dashboard").await.assert_ok();
    app.get("/api/admin/totp/enrollment")
        .await
        .assert_error(409, "TOTP_ENROLLED");

    // The same code on a new login: used already.
    let login = admin_login(&mut app, "mina").await;
    assert_eq!(login.assert_ok()["secondFactor"], json!("verify"));
    app.get("/api/admin/totp/enrollment")
        .await
        .assert_error(409, "TOTP_ENROLLED");
    app.post("/api/admin/totp", json!({ "code": right }))
        .await
        .assert_error(401, "TOTP_INVALID");
    app.get("/api/admin/dashboard")
        .await
        .assert_error(401, "SECOND_FACTOR_REQUIRED");
    // The next step's code passes, and only once.
    next_step(&app);
    let next = code(&app, &secret);
    app.post("/api/admin/totp", json!({ "code": next }))
        .await
        .assert_ok();
    app.get("/api/admin/dashboard").await.assert_ok();
    admin_login(&mut app, "mina").await.assert_ok();
    app.post("/api/admin/totp", json!({ "code": next }))
        .await
        .assert_error(401, "TOTP_INVALID");
    // A code two steps old is refused though never used; one a step ahead (an app whose
    // clock runs fast) is taken, and then the current step's code is used up with it.
    app.clock.advance(Duration::from_secs(90));
    let now = secs(&app);
    app.post(
        "/api/admin/totp",
        json!({ "code": code_at(&secret, now - 60) }),
    )
    .await
    .assert_error(401, "TOTP_INVALID");
    app.post(
        "/api/admin/totp",
        json!({ "code": code_at(&secret, now + 30) }),
    )
    .await
    .assert_ok();
    admin_login(&mut app, "mina").await.assert_ok();
    app.post("/api/admin/totp", json!({ "code": code_at(&secret, now) }))
        .await
        .assert_error(401, "TOTP_INVALID");
}

async fn wrong_codes_back_off(mut app: TestApp) {
    let secret = operator(&mut app, "mina").await;
    next_step(&app);
    admin_login(&mut app, "mina").await.assert_ok();
    for _ in 0..5 {
        app.post("/api/admin/totp", json!({ "code": "000000" }))
            .await
            .assert_error(401, "TOTP_INVALID");
    }
    let right = code(&app, &secret);
    app.post("/api/admin/totp", json!({ "code": right }))
        .await
        .assert_error(429, "RATE_LIMITED");
    // Whatever the session: the back-off is the operator's.
    admin_login(&mut app, "mina").await.assert_ok();
    app.post("/api/admin/totp", json!({ "code": right }))
        .await
        .assert_error(429, "RATE_LIMITED");
    // Passwords back off per address as for users.
    for _ in 0..5 {
        app.cookie = None;
        app.post(
            "/api/admin/login",
            json!({ "username": "mina", "password": "Wrong-horse-7" }),
        )
        .await
        .assert_error(401, "LOGIN_FAILED");
    }
    admin_login(&mut app, "mina")
        .await
        .assert_error(429, "RATE_LIMITED");
}

async fn every_operator_action_is_audited_once(mut app: TestApp) {
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    app.sign_up("bobby", "abcdefg1", "01033334444").await;
    let (alice, bobby) = (user_id(&app, "alice").await, user_id(&app, "bobby").await);
    let now = app.clock.now_ms();
    let mut reports = Vec::new();
    for room in ["room-1", "room-2"] {
        let (id, _) = app
            .state
            .store
            .add_report(&NewReport {
                reporter_id: Some(alice),
                reported_id: bobby,
                room_id: room,
                reasons: &["harassment"],
                extra: "",
                now,
            })
            .await
            .unwrap();
        reports.push(id);
    }
    let mut n = audit_lines(&app).await.len();
    assert_eq!(n, 0);

    cli(&app, &["add", "mina"]).await.unwrap();
    n = one_more(&audit_lines(&app).await, n, "operator.add");
    let lines = audit_lines(&app).await;
    assert_eq!(
        (lines[0].operator.as_deref(), lines[0].ip.as_str()),
        (None, "cli")
    );
    assert!(lines[0].detail.contains("mina"));
    cli(&app, &["list"]).await.unwrap();
    n = one_more(&audit_lines(&app).await, n, "operator.list");

    app.cookie = None;
    app.post(
        "/api/admin/login",
        json!({ "username": "mina", "password": "Wrong-horse-7" }),
    )
    .await
    .assert_error(401, "LOGIN_FAILED");
    n = one_more(&audit_lines(&app).await, n, "operator.login_failed");
    admin_login(&mut app, "mina").await.assert_ok();
    n = one_more(&audit_lines(&app).await, n, "operator.login");
    let secret = app.get("/api/admin/totp/enrollment").await.assert_ok()["secret"]
        .as_str()
        .unwrap()
        .to_owned();
    n = one_more(&audit_lines(&app).await, n, "totp.enrollment");
    app.post("/api/admin/totp", json!({ "code": "000000" }))
        .await
        .assert_error(401, "TOTP_INVALID");
    n = one_more(&audit_lines(&app).await, n, "totp.failure");
    let right = code(&app, &secret);
    app.post("/api/admin/totp", json!({ "code": right }))
        .await
        .assert_ok();
    n = one_more(&audit_lines(&app).await, n, "totp.enrol");
    let lines = audit_lines(&app).await;
    assert_eq!(lines[0].operator.as_deref(), Some("mina"));

    // Lists and counts are not views of a person.
    for path in [
        "/api/admin/dashboard",
        "/api/admin/reports",
        "/api/admin/reports?status=closed",
        "/api/admin/audit",
        "/api/admin/me",
    ] {
        app.get(path).await.assert_ok();
    }
    assert_eq!(audit_lines(&app).await.len(), n);

    app.get(&format!("/api/admin/reports/{}", reports[0]))
        .await
        .assert_ok();
    n = one_more(&audit_lines(&app).await, n, "report.view");
    assert_eq!(audit_lines(&app).await[0].report_id, Some(reports[0]));
    app.get("/api/admin/users?q=bob").await.assert_ok();
    n = one_more(&audit_lines(&app).await, n, "user.search");
    app.get(&format!("/api/admin/users/{bobby}"))
        .await
        .assert_ok();
    n = one_more(&audit_lines(&app).await, n, "user.view");
    assert_eq!(audit_lines(&app).await[0].user_id, Some(bobby));
    app.post(
        &format!("/api/admin/reports/{}/resolve", reports[0]),
        json!({ "action": "warn", "reason": "욕설은 안 돼요" }),
    )
    .await
    .assert_ok();
    n = one_more(&audit_lines(&app).await, n, "report.resolve");
    app.post(
        &format!("/api/admin/reports/{}/resolve", reports[1]),
        json!({ "action": "dismiss", "reason": "" }),
    )
    .await
    .assert_ok();
    n = one_more(&audit_lines(&app).await, n, "report.resolve");
    // A refused action leaves no line.
    app.post(
        &format!("/api/admin/reports/{}/resolve", reports[1]),
        json!({ "action": "dismiss", "reason": "" }),
    )
    .await
    .assert_error(409, "REPORT_CLOSED");
    assert_eq!(audit_lines(&app).await.len(), n);
    let given = app
        .post(
            &format!("/api/admin/users/{bobby}/sanctions"),
            json!({ "kind": "suspend", "days": 3, "reason": "반복된 욕설" }),
        )
        .await;
    let sanction = given.assert_ok()["sanctionId"].as_i64().unwrap();
    n = one_more(&audit_lines(&app).await, n, "sanction.add");
    app.post(
        &format!("/api/admin/sanctions/{sanction}/lift"),
        json!({ "reason": "소명 확인" }),
    )
    .await
    .assert_ok();
    n = one_more(&audit_lines(&app).await, n, "sanction.lift");
    app.post("/api/admin/logout", json!({})).await.assert_ok();
    n = one_more(&audit_lines(&app).await, n, "operator.logout");
    next_step(&app);
    admin_login(&mut app, "mina").await.assert_ok();
    n = one_more(&audit_lines(&app).await, n, "operator.login");
    let right = code(&app, &secret);
    app.post("/api/admin/totp", json!({ "code": right }))
        .await
        .assert_ok();
    n = one_more(&audit_lines(&app).await, n, "totp.verify");

    // The console's audit page shows them, newest first, with who did them.
    let page = app.get("/api/admin/audit").await;
    let entries = page.assert_ok()["entries"].as_array().unwrap().clone();
    assert_eq!(entries.len(), n);
    assert_eq!(entries[0]["action"], json!("totp.verify"));
    assert_eq!(entries[0]["operator"], json!("mina"));
    assert_eq!(page.body["nextBefore"], Value::Null);
    let older = app
        .get(&format!(
            "/api/admin/audit?before={}",
            entries[1]["id"].as_i64().unwrap()
        ))
        .await;
    assert_eq!(
        older.assert_ok()["entries"].as_array().unwrap().len(),
        n - 2
    );

    cli(&app, &["reset-totp", "mina"]).await.unwrap();
    n = one_more(&audit_lines(&app).await, n, "operator.reset_totp");
    cli(&app, &["disable", "mina"]).await.unwrap();
    one_more(&audit_lines(&app).await, n, "operator.disable");
}

async fn the_queue_is_oldest_first_and_due_in_a_day(mut app: TestApp) {
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    app.sign_up("bobby", "abcdefg1", "01033334444").await;
    app.post(
        "/api/nickname/set-nickname",
        json!({ "nickname": "밤바다" }),
    )
    .await
    .assert_ok();
    let (alice, bobby) = (user_id(&app, "alice").await, user_id(&app, "bobby").await);
    let now = app.state.shared_clock.now_ms();
    let hour = 3_600_000;
    // Filed out of order: 2 hours ago, 30 hours ago (overdue), and a filter flag now.
    for (room, reporter, at) in [
        ("room-b", Some(alice), now - 2 * hour),
        ("room-a", Some(alice), now - 30 * hour),
        ("room-c", None, now),
    ] {
        app.state
            .store
            .add_report(&NewReport {
                reporter_id: reporter,
                reported_id: bobby,
                room_id: room,
                reasons: &["harassment", "sexual"],
                extra: "계속 이상한 말을 해요",
                now: at,
            })
            .await
            .unwrap();
    }
    operator(&mut app, "mina").await;
    let queue = app.get("/api/admin/reports").await;
    let reports = queue.assert_ok()["reports"].as_array().unwrap().clone();
    let rooms: Vec<&str> = reports
        .iter()
        .map(|r| r["roomId"].as_str().unwrap())
        .collect();
    assert_eq!(rooms, ["room-a", "room-b", "room-c"], "oldest first");
    for r in &reports {
        assert_eq!(
            ms(&r["dueAt"]) - ms(&r["createdAt"]),
            24 * hour,
            "due a day after: {r}"
        );
        assert_eq!(r["status"], json!("open"));
        assert_eq!(r["reasons"], json!(["욕설/비하", "성적인 발언/행위"]));
        assert_eq!(r["reported"]["username"], json!("bobby"));
        assert_eq!(r["reported"]["nickname"], json!("밤바다"));
    }
    let overdue: Vec<bool> = reports
        .iter()
        .map(|r| r["overdue"].as_bool().unwrap())
        .collect();
    assert_eq!(overdue, [true, false, false]);
    assert_eq!(reports[0]["source"], json!("user"));
    assert_eq!(reports[0]["reporter"]["id"], json!(alice));
    assert_eq!(reports[2]["source"], json!("filter"));
    assert_eq!(reports[2]["reporter"], Value::Null);
    assert_eq!(
        app.get("/api/admin/reports?status=open").await.body["reports"],
        json!(reports)
    );
    let closed = app.get("/api/admin/reports?status=closed").await;
    assert_eq!(closed.assert_ok()["reports"], json!([]));
    app.get("/api/admin/reports?status=everything")
        .await
        .assert_error(400, "INVALID_REQUEST");

    let dashboard = app.get("/api/admin/dashboard").await;
    assert_eq!(dashboard.assert_ok()["openReports"], json!(3));
    assert_eq!(dashboard.body["overdueReports"], json!(1));
    assert_eq!(dashboard.body["matchesToday"], json!(0));
    assert_eq!(dashboard.body["usersOnline"], json!(0));
    assert_eq!(dashboard.body["bellDevices"], json!(0));
    assert_eq!(
        dashboard.body["lastBell"],
        Value::Null,
        "no evening rang yet"
    );
}

async fn a_ban_from_a_report_closes_the_socket_and_refuses_login(mut app: TestApp) {
    let (mut a, cookie_a) = user(&mut app, "alice", "01011112222").await;
    let (mut b, _) = user(&mut app, "bobby", "01033334444").await;
    let (ma, _) = pair(&app, &mut a, &mut b).await;
    let room = ma["roomId"].as_str().unwrap().to_owned();
    let bobby = user_id(&app, "bobby").await;
    let alice = user_id(&app, "alice").await;
    a.say(&mut b, &room, "안녕하세요").await;
    a.expect("chatMessage").await;
    assert_eq!(
        b.say(&mut a, &room, "야 tlqkf").await["message"],
        json!("야 *****")
    );
    app.cookie = Some(cookie_a);
    app.post(
        "/api/report",
        json!({ "roomId": room, "reasons": ["욕설/비하"], "extraMessage": "욕을 했어요" }),
    )
    .await
    .assert_ok();

    operator(&mut app, "mina").await;
    let dashboard = app.get("/api/admin/dashboard").await;
    assert_eq!(dashboard.assert_ok()["usersOnline"], json!(2));
    assert_eq!(dashboard.body["openReports"], json!(1));
    let queue = app.get("/api/admin/reports").await;
    let report = queue.assert_ok()["reports"][0].clone();
    assert_eq!(report["roomId"], json!(room));
    assert_eq!(report["extra"], json!("욕을 했어요"));
    let id = report["id"].as_i64().unwrap();

    let detail = app.get(&format!("/api/admin/reports/{id}")).await;
    let detail = detail.assert_ok().clone();
    assert_eq!(detail["room"]["word"], ma["word"]);
    let lines: Vec<(String, String)> = detail["transcript"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["from"].as_str().unwrap().to_owned(),
                l["body"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        lines,
        [
            ("reporter".to_owned(), "안녕하세요".to_owned()),
            ("reported".to_owned(), "야 tlqkf".to_owned()),
        ],
        "what was said, unmasked"
    );
    assert_eq!(detail["transcript"][1]["senderId"], json!(bobby));
    assert_eq!(detail["reported"]["username"], json!("bobby"));
    assert_eq!(detail["reported"]["reportsAgainst"][0]["id"], json!(id));
    assert_eq!(detail["reported"]["restriction"], Value::Null);
    assert_eq!(detail["reporter"]["id"], json!(alice));
    assert_eq!(detail["reporter"]["reportsFiled"], json!(1));

    let resolved = app
        .post(
            &format!("/api/admin/reports/{id}/resolve"),
            json!({ "action": "ban", "reason": "심한 욕설" }),
        )
        .await;
    assert!(resolved.assert_ok()["sanctionId"].is_i64());
    let notice = b.expect("accountRestricted").await;
    assert_eq!(notice["kind"], json!("ban"));
    assert_eq!(notice["reason"], json!("심한 욕설"));
    // The socket closes, with a close frame after the notice.
    b.expect_close_frame_within(SOON).await.unwrap();

    app.post(
        &format!("/api/admin/reports/{id}/resolve"),
        json!({ "action": "dismiss", "reason": "" }),
    )
    .await
    .assert_error(409, "REPORT_CLOSED");
    let closed = app.get("/api/admin/reports?status=closed").await;
    let done = closed.assert_ok()["reports"][0].clone();
    assert_eq!(done["status"], json!("actioned"));
    assert_eq!(done["resolution"], json!("영구 정지: 심한 욕설"));
    assert_eq!(done["resolvedBy"], json!("mina"));
    assert!(app.get("/api/admin/reports").await.body["reports"]
        .as_array()
        .unwrap()
        .is_empty());

    app.cookie = None;
    let refused = app.login("bobby", "abcdefg1").await;
    refused.assert_error(403, "ACCOUNT_RESTRICTED");
    assert_eq!(refused.message(), notice["message"].as_str().unwrap());
    assert!(
        refused.message().contains("영구 정지"),
        "{}",
        refused.message()
    );
    assert!(refused.message().contains("심한 욕설"));
    a.close().await;
}

async fn decisions_are_checked_and_suspensions_lift(mut app: TestApp) {
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    app.sign_up("bobby", "abcdefg1", "01033334444").await;
    let (alice, bobby) = (user_id(&app, "alice").await, user_id(&app, "bobby").await);
    let (report, _) = app
        .state
        .store
        .add_report(&NewReport {
            reporter_id: Some(alice),
            reported_id: bobby,
            room_id: "room-1",
            reasons: &["threat"],
            extra: "",
            now: app.state.shared_clock.now_ms(),
        })
        .await
        .unwrap();
    let secret = operator(&mut app, "mina").await;
    let resolve = format!("/api/admin/reports/{report}/resolve");
    for (body, code) in [
        (
            json!({ "action": "suspend", "reason": "협박" }),
            "SANCTION_DAYS_INVALID",
        ),
        (
            json!({ "action": "suspend", "days": 0, "reason": "협박" }),
            "SANCTION_DAYS_INVALID",
        ),
        (
            json!({ "action": "suspend", "days": 366, "reason": "협박" }),
            "SANCTION_DAYS_INVALID",
        ),
        (
            json!({ "action": "warn", "reason": "  " }),
            "SANCTION_REASON_REQUIRED",
        ),
        (
            json!({ "action": "ban", "reason": "가".repeat(201) }),
            "SANCTION_REASON_TOO_LONG",
        ),
        (
            json!({ "action": "delete", "reason": "협박" }),
            "SANCTION_KIND_INVALID",
        ),
    ] {
        app.post(&resolve, body).await.assert_error(400, code);
    }
    app.post(
        "/api/admin/reports/999999/resolve",
        json!({ "action": "dismiss" }),
    )
    .await
    .assert_error(404, "NOT_FOUND");
    assert_eq!(
        app.get("/api/admin/reports").await.body["reports"][0]["status"],
        json!("open"),
        "refused decisions change nothing"
    );
    app.post(
        &resolve,
        json!({ "action": "suspend", "days": 7, "reason": "협박" }),
    )
    .await
    .assert_ok();

    app.cookie = None;
    let refused = app.login("bobby", "abcdefg1").await;
    refused.assert_error(403, "ACCOUNT_RESTRICTED");
    assert!(
        refused.message().contains("까지 이용이 정지"),
        "{}",
        refused.message()
    );
    let until = ms(&refused.body["restriction"]["until"]);
    assert_eq!(until, app.clock.now_ms() + 7 * 86_400_000);

    relogin(&mut app, "mina", &secret).await;
    let found = app.get(&format!("/api/admin/users?q={bobby}")).await;
    assert_eq!(found.assert_ok()["users"][0]["username"], json!("bobby"));
    let found = app.get("/api/admin/users?q=BOBBY").await;
    assert_eq!(found.assert_ok()["users"][0]["id"], json!(bobby));
    assert_eq!(
        app.get("/api/admin/users?q=").await.body["users"],
        json!([])
    );
    let page = app.get(&format!("/api/admin/users/{bobby}")).await;
    let page = page.assert_ok().clone();
    assert_eq!(page["user"]["phone"], json!("010-****-4444"));
    assert_eq!(page["restriction"]["kind"], json!("suspend"));
    assert_eq!(page["sanctions"][0]["kind"], json!("suspend"));
    assert_eq!(page["sanctions"][0]["active"], json!(true));
    assert_eq!(page["sanctions"][0]["operator"], json!("mina"));
    assert_eq!(page["sanctions"][0]["reportId"], json!(report));
    assert_eq!(
        page["reportsAgainst"][0]["resolution"],
        json!("7일 정지: 협박")
    );
    assert_eq!(page["reportsFiled"], json!([]));
    app.get("/api/admin/users/999999")
        .await
        .assert_error(404, "NOT_FOUND");

    let sanction = page["sanctions"][0]["id"].as_i64().unwrap();
    let lift = format!("/api/admin/sanctions/{sanction}/lift");
    app.post(&lift, json!({ "reason": "" }))
        .await
        .assert_error(400, "SANCTION_REASON_REQUIRED");
    app.post(&lift, json!({ "reason": "오해로 확인" }))
        .await
        .assert_ok();
    app.post(&lift, json!({ "reason": "오해로 확인" }))
        .await
        .assert_error(409, "SANCTION_LIFTED");
    let page = app.get(&format!("/api/admin/users/{bobby}")).await;
    assert_eq!(page.assert_ok()["restriction"], Value::Null);
    assert_eq!(page.body["sanctions"][0]["active"], json!(false));
    app.cookie = None;
    app.login("bobby", "abcdefg1").await.assert_ok();
}

async fn a_disabled_operator_cannot_log_in(mut app: TestApp) {
    let secret = operator(&mut app, "mina").await;
    app.get("/api/admin/dashboard").await.assert_ok();
    let session = app.cookie.clone();
    let said = cli(&app, &["disable", "mina"]).await.unwrap();
    assert!(said.contains("mina"), "{said}");
    app.get("/api/admin/dashboard")
        .await
        .assert_error(401, "OPERATOR_ONLY");
    app.get("/api/admin/me")
        .await
        .assert_error(401, "OPERATOR_ONLY");
    next_step(&app);
    admin_login(&mut app, "mina")
        .await
        .assert_error(401, "LOGIN_FAILED");
    let lines = audit_lines(&app).await;
    assert_eq!(lines[0].action, "operator.login_failed");
    assert!(lines[0].detail.contains("사용 중지"), "{}", lines[0].detail);
    // A code on the old session does not bring it back.
    app.cookie = session;
    let code = code(&app, &secret);
    app.post("/api/admin/totp", json!({ "code": code }))
        .await
        .assert_error(401, "OPERATOR_ONLY");
    assert!(cli(&app, &["disable", "mina"]).await.is_err(), "once");
    assert!(cli(&app, &["disable", "nobody"]).await.is_err());
    assert!(
        cli(&app, &["add", "mina"]).await.is_err(),
        "names stay taken"
    );
    let list = cli(&app, &["list"]).await.unwrap();
    assert!(list.contains("mina\t등록됨"), "{list}");
    assert!(list.contains("사용 중지"), "{list}");
}

async fn a_reset_authenticator_enrols_again(mut app: TestApp) {
    let old = operator(&mut app, "mina").await;
    cli(&app, &["reset-totp", "mina"]).await.unwrap();
    app.get("/api/admin/dashboard")
        .await
        .assert_error(401, "OPERATOR_ONLY");
    next_step(&app);
    let login = admin_login(&mut app, "mina").await;
    assert_eq!(login.assert_ok()["secondFactor"], json!("enroll"));
    let new = app.get("/api/admin/totp/enrollment").await.assert_ok()["secret"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_ne!(new, old);
    let stale = code(&app, &old);
    app.post("/api/admin/totp", json!({ "code": stale }))
        .await
        .assert_error(401, "TOTP_INVALID");
    let fresh = code(&app, &new);
    app.post("/api/admin/totp", json!({ "code": fresh }))
        .await
        .assert_ok();
    app.get("/api/admin/dashboard").await.assert_ok();
}

async fn operator_sessions_are_short(mut app: TestApp) {
    let minute = Duration::from_secs(60);
    let secret = operator(&mut app, "mina").await;
    // Each use moves the idle deadline 30 minutes on.
    app.clock.advance(20 * minute);
    app.get("/api/admin/dashboard").await.assert_ok();
    app.clock.advance(25 * minute);
    app.get("/api/admin/dashboard").await.assert_ok();
    let me = app.get("/api/admin/me").await;
    assert_eq!(
        ms(&me.assert_ok()["expiresAt"]),
        app.clock.now_ms() + 30 * 60_000
    );
    app.clock.advance(31 * minute);
    app.get("/api/admin/dashboard")
        .await
        .assert_error(401, "OPERATOR_ONLY");

    // However busy, a session ends 12 hours after its login.
    relogin(&mut app, "mina", &secret).await;
    for _ in 0..(12 * 60 / 25) {
        app.clock.advance(25 * minute);
        app.get("/api/admin/dashboard").await.assert_ok();
    }
    app.clock.advance(25 * minute);
    app.get("/api/admin/dashboard")
        .await
        .assert_error(401, "OPERATOR_ONLY");
}

async fn an_operator_hides_a_comment_from_the_board(mut app: TestApp) {
    app.cookie = None;
    let posted = app
        .post("/api/comments", json!({ "content": "광고 보러 오세요" }))
        .await;
    let id = posted.assert_ok()["comment"]["id"].as_i64().unwrap();
    operator(&mut app, "ops_kim").await;
    let review = app.get("/api/admin/comments").await;
    assert_eq!(
        review.assert_ok()["comments"][0]["content"],
        json!("광고 보러 오세요")
    );
    let before = audit_lines(&app).await.len();
    let path = format!("/api/admin/comments/{id}/hide");
    app.post(&path, json!({ "reason": "" }))
        .await
        .assert_error(400, "SANCTION_REASON_REQUIRED");
    app.post(&path, json!({ "reason": "광고" }))
        .await
        .assert_ok();
    one_more(&audit_lines(&app).await, before, "comment.hide");
    app.post(&path, json!({ "reason": "광고" }))
        .await
        .assert_error(404, "NOT_FOUND");
    // Gone from the board, still in the review with when it was hidden.
    assert_eq!(app.get("/api/comments").await.body, json!([]));
    let review = app.get("/api/admin/comments").await;
    assert!(review.assert_ok()["comments"][0]["hiddenAt"].is_string());
}

async fn an_operator_hides_a_megaphone_from_every_screen(mut app: TestApp) {
    let (mut listener, _) = crate::realtime::user(&mut app, "bobby", "01033334444").await;
    let (mut sender, _) = crate::realtime::user(&mut app, "alice", "01011112222").await;
    crate::payments::buy(&mut app, "megaphone_1").await;
    sender
        .send("megaphone:send", json!({ "message": "광고 보러 오세요" }))
        .await;
    let id = listener.expect("megaphone").await["id"].clone();

    app.cookie = None;
    app.get("/api/admin/megaphones")
        .await
        .assert_error(401, "OPERATOR_ONLY");
    operator(&mut app, "ops_kim").await;
    let review = app.get("/api/admin/megaphones").await;
    let listed = &review.assert_ok()["megaphones"][0];
    assert_eq!(listed["message"], json!("광고 보러 오세요"));
    assert_eq!(listed["nickname"], json!("닉alice"));
    assert_eq!(listed["userId"], json!(user_id(&app, "alice").await));

    let before = audit_lines(&app).await.len();
    let path = format!("/api/admin/megaphones/{id}/hide");
    app.post(&path, json!({ "reason": "" }))
        .await
        .assert_error(400, "SANCTION_REASON_REQUIRED");
    app.post(&path, json!({ "reason": "광고" }))
        .await
        .assert_ok();
    one_more(&audit_lines(&app).await, before, "megaphone.hide");
    assert_eq!(listener.expect("megaphoneHidden").await["id"], id);
    app.post(&path, json!({ "reason": "광고" }))
        .await
        .assert_error(404, "NOT_FOUND");
    let review = app.get("/api/admin/megaphones").await;
    assert!(review.assert_ok()["megaphones"][0]["hiddenAt"].is_string());
}
