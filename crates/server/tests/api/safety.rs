//! Reports and restrictions, end to end: a report ends the chat and keeps the pair apart;
//! a suspended or banned user is told why at login and on their open socket.

use std::time::Duration;

use serde_json::json;
use telepathy_store::NewReport;

use crate::helpers::{sanction, user_id, TestApp};
use crate::realtime::{pair, user};
use crate::ws_client::SOON;

crate::both!(
    a_report_ends_the_chat_with_the_last_words_archived,
    only_a_partner_can_be_reported_and_a_report_says_something,
    a_chat_that_ended_can_still_be_reported,
    a_restricted_user_is_told_why_at_login_and_on_the_socket,
    a_warning_waits_for_its_user_until_they_confirm_it,
    the_filter_flags_a_chat_after_repeated_abuse,
    housekeeping_lifts_suspensions_and_erases_withdrawn_accounts,
    the_reports_waiting_and_overdue_are_measured,
);

async fn a_report_ends_the_chat_with_the_last_words_archived(mut app: TestApp) {
    let (mut a, cookie_a) = user(&mut app, "alice", "01011112222").await;
    let (mut b, _) = user(&mut app, "bobby", "01033334444").await;
    let (ma, mb) = pair(&app, &mut a, &mut b).await;
    let room = ma["roomId"].as_str().unwrap().to_owned();
    let (alice, bobby) = (mb["receiverId"].clone(), ma["receiverId"].clone());
    b.say(&mut a, &room, "마지막 말").await;

    app.cookie = Some(cookie_a);
    let answer = app
        .post(
            "/api/report",
            json!({
                "reporterId": bobby,
                "reportedId": bobby,
                "roomId": room,
                "reasons": ["욕설/비하", "threat"],
                "extraMessage": " 계속 욕을 해요 ",
            }),
        )
        .await;
    assert!(answer.assert_ok()["message"]
        .as_str()
        .unwrap()
        .contains("24시간"));
    // The reporter is told of the report; the reported side only that the reporter left,
    // so the report modal's promise holds: nothing says who reported.
    let ended = a.expect("chatEndedByReport").await;
    assert_eq!(ended["roomId"], json!(room));
    assert_eq!(ended["reason"], json!("report"));
    assert_eq!(ended["byUserId"], alice);
    let (event, ended) = b.expect_any(&["chatEnded", "chatEndedByReport"]).await;
    assert_eq!(event, "chatEnded");
    assert_eq!(ended["roomId"], json!(room));
    assert_eq!(ended["reason"], json!("left"));
    assert_eq!(ended["byUserId"], alice);
    // The last words are in the archive at once, without waiting for its next turn.
    let transcript = app.state.store.transcript(&room).await.unwrap();
    assert_eq!(
        transcript
            .iter()
            .map(|m| m.body.as_str())
            .collect::<Vec<_>>(),
        ["마지막 말"]
    );
    // Filed once, and the two are kept apart from now on.
    let (a_id, b_id) = (alice.as_i64().unwrap(), bobby.as_i64().unwrap());
    let again = app
        .state
        .store
        .add_report(&NewReport {
            reporter_id: Some(a_id),
            reported_id: b_id,
            room_id: &room,
            reasons: &["other"],
            extra: "",
            now: 0,
        })
        .await
        .unwrap();
    assert!(!again.1, "the report was stored");
    assert_eq!(app.state.store.kept_apart(b_id).await.unwrap(), [a_id]);
    // Reporting the same chat again changes nothing and is not an error.
    app.post(
        "/api/report",
        json!({ "roomId": room, "reasons": ["기타"], "extraMessage": "" }),
    )
    .await
    .assert_ok();
}

async fn only_a_partner_can_be_reported_and_a_report_says_something(mut app: TestApp) {
    let (mut a, cookie_a) = user(&mut app, "alice", "01011112222").await;
    let (mut b, _) = user(&mut app, "bobby", "01033334444").await;
    let (_c, cookie_c) = user(&mut app, "carol", "01055556666").await;
    let (ma, _) = pair(&app, &mut a, &mut b).await;
    let room = ma["roomId"].as_str().unwrap().to_owned();
    let carol = user_id(&app, "carol").await;
    let report = |room: &str, reported: Option<i64>| json!({ "roomId": room, "reportedId": reported, "reasons": ["위협"], "extraMessage": "" });

    app.cookie = None;
    app.post("/api/report", report(&room, None))
        .await
        .assert_error(401, "UNAUTHORIZED");
    // Carol was never in the room; Alice cannot name Carol as her partner.
    app.cookie = Some(cookie_c);
    app.post("/api/report", report(&room, None))
        .await
        .assert_error(403, "REPORT_NOT_PARTNER");
    app.cookie = Some(cookie_a);
    app.post("/api/report", report(&room, Some(carol)))
        .await
        .assert_error(403, "REPORT_NOT_PARTNER");
    app.post("/api/report", report("no-such-room", None))
        .await
        .assert_error(403, "REPORT_NOT_PARTNER");
    let body = |reasons: serde_json::Value, extra: &str| json!({ "roomId": room, "reasons": reasons, "extraMessage": extra });
    app.post("/api/report", body(json!([]), "   "))
        .await
        .assert_error(400, "REPORT_EMPTY");
    app.post("/api/report", body(json!(["기타"]), &"가".repeat(201)))
        .await
        .assert_error(400, "REPORT_TOO_LONG");
    app.post("/api/report", body(json!(["스팸"]), ""))
        .await
        .assert_error(400, "REPORT_REASON_INVALID");
    // None of these ended the chat.
    a.say(&mut b, &room, "아직 있어요").await;
    // Text alone is enough.
    app.post("/api/report", body(json!([]), &"가".repeat(200)))
        .await
        .assert_ok();
    assert_eq!(b.expect("chatEnded").await["reason"], json!("left"));
}

async fn a_chat_that_ended_can_still_be_reported(mut app: TestApp) {
    let (mut a, _) = user(&mut app, "alice", "01011112222").await;
    let (mut b, cookie_b) = user(&mut app, "bobby", "01033334444").await;
    let (ma, _) = pair(&app, &mut a, &mut b).await;
    let room = ma["roomId"].as_str().unwrap().to_owned();
    a.send("leaveRoom", json!({ "roomId": room })).await;
    b.expect("chatEnded").await;
    app.cookie = Some(cookie_b);
    app.post(
        "/api/report",
        json!({ "roomId": room, "reasons": ["성적인 발언/행위"] }),
    )
    .await
    .assert_ok();
    assert!(
        a.try_expect("chatEndedByReport", Duration::from_millis(300))
            .await
            .is_none(),
        "an ended chat does not end twice"
    );
}

async fn a_restricted_user_is_told_why_at_login_and_on_the_socket(mut app: TestApp) {
    let (mut a, cookie_a) = user(&mut app, "alice", "01011112222").await;
    let alice = user_id(&app, "alice").await;
    let now = app.state.clock.now_ms();
    let day = 24 * 3600 * 1000;
    // A warning is told on the open socket and stops nothing.
    sanction(&app, alice, "warn", "반복된 욕설", None).await;
    let warned = a.expect("accountWarned").await;
    assert_eq!(warned["reason"], json!("반복된 욕설"));
    assert!(warned["message"]
        .as_str()
        .unwrap()
        .contains("경고를 받았어요"));
    app.cookie = Some(cookie_a.clone());
    assert!(app.logged_in().await);
    a.send("getOnlineCount", json!({})).await;
    a.expect("onlineCount").await;

    sanction(&app, alice, "suspend", "반복된 욕설", Some(now + 3 * day)).await;
    let notice = a.expect("accountRestricted").await;
    assert_eq!(notice["kind"], json!("suspend"));
    assert_eq!(notice["reason"], json!("반복된 욕설"));
    let message = notice["message"].as_str().unwrap();
    assert!(message.contains("까지 이용이 정지되었어요") && message.contains("반복된 욕설"));
    // It closes, with a close frame after the notice.
    a.expect_close_frame_within(SOON).await.unwrap();
    assert!(!app.logged_in().await, "the session ended");

    let login = app.login("alice", "abcdefg1").await;
    login.assert_error(403, "ACCOUNT_RESTRICTED");
    assert_eq!(login.message(), message);
    assert!(login.body["restriction"]["until"].is_string());
    // A wrong password says nothing about the suspension.
    app.login("alice", "wrong-pass1")
        .await
        .assert_error(401, "LOGIN_FAILED");

    // It runs out by itself.
    app.clock.advance(Duration::from_secs(3 * 24 * 3600 + 1));
    app.login("alice", "abcdefg1").await.assert_ok();

    sanction(&app, alice, "ban", "반복된 욕설", None).await;
    let login = app.login("alice", "abcdefg1").await;
    login.assert_error(403, "ACCOUNT_RESTRICTED");
    assert!(login.message().contains("영구 정지"));
    assert!(login.body["restriction"].get("until").is_none());
}

/// A warned user who was not connected is told at their next visit, and the warning is
/// shown until they confirm it, on any device.
async fn a_warning_waits_for_its_user_until_they_confirm_it(mut app: TestApp) {
    app.sign_up("bobby", "abcdefg1", "01033334444").await;
    let bobby_cookie = app.cookie.clone();
    app.cookie = None;
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    let alice = user_id(&app, "alice").await;
    let empty = app.get("/api/warnings").await.assert_ok().clone();
    assert_eq!(empty["warnings"], json!([]));
    let first = sanction(&app, alice, "warn", "광고", None).await;
    let second = sanction(&app, alice, "warn", "욕설", None).await;

    let listed = app.get("/api/warnings").await.assert_ok().clone();
    let warnings = listed["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 2, "{listed}");
    assert_eq!(
        (warnings[0]["id"].clone(), warnings[0]["reason"].clone()),
        (json!(first), json!("광고"))
    );
    assert!(warnings[0]["message"]
        .as_str()
        .unwrap()
        .contains("경고를 받았어요. 같은 일이 반복되면 이용이 정지될 수 있어요. 사유: 광고"));
    assert!(warnings[0]["givenAt"].as_str().unwrap().starts_with("20"));

    let path = format!("/api/warnings/{first}/seen");
    assert_eq!(
        app.post(&path, json!({})).await.assert_ok()["message"],
        json!("경고를 확인했어요.")
    );
    app.post(&path, json!({})).await.assert_ok();
    let left = app.get("/api/warnings").await.assert_ok().clone();
    assert_eq!(left["warnings"].as_array().unwrap().len(), 1);
    assert_eq!(left["warnings"][0]["id"], json!(second));

    // Another user can neither read nor confirm it; a guest gets nothing.
    app.cookie = bobby_cookie;
    assert_eq!(
        app.get("/api/warnings").await.assert_ok()["warnings"],
        json!([])
    );
    app.post(&format!("/api/warnings/{second}/seen"), json!({}))
        .await
        .assert_error(404, "NOT_FOUND");
    app.cookie = None;
    app.get("/api/warnings")
        .await
        .assert_error(401, "UNAUTHORIZED");
}

async fn the_filter_flags_a_chat_after_repeated_abuse(mut app: TestApp) {
    let (mut a, _) = user(&mut app, "alice", "01011112222").await;
    let (mut b, _) = user(&mut app, "bobby", "01033334444").await;
    let (ma, mb) = pair(&app, &mut a, &mut b).await;
    let room = ma["roomId"].as_str().unwrap().to_owned();
    let alice = mb["receiverId"].as_i64().unwrap();
    let flagged = |app: &TestApp| {
        let store = app.state.store.clone();
        let room = room.clone();
        async move {
            let probe = NewReport {
                reporter_id: None,
                reported_id: alice,
                room_id: &room,
                reasons: &["other"],
                extra: "",
                now: 0,
            };
            // A probe that finds the filter's line files nothing; one that does not has
            // filed it, so it is only ever called once the answer is expected.
            !store.add_report(&probe).await.unwrap().1
        }
    };
    for text in ["tlqkf", "시 발 진짜"] {
        a.say(&mut b, &room, text).await;
    }
    a.say(&mut b, &room, "ㅅㅂ").await;
    let mut found = false;
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let metrics = app.state.metrics.encode();
        if metrics.contains("telepathy_reports_total{op=\"filter\"} 1") {
            found = true;
            break;
        }
    }
    assert!(found, "the third masked message flags the chat");
    assert!(flagged(&app).await);
}

async fn housekeeping_lifts_suspensions_and_erases_withdrawn_accounts(mut app: TestApp) {
    let _a = user(&mut app, "alice", "01011112222").await;
    let (_b, cookie_b) = user(&mut app, "bobby", "01033334444").await;
    let store = app.state.store.clone();
    let alice = user_id(&app, "alice").await;
    let bobby = user_id(&app, "bobby").await;
    let now = app.state.clock.now_ms();
    sanction(&app, alice, "suspend", "욕설", Some(now + 24 * 3600 * 1000)).await;
    app.cookie = Some(cookie_b);
    app.post("/api/auth/withdraw", json!({})).await.assert_ok();
    let bobby = store.user_by_id(bobby).await.unwrap().unwrap();
    assert_eq!(bobby.status, "withdrawn");

    let turn = |app: &TestApp| {
        let state = app.state.clone();
        async move {
            state.engine.clear("lease:purge").await.unwrap();
            telepathy_server::tasks::housekeeping(&state).await;
        }
    };
    turn(&app).await;
    assert_eq!(
        store.sanction_history(alice).await.unwrap()[0]
            .sanction
            .lifted_at,
        None
    );
    assert_eq!(
        store.user_by_id(bobby.id).await.unwrap().unwrap().phone,
        "01033334444"
    );

    // Two days on: the suspension is over and marked so.
    app.clock.advance(Duration::from_secs(2 * 24 * 3600));
    turn(&app).await;
    assert!(store.sanction_history(alice).await.unwrap()[0]
        .sanction
        .lifted_at
        .is_some());
    // Six months on (the privacy policy), the withdrawn account names nobody.
    app.clock.advance(Duration::from_secs(183 * 24 * 3600));
    turn(&app).await;
    let erased = store.user_by_id(bobby.id).await.unwrap().unwrap();
    assert_eq!(erased.status, "erased");
    assert!(erased.phone.is_empty() && erased.real_name.is_none());
    let alice_now = store.user_by_id(alice).await.unwrap().unwrap();
    assert_eq!(
        alice_now.status, "active",
        "an active account is never erased"
    );
}

async fn the_reports_waiting_and_overdue_are_measured(mut app: TestApp) {
    let _a = user(&mut app, "alice", "01011112222").await;
    let alice = user_id(&app, "alice").await;
    let gauges = |app: &TestApp| {
        let state = app.state.clone();
        async move {
            telepathy_server::tasks::count_report_queue(&state).await;
            let text = state.metrics.encode();
            let value = |name: &str| {
                text.lines()
                    .find_map(|l| l.strip_prefix(&format!("{name} ")))
                    .unwrap_or_else(|| panic!("{name} is not exported: {text}"))
                    .to_owned()
            };
            (
                value("telepathy_reports_open"),
                value("telepathy_reports_overdue"),
            )
        }
    };
    assert_eq!(gauges(&app).await, ("0".into(), "0".into()));
    app.state
        .store
        .add_report(&NewReport {
            reporter_id: None,
            reported_id: alice,
            room_id: "a-room",
            reasons: &["other"],
            extra: "",
            now: app.state.shared_clock.now_ms(),
        })
        .await
        .unwrap();
    assert_eq!(gauges(&app).await, ("1".into(), "0".into()));
    app.clock.advance(Duration::from_secs(24 * 3600 + 60));
    assert_eq!(
        gauges(&app).await,
        ("1".into(), "1".into()),
        "a day later the report is overdue"
    );
}
