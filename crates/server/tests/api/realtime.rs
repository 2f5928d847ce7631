//! The WebSocket protocol end to end against a node on a real port.

use serde_json::{json, Value};
use telepathy_domain::questions;
use telepathy_store::Backend;

use crate::helpers::{spawn_with, TestApp, ORIGIN};
use crate::ws_client::{Client, SOON};

crate::both!(
    socket_opens_are_limited_per_account,
    a_round_of_few_picks_is_not_echoed,
    two_users_match_chat_and_leave,
    joins_are_checked,
    a_reconnecting_member_gets_what_it_missed,
    messages_reach_the_archive,
    an_ended_rooms_stream_is_kept_a_minute_then_finished,
    a_third_user_waits_and_rounds_expire_waits,
    revoked_sessions_close_their_sockets,
    a_socket_the_client_closes_is_answered_at_once,
    a_node_given_up_for_dead_starts_over,
    identity_fields_of_any_type_are_ignored,
    unreadable_frames_count_toward_the_frame_limit,
    the_frame_allowance_holds_across_reconnects,
    the_frame_allowance_holds_across_nodes,
    a_socket_beyond_the_limit_closes_the_oldest_wherever_it_is,
    binary_frames_count_and_a_flood_closes_the_socket,
    a_frame_over_the_size_limit_closes_the_socket,
    a_malformed_last_id_is_refused_on_both_engines,
    a_retry_with_its_client_id_is_delivered_once,
    text_is_cleaned_before_it_is_sent_or_stored,
    a_message_the_database_refuses_holds_back_no_other,
    a_draining_node_is_not_ready_and_refuses_sockets,
    only_members_end_a_chat,
    room_ids_the_database_cannot_hold_are_refused_as_input,
    typing_names_a_room_as_every_other_frame_does,
    a_message_tells_that_typing_stopped_and_the_stop_after_it_goes_no_further,
    a_read_mark_reaches_the_partner_alone_and_a_request_for_one_too,
    abuse_and_early_contacts_are_masked_and_the_archive_keeps_what_was_said,
    a_blocked_partner_is_never_matched_again,
    the_one_who_was_left_may_rate_the_chat_and_block_the_partner,
    the_current_chat_is_what_the_server_knows,
    both_members_see_the_same_question_and_either_draws_the_next,
    a_closed_round_echoes_its_picks_and_tonight_names_the_top_word,
    a_round_begins_once_though_the_clock_steps_back_over_its_start,
);

/// Signs up a user with a nickname and opens a socket for them.
pub async fn user(app: &mut TestApp, name: &str, phone: &str) -> (Client, String) {
    app.cookie = None;
    app.sign_up(name, "abcdefg1", phone).await;
    app.post(
        "/api/nickname/set-nickname",
        json!({ "nickname": format!("닉{name}") }),
    )
    .await
    .assert_ok();
    let cookie = app.cookie.clone().unwrap();
    let mut client = Client::connect(&app.addr, Some(&cookie), ORIGIN)
        .await
        .unwrap();
    client.expect("hello").await;
    (client, cookie)
}

fn current(app: &TestApp) -> (i64, String) {
    let r = app.state.realtime.round_state();
    (r.round, r.words[0].word.clone())
}

/// Joins a and b on the current round's first word; retries once if a round boundary
/// fell between the two joins.
pub async fn pair(app: &TestApp, a: &mut Client, b: &mut Client) -> (Value, Value) {
    for _ in 0..2 {
        let (round, word) = current(app);
        a.send("join_match", json!({ "word": word, "round": round }))
            .await;
        let waiting = a.expect_any(&["matchWaiting", "error"]).await;
        if waiting.0 == "error" {
            continue;
        }
        b.send(
            "join_match",
            json!({ "word": word, "round": round, "userId": 999_999 }),
        )
        .await;
        let got = b.expect_any(&["matched", "error"]).await;
        if got.0 == "matched" {
            return (a.expect("matched").await, got.1);
        }
    }
    panic!("could not pair within two rounds");
}

async fn two_users_match_chat_and_leave(mut app: TestApp) {
    let (mut a, _) = user(&mut app, "alice", "01011112222").await;
    let (mut b, cookie_b) = user(&mut app, "bobby", "01033334444").await;
    let (ma, mb) = pair(&app, &mut a, &mut b).await;
    assert_eq!(ma["roomId"], mb["roomId"]);
    assert_eq!(ma["roomId"].as_str().unwrap().len(), 32, "128 random bits");
    // Partners know each other by nickname only: no frame carries a login ID, not even
    // in the spec's *Username fields.
    assert_eq!(ma["receiverNickname"], json!("닉bobby"));
    assert_eq!(ma["receiverUsername"], json!("닉bobby"));
    assert_eq!(ma["senderUsername"], json!("닉alice"));
    assert_eq!(
        mb["senderNickname"],
        json!("닉bobby"),
        "identity comes from the session, not userId"
    );
    for frame in [&ma, &mb] {
        let text = frame.to_string();
        assert!(
            !text.contains("\"alice\"") && !text.contains("\"bobby\""),
            "{text}"
        );
    }
    let room = ma["roomId"].as_str().unwrap().to_owned();
    let word = ma["word"].as_str().unwrap().to_owned();

    a.send(
        "chatMessage",
        json!({ "roomId": room, "message": "  안녕!  ", "clientId": "c1", "senderId": 424242 }),
    )
    .await;
    let echo = a.expect("chatMessage").await;
    let got = b.expect("chatMessage").await;
    assert_eq!(got["message"], json!("안녕!"));
    assert_eq!(got["senderNickname"], json!("닉alice"));
    assert_eq!(got["senderUsername"], json!("닉alice"));
    assert_eq!(got["receiverUsername"], json!("닉bobby"));
    for frame in [&got, &echo] {
        let text = frame.to_string();
        assert!(
            !text.contains("\"alice\"") && !text.contains("\"bobby\""),
            "{text}"
        );
    }
    assert_eq!(got["id"], echo["id"]);
    assert_eq!(echo["clientId"], json!("c1"));

    b.send("typing", json!({ "roomId": room })).await;
    assert_eq!(a.expect("typing").await["roomId"], json!(room));
    assert_eq!(
        b.say(&mut a, &room, "반가워").await["message"],
        json!("반가워")
    );
    b.send("chatMessage", json!({ "roomId": room, "message": "   " }))
        .await;
    assert_eq!(b.expect("error").await["code"], json!("MESSAGE_EMPTY"));
    b.send(
        "chatMessage",
        json!({ "roomId": "not-my-room", "message": "hi" }),
    )
    .await;
    assert_eq!(b.expect("error").await["code"], json!("NOT_IN_ROOM"));

    a.send("leaveRoom", json!({ "roomId": room })).await;
    assert_eq!(b.expect("chatEnded").await["reason"], json!("left"));
    assert_eq!(a.expect("chatEnded").await["roomId"], json!(room));
    b.send(
        "chatMessage",
        json!({ "roomId": room, "message": "거기 있어?" }),
    )
    .await;
    assert_eq!(
        b.expect("error").await["code"],
        json!("NOT_IN_ROOM"),
        "an ended chat takes no messages"
    );

    // Both see the word in their history; the leaver leaves a mood.
    let history = app.get("/api/word-history").await;
    assert_eq!(history.assert_ok()["history"][0]["word"], json!(word));
    assert_eq!(history.body["total"], json!(1));
    assert_eq!(
        history.body["history"][0]["partner_nickname"],
        json!("닉alice")
    );
    let partner = mb["receiverId"].clone();
    app.post(
        "/api/feedback/add",
        json!({ "partnerId": partner, "word": word, "emotion": "몰라요" }),
    )
    .await
    .assert_error(400, "EMOTION_REQUIRED");
    app.post(
        "/api/feedback/add",
        json!({ "partnerId": partner, "word": word, "emotion": "기뻐요" }),
    )
    .await
    .assert_ok();
    app.post(
        "/api/feedback/add",
        json!({ "partnerId": partner, "word": "다른말", "emotion": "기뻐요" }),
    )
    .await
    .assert_error(400, "FEEDBACK_NO_ROOM");
    app.post(
        "/api/feedback/add",
        json!({ "roomId": room, "emotion": "슬퍼요" }),
    )
    .await
    .assert_ok();
    app.cookie = Some(cookie_b);
    app.post("/api/match/end", json!({ "roomId": room }))
        .await
        .assert_ok();
    a.close().await;
    b.close().await;
}

async fn joins_are_checked(mut app: TestApp) {
    let (mut a, _) = user(&mut app, "alice", "01011112222").await;
    let (round, word) = current(&app);
    a.send("join_match", json!({ "word": word, "round": round - 5 }))
        .await;
    assert_eq!(a.expect("error").await["code"], json!("ROUND_OVER"));
    a.send("join_match", json!({ "word": "아무말", "round": round }))
        .await;
    let e = a.expect("error").await;
    assert_eq!(e["code"], json!("WORD_NOT_IN_ROUND"));
    assert_eq!(e["event"], json!("join_match"));
    a.send("join_match", json!({ "word": 3 })).await;
    assert_eq!(a.expect("error").await["code"], json!("INVALID_REQUEST"));
    a.send("no_such_event", json!({})).await;
    assert_eq!(a.expect("error").await["code"], json!("INVALID_REQUEST"));

    // Without a nickname there is no one to introduce.
    app.cookie = None;
    app.sign_up("carol", "abcdefg1", "01055556666").await;
    let mut c = Client::connect(&app.addr, app.cookie.as_deref(), ORIGIN)
        .await
        .unwrap();
    c.expect("hello").await;
    let (round, word) = current(&app);
    c.send("join_match", json!({ "word": word, "round": round }))
        .await;
    assert_eq!(c.expect("error").await["code"], json!("NICKNAME_NEEDED"));
    // A nickname set now counts on the socket already open.
    app.post(
        "/api/nickname/set-nickname",
        json!({ "nickname": "닉carol" }),
    )
    .await
    .assert_ok();
    let (round, word) = current(&app);
    c.send("join_match", json!({ "word": word, "round": round }))
        .await;
    assert_eq!(c.expect("matchWaiting").await["word"], json!(word));

    // The upgrade itself needs the session and our Origin.
    assert_eq!(
        Client::connect(&app.addr, None, ORIGIN).await.err(),
        Some(401)
    );
    let cookie = app.cookie.clone().unwrap();
    assert_eq!(
        Client::connect(&app.addr, Some(&cookie), "https://evil.example")
            .await
            .err(),
        Some(403)
    );
}

async fn a_reconnecting_member_gets_what_it_missed(mut app: TestApp) {
    let (mut a, _) = user(&mut app, "alice", "01011112222").await;
    let (mut b, cookie_b) = user(&mut app, "bobby", "01033334444").await;
    let (ma, _) = pair(&app, &mut a, &mut b).await;
    let room = ma["roomId"].as_str().unwrap().to_owned();
    let first = a.say(&mut b, &room, "하나").await;
    a.expect("chatMessage").await;
    b.close().await;
    for text in ["둘", "셋", "넷"] {
        a.send("chatMessage", json!({ "roomId": room, "message": text }))
            .await;
        a.expect("chatMessage").await;
    }
    let mut b = Client::connect(&app.addr, Some(&cookie_b), ORIGIN)
        .await
        .unwrap();
    assert_eq!(
        b.expect("hello").await["roomId"],
        json!(room),
        "the server remembers the room"
    );
    b.send("resume", json!({ "roomId": room, "lastId": first["id"] }))
        .await;
    let mut got = Vec::new();
    for _ in 0..3 {
        got.push(
            b.expect("chatMessage").await["message"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    assert_eq!(got, ["둘", "셋", "넷"]);
    assert_eq!(b.expect("resumed").await["count"], json!(3));
    // A stranger cannot read the room.
    let (mut c, _) = user(&mut app, "carol", "01055556666").await;
    c.send("resume", json!({ "roomId": room })).await;
    assert_eq!(c.expect("chatEnded").await["reason"], json!("gone"));
}

async fn messages_reach_the_archive(mut app: TestApp) {
    let (mut a, _) = user(&mut app, "alice", "01011112222").await;
    let (mut b, _) = user(&mut app, "bobby", "01033334444").await;
    let (ma, _) = pair(&app, &mut a, &mut b).await;
    let room = ma["roomId"].as_str().unwrap().to_owned();
    for text in ["첫째", "둘째"] {
        a.say(&mut b, &room, text).await;
    }
    archive_recorded(&app, &room).await;
    let transcript = app.state.store.transcript(&room).await.unwrap();
    assert_eq!(
        transcript
            .iter()
            .map(|m| m.body.as_str())
            .collect::<Vec<_>>(),
        ["첫째", "둘째"]
    );
    // Archiving again stores nothing twice.
    app.state.engine.clear("lease:archive").await.unwrap();
    app.state
        .realtime
        .archive(telepathy_engine::ArchiveShare::ALL)
        .await;
    assert_eq!(app.state.store.transcript(&room).await.unwrap().len(), 2);
}

/// The archive keeps an ended room's stream a minute for members who resume late (its
/// turns pass the room by meanwhile: nothing more can come to it), then finishes it.
async fn an_ended_rooms_stream_is_kept_a_minute_then_finished(mut app: TestApp) {
    let (mut a, _) = user(&mut app, "alice", "01011112222").await;
    let (mut b, _) = user(&mut app, "bobby", "01033334444").await;
    let (ma, _) = pair(&app, &mut a, &mut b).await;
    let room = ma["roomId"].as_str().unwrap().to_owned();
    a.say(&mut b, &room, "안녕").await;
    a.send("leaveRoom", json!({ "roomId": room })).await;
    b.expect("chatEnded").await;
    let engine = &app.state.engine;
    archive_recorded(&app, &room).await;
    archive_recorded(&app, &room).await;
    assert_eq!(engine.read_after(&room, None, 10).await.unwrap().len(), 1);
    assert!(engine.archived_upto(&room).await.unwrap().is_some());

    app.clock.advance(std::time::Duration::from_secs(61));
    archive_recorded(&app, &room).await;
    assert!(engine.read_after(&room, None, 10).await.unwrap().is_empty());
    assert_eq!(engine.archived_upto(&room).await.unwrap(), None);
    assert_eq!(app.state.store.transcript(&room).await.unwrap().len(), 1);
}

async fn a_third_user_waits_and_rounds_expire_waits(mut app: TestApp) {
    let (mut a, _) = user(&mut app, "alice", "01011112222").await;
    let (round, word) = current(&app);
    a.send("join_match", json!({ "word": word, "round": round }))
        .await;
    a.expect("matchWaiting").await;
    let users = app
        .state
        .engine
        .expire_round(round, "{\"event\":\"matchExpired\"}")
        .await
        .unwrap();
    assert_eq!(users.len(), 1);
    a.expect("matchExpired").await;
}

#[tokio::test]
async fn joins_are_refused_outside_service_hours() {
    // A window that is never "now": one minute, twelve hours away from the test clock's
    // time (the shared time follows the node's clock).
    let now = crate::helpers::CLOCK_START
        .parse::<chrono::DateTime<chrono::Utc>>()
        .unwrap()
        .with_timezone(&chrono_tz::Asia::Seoul);
    let start = (now + chrono::Duration::hours(12))
        .format("%H:%M")
        .to_string();
    let end = (now + chrono::Duration::hours(12) + chrono::Duration::minutes(1))
        .format("%H:%M")
        .to_string();
    let hours = format!("{start}-{end}");
    let mut app = spawn_with(Backend::Sqlite, &[("TELEPATHY_SERVICE_HOURS", &hours)]).await;
    let state = app.get("/api/server-time").await;
    assert_eq!(state.assert_ok()["isOpen"], json!(false));
    assert!(state.body["nextOpenAt"].is_string());
    assert_eq!(state.body["words"].as_array().unwrap().len(), 4);
    let (mut a, _) = user(&mut app, "alice", "01011112222").await;
    let (round, word) = current(&app);
    a.send("join_match", json!({ "word": word, "round": round }))
        .await;
    assert_eq!(a.expect("error").await["code"], json!("SERVICE_CLOSED"));
}

#[tokio::test]
async fn a_partner_gone_past_the_grace_period_ends_the_chat() {
    let mut app = spawn_with(Backend::Sqlite, &[("TELEPATHY_GRACE_SECONDS", "1")]).await;
    let (mut a, _) = user(&mut app, "alice", "01011112222").await;
    let (mut b, _) = user(&mut app, "bobby", "01033334444").await;
    let (ma, _) = pair(&app, &mut a, &mut b).await;
    b.close().await;
    // The grace period runs on the node's clock: give the close a moment to be noted,
    // then let more than the grace period pass.
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    app.clock.advance(std::time::Duration::from_secs(2));
    let ended = a.expect("chatEnded").await;
    assert_eq!(ended["roomId"], ma["roomId"]);
    assert_eq!(ended["reason"], json!("disconnected"));
    // Back after the grace period, the one who was away hears that the chat ended.
    let current = app.get("/api/match/current").await;
    assert!(current.assert_ok()["room"].is_null(), "{:?}", current.body);
    assert_eq!(current.body["ended"]["roomId"], ma["roomId"]);
    assert_eq!(current.body["ended"]["partnerNickname"], json!("닉alice"));
}

#[tokio::test]
async fn online_count_counts_users() {
    let mut app = spawn_with(Backend::Sqlite, &[]).await;
    let (mut a, _) = user(&mut app, "alice", "01011112222").await;
    let (_b, _) = user(&mut app, "bobby", "01033334444").await;
    let cookie = app.cookie.clone().unwrap();
    let _b2 = Client::connect(&app.addr, Some(&cookie), ORIGIN)
        .await
        .unwrap();
    loop {
        if a.expect("onlineCount").await["count"] == json!(2) {
            break;
        }
    }
    a.send("getOnlineCount", json!({})).await;
    assert_eq!(
        a.expect("onlineCount").await["count"],
        json!(2),
        "two users, three sockets"
    );
}

async fn revoked_sessions_close_their_sockets(mut app: TestApp) {
    let (mut a, cookie) = user(&mut app, "alice", "01011112222").await;
    app.cookie = None;
    app.login("alice", "abcdefg1").await.assert_ok();
    let mut other = Client::connect(&app.addr, app.cookie.as_deref(), ORIGIN)
        .await
        .unwrap();
    other.expect("hello").await;
    // Changing the password from the second session ends the first one's socket at once.
    app.post(
        "/api/password/change",
        json!({ "currentPassword": "abcdefg1", "newPassword": "zxcvbn12" }),
    )
    .await
    .assert_ok();
    let e = a.expect("error").await;
    assert_eq!(
        (e["event"].clone(), e["code"].clone()),
        (json!("session"), json!("UNAUTHORIZED"))
    );
    // Said, then closed with a close frame (not dropped a second later).
    a.expect_close_frame_within(SOON).await.unwrap();
    // The socket of the session that made the change lives on.
    other.send("getOnlineCount", json!({})).await;
    other.expect("onlineCount").await;
    // Logging out ends the remaining one too.
    app.post("/api/auth/logout", json!({})).await.assert_ok();
    assert_eq!(other.expect("error").await["code"], json!("UNAUTHORIZED"));
    other.expect_close_frame_within(SOON).await.unwrap();
    let _ = cookie;
}

/// A client that closes its socket (a tab closed) is answered with a close frame at once,
/// as the WebSocket closing handshake asks, and stops counting as online.
async fn a_socket_the_client_closes_is_answered_at_once(mut app: TestApp) {
    let (mut a, _) = user(&mut app, "alice", "01011112222").await;
    let (mut b, _) = user(&mut app, "bobby", "01033334444").await;
    a.start_close().await;
    a.expect_close_frame_within(std::time::Duration::from_millis(500))
        .await
        .unwrap();
    let counted = std::time::Instant::now();
    loop {
        b.send("getOnlineCount", json!({})).await;
        if b.expect("onlineCount").await["count"] == json!(1) {
            break;
        }
        assert!(counted.elapsed() < SOON, "alice still counts as online");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

/// A node that the others gave up for dead (its records reaped, as after a long stall or
/// a Redis restart) hears so at its next heartbeat: it closes its sockets with 1013 so their
/// clients resume, and goes on under a new name that routing reaches again.
async fn a_node_given_up_for_dead_starts_over(mut app: TestApp) {
    let (mut a, cookie_a) = user(&mut app, "alice", "01011112222").await;
    let (mut b, cookie_b) = user(&mut app, "bobby", "01033334444").await;
    let (ma, _) = pair(&app, &mut a, &mut b).await;
    let room = ma["roomId"].as_str().unwrap().to_owned();
    let old = app.state.realtime.hub.instance();
    app.state
        .engine
        .leave(&old, app.state.shared_clock.now_ms())
        .await
        .unwrap();
    let within = std::time::Duration::from_secs(10);
    assert_eq!(a.expect_close_within(within).await, Some(1013));
    assert_eq!(b.expect_close_within(within).await, Some(1013));
    assert_ne!(app.state.realtime.hub.instance(), old);

    let mut a = Client::connect(&app.addr, Some(&cookie_a), ORIGIN)
        .await
        .unwrap();
    let mut b = Client::connect(&app.addr, Some(&cookie_b), ORIGIN)
        .await
        .unwrap();
    assert_eq!(a.expect("hello").await["roomId"], json!(room));
    b.expect("hello").await;
    assert_eq!(
        a.say(&mut b, &room, "다시 왔어").await["message"],
        json!("다시 왔어")
    );
    let text = reqwest::get(format!("http://{}/metrics", app.addr))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        text.contains("telepathy_sockets_kicked_total{op=\"resync\"} 2"),
        "{text}"
    );
}

/// The spec's clients send `userId` (as a string, when kept in localStorage), `username`
/// and `nickname` with their frames: whatever their type, they change nothing.
async fn identity_fields_of_any_type_are_ignored(mut app: TestApp) {
    let (mut a, _) = user(&mut app, "alice", "01011112222").await;
    let (mut b, _) = user(&mut app, "bobby", "01033334444").await;
    let mut matched = None;
    for _ in 0..2 {
        let (round, word) = current(&app);
        a.send(
            "join_match",
            json!({ "word": word, "round": round, "userId": "12", "username": 7, "nickname": null }),
        )
        .await;
        if a.expect_any(&["matchWaiting", "error"]).await.0 == "error" {
            continue;
        }
        b.send(
            "join_match",
            json!({ "word": word, "round": round, "userId": { "id": 1 }, "username": "mallory" }),
        )
        .await;
        let got = b.expect_any(&["matched", "error"]).await;
        if got.0 == "matched" {
            matched = Some(got.1);
            break;
        }
    }
    let matched = matched.expect("paired within two rounds");
    assert_eq!(matched["receiverNickname"], json!("닉alice"));
    let room = matched["roomId"].clone();
    a.expect("matched").await;
    b.send("leaveRoom", json!({ "roomId": room, "userId": "999" }))
        .await;
    let ended = a.expect("chatEnded").await;
    assert_eq!(ended["roomId"], room);
    assert_eq!(ended["reason"], json!("left"));
}

/// Frames that are not even JSON count toward the per-user frame limit like any other.
async fn unreadable_frames_count_toward_the_frame_limit(mut app: TestApp) {
    let (mut a, _) = user(&mut app, "alice", "01011112222").await;
    for _ in 0..40 {
        a.send_text("{not json").await;
        assert_eq!(a.expect("error").await["code"], json!("INVALID_REQUEST"));
    }
    a.send("getOnlineCount", json!({})).await;
    let refused = a.expect("error").await;
    assert_eq!(refused["code"], json!("RATE_LIMITED"));
    assert_eq!(refused["event"], json!("getOnlineCount"));
}

/// Waits until the node holds no socket of `user_id` any more (a socket the client closed
/// leaves the node a moment after its close frame).
async fn gone_from(state: &telepathy_server::state::AppState, user_id: i64) {
    for _ in 0..500 {
        if !state.realtime.hub.holds(user_id) {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("user {user_id} still holds a socket");
}

/// The frames the socket is answered until `expected` answers came: its own messages'
/// echoes and refusals, by event name (`chatMessage`, or the code of an `error`).
async fn answers(client: &mut Client, expected: usize) -> Vec<String> {
    let mut got = Vec::new();
    while got.len() < expected {
        let (event, data) = client.expect_any(&["chatMessage", "error"]).await;
        got.push(if event == "error" {
            data["code"].as_str().unwrap().to_owned()
        } else {
            event
        });
    }
    got
}

/// The chat messages that reach `client` until none comes for a while.
async fn received(client: &mut Client) -> usize {
    let mut n = 0;
    while client
        .try_expect("chatMessage", std::time::Duration::from_millis(500))
        .await
        .is_some()
    {
        n += 1;
    }
    n
}

/// A user's frame allowance is theirs for the window, not their socket's: closing the
/// socket and opening another gets nothing new, and the partner receives no more than the
/// allowance. A new window brings it back.
async fn the_frame_allowance_holds_across_reconnects(mut app: TestApp) {
    use telepathy_domain::limits::{SOCKET_FRAMES_PER_WINDOW, SOCKET_FRAME_WINDOW};
    let limit = SOCKET_FRAMES_PER_WINDOW as usize;
    let (mut a, cookie_a) = user(&mut app, "alice", "01011112222").await;
    let (mut b, _) = user(&mut app, "bobby", "01033334444").await;
    let (ma, _) = pair(&app, &mut a, &mut b).await;
    let room = ma["roomId"].clone();
    let alice = ma["senderId"].as_i64().unwrap();
    // Her join was a frame too: 39 messages go out, the 40th is refused.
    for i in 0..limit {
        a.send(
            "chatMessage",
            json!({ "roomId": room, "message": format!("{i}") }),
        )
        .await;
    }
    // (Echoes come over the bus, so the refusal may overtake the last of them.)
    let first = answers(&mut a, limit).await;
    let echoed = first.iter().filter(|e| *e == "chatMessage").count();
    assert_eq!(echoed, limit - 1, "{first:?}");
    assert!(first.contains(&"RATE_LIMITED".to_owned()), "{first:?}");
    a.close().await;
    gone_from(&app.state, alice).await;

    let mut again = Client::connect(&app.addr, Some(&cookie_a), ORIGIN)
        .await
        .unwrap();
    again.expect("hello").await;
    for i in 0..limit / 2 {
        again
            .send(
                "chatMessage",
                json!({ "roomId": room, "message": format!("다시 {i}") }),
            )
            .await;
    }
    let second = answers(&mut again, limit / 2).await;
    assert!(
        second.iter().all(|e| e == "RATE_LIMITED"),
        "a new socket gets nothing new in the same window: {second:?}"
    );
    assert_eq!(
        received(&mut b).await,
        limit - 1,
        "the partner got the allowance"
    );

    app.clock.advance(SOCKET_FRAME_WINDOW);
    let got = again.say(&mut b, &room, "다음 창").await;
    assert_eq!(answers(&mut again, 1).await, ["chatMessage"]);
    assert_eq!(got["message"], json!("다음 창"));
    let metrics = app.state.metrics.encode();
    assert!(
        metrics.contains(&format!(
            "telepathy_rate_limited_total{{limit=\"frames\"}} {}",
            1 + limit / 2
        )),
        "{metrics}"
    );
}

/// Another node of the same engine on a port of its own, for a user to hop to.
async fn another_node(app: &TestApp) -> (String, telepathy_server::state::AppState) {
    let state = telepathy_server::state::AppState::build_with(
        app.state.config.clone(),
        telepathy_server::state::Overrides {
            clock: Some(app.clock.clone()),
            engine: Some(app.state.engine.clone()),
            sms: None,
            identity: None,
            payments: None,
        },
    )
    .await
    .unwrap();
    (crate::helpers::serve(&state).await, state)
}

/// Sends `n` frames that every node answers (unreadable ones: the pushed online count
/// would blur a count of `onlineCount` answers), and counts those answered rather than
/// refused.
async fn answered(client: &mut Client, n: usize) -> usize {
    for _ in 0..n {
        client.send_text("{not json").await;
    }
    let mut answered = 0;
    for _ in 0..n {
        match client.expect("error").await["code"].as_str().unwrap() {
            "INVALID_REQUEST" => answered += 1,
            code => assert_eq!(code, "RATE_LIMITED"),
        }
    }
    answered
}

/// The allowance is shared by the nodes: a user who spent most of it on one node finds
/// no more than what is left on another.
async fn the_frame_allowance_holds_across_nodes(mut app: TestApp) {
    use telepathy_domain::limits::{SOCKET_FRAMES_PER_WINDOW, SOCKET_FRAME_WINDOW};
    let limit = SOCKET_FRAMES_PER_WINDOW as usize;
    // Away from a window's edge, where the nodes' shared clocks, a millisecond apart,
    // could read different windows (the test's clock stands still on an edge).
    app.clock.advance(SOCKET_FRAME_WINDOW / 2);
    let (mut here, cookie) = user(&mut app, "alice", "01011112222").await;
    let (addr, _there) = another_node(&app).await;

    let spent = limit * 3 / 4;
    assert_eq!(answered(&mut here, spent).await, spent);
    here.close().await;
    let alice = crate::helpers::user_id(&app, "alice").await;
    gone_from(&app.state, alice).await;
    let mut there = Client::connect(&addr, Some(&cookie), ORIGIN).await.unwrap();
    there.expect("hello").await;
    let on_the_other = answered(&mut there, limit / 2).await;
    assert!(
        spent + on_the_other <= limit,
        "{spent} frames on one node, then {on_the_other} of {} on the other",
        limit / 2
    );

    app.clock.advance(SOCKET_FRAME_WINDOW);
    assert_eq!(
        answered(&mut there, 1).await,
        1,
        "a new window brings it back"
    );
}

/// A person needs a phone and a computer with a few tabs, no more: a socket opened beyond
/// `SOCKETS_PER_USER` closes the user's oldest, on whichever node it is, with 4001 (which
/// the web app does not reconnect by itself); the others stay open.
async fn a_socket_beyond_the_limit_closes_the_oldest_wherever_it_is(mut app: TestApp) {
    use telepathy_domain::limits::SOCKETS_PER_USER;
    let (first, cookie) = user(&mut app, "alice", "01011112222").await;
    let (there, there_state) = another_node(&app).await;
    let open = |addr: String| {
        let cookie = cookie.clone();
        async move {
            let mut client = Client::connect(&addr, Some(&cookie), ORIGIN).await.unwrap();
            client.expect("hello").await;
            client
        }
    };
    let mut sockets = vec![first];
    for i in 1..SOCKETS_PER_USER {
        let addr = if i % 2 == 0 { &app.addr } else { &there };
        sockets.push(open(addr.clone()).await);
    }
    let mut one_more = open(there.clone()).await;
    assert_eq!(
        sockets[0].expect_close_within(SOON).await,
        Some(4001),
        "the oldest, on the other node"
    );
    for client in sockets[1..].iter_mut().chain([&mut one_more]) {
        client.send_text("{not json").await;
        assert_eq!(
            client.expect("error").await["code"],
            json!("INVALID_REQUEST")
        );
    }

    let _another = open(app.addr.clone()).await;
    assert_eq!(
        sockets[1].expect_close_within(SOON).await,
        Some(4001),
        "the next oldest, on the other node"
    );
    let replaced = "telepathy_sockets_kicked_total{op=\"replaced\"} 1";
    assert!(app.state.metrics.encode().contains(replaced));
    assert!(there_state.metrics.encode().contains(replaced));
}

/// Once told to stop, a node says it is not ready and sends new sockets elsewhere.
async fn a_draining_node_is_not_ready_and_refuses_sockets(mut app: TestApp) {
    let (mut a, cookie) = user(&mut app, "alice", "01011112222").await;
    app.state.realtime.drain();
    assert_eq!(a.expect_close_within(SOON).await, Some(1012));
    let ready = app.get("/readyz").await;
    assert_eq!(ready.status, 503);
    assert_eq!(ready.body["draining"], json!(true));
    assert_eq!(
        Client::connect(&app.addr, Some(&cookie), ORIGIN)
            .await
            .err(),
        Some(503)
    );
}

/// `POST /api/match/end` ends only the caller's own room; for a room the caller was in
/// that has ended already it answers success again, for any other room NOT_IN_ROOM.
async fn only_members_end_a_chat(mut app: TestApp) {
    let (mut a, cookie_a) = user(&mut app, "alice", "01011112222").await;
    let (mut b, cookie_b) = user(&mut app, "bobby", "01033334444").await;
    let (_, cookie_c) = user(&mut app, "carol", "01055556666").await;
    let (ma, _) = pair(&app, &mut a, &mut b).await;
    let room = ma["roomId"].as_str().unwrap().to_owned();

    // A stranger, by the room's id or by nonsense: refused, and the chat goes on.
    app.cookie = Some(cookie_c.clone());
    for id in [room.as_str(), "no-such-room", ""] {
        app.post("/api/match/end", json!({ "roomId": id }))
            .await
            .assert_error(400, "NOT_IN_ROOM");
    }
    assert_eq!(
        a.say(&mut b, &room, "아직 있어?").await["message"],
        json!("아직 있어?")
    );

    // A member ends it; ending it again, or by the partner, is still a success.
    app.cookie = Some(cookie_a.clone());
    app.post("/api/match/end", json!({ "roomId": room }))
        .await
        .assert_ok();
    assert_eq!(b.expect("chatEnded").await["reason"], json!("left"));
    app.post("/api/match/end", json!({ "roomId": room }))
        .await
        .assert_ok();
    app.cookie = Some(cookie_b);
    app.post("/api/match/end", json!({ "roomId": room }))
        .await
        .assert_ok();
    app.cookie = Some(cookie_c.clone());
    app.post("/api/match/end", json!({ "roomId": room }))
        .await
        .assert_error(400, "NOT_IN_ROOM");

    // A room only the store still knows (the engine forgets ended rooms): the same.
    let stored = telepathy_store::RoomRecord {
        id: "f".repeat(32),
        word: "바다".into(),
        round: 1,
        user_a: ma["senderId"].as_i64().unwrap(),
        user_b: ma["receiverId"].as_i64().unwrap(),
        created_at: 0,
        ended_at: Some(1),
    };
    let sides = [
        telepathy_store::MatchSide {
            user_id: stored.user_a,
            nickname: "닉alice",
        },
        telepathy_store::MatchSide {
            user_id: stored.user_b,
            nickname: "닉bobby",
        },
    ];
    app.state.store.record_match(&stored, sides).await.unwrap();
    app.post("/api/match/end", json!({ "roomId": stored.id }))
        .await
        .assert_error(400, "NOT_IN_ROOM");
    app.cookie = Some(cookie_a);
    app.post("/api/match/end", json!({ "roomId": stored.id }))
        .await
        .assert_ok();
    a.close().await;
    b.close().await;
}

/// A room id no room can have (a NUL byte, which PostgreSQL refuses in text) names no room:
/// the caller hears so, where it once got a 500.
async fn room_ids_the_database_cannot_hold_are_refused_as_input(mut app: TestApp) {
    let (_a, _) = user(&mut app, "alice", "01011112222").await;
    let odd = "\u{0}3`\u{cf}XL";
    app.post("/api/match/end", json!({ "roomId": odd }))
        .await
        .assert_error(400, "NOT_IN_ROOM");
    app.post(
        "/api/feedback/add",
        json!({ "roomId": odd, "emotion": "기뻐요" }),
    )
    .await
    .assert_error(400, "FEEDBACK_NO_ROOM");
}

/// A chat message tells the partner that its sender stopped typing (the web app drops the
/// indicator when it arrives), so the `stopTyping` the web app sends after it goes no
/// further; one with no message before it does. Notices keep their places among the
/// messages.
async fn a_message_tells_that_typing_stopped_and_the_stop_after_it_goes_no_further(
    mut app: TestApp,
) {
    let (mut a, _) = user(&mut app, "alice", "01011112222").await;
    let (mut b, _) = user(&mut app, "bobby", "01033334444").await;
    let (ma, _) = pair(&app, &mut a, &mut b).await;
    let room = ma["roomId"].as_str().unwrap().to_owned();
    let at = json!({ "roomId": room });
    for text in ["안녕", "반가워"] {
        a.send("typing", at.clone()).await;
        a.send("chatMessage", json!({ "roomId": room, "message": text }))
            .await;
        a.send("stopTyping", at.clone()).await;
    }
    a.send("typing", at.clone()).await;
    a.send("stopTyping", at.clone()).await;
    let events = ["typing", "stopTyping", "chatMessage"];
    let mut seen = Vec::new();
    for _ in 0..6 {
        let (event, data) = b.expect_any(&events).await;
        seen.push(match event.as_str() {
            "chatMessage" => data["message"].as_str().unwrap().to_owned(),
            _ => event,
        });
    }
    assert_eq!(
        seen,
        ["typing", "안녕", "typing", "반가워", "typing", "stopTyping"]
    );
    b.expect_none_within(&events, std::time::Duration::from_millis(300))
        .await;
    let notices = |op: &str| app.metric(&format!("telepathy_typing_notices_total{{op=\"{op}\"}}"));
    assert_eq!((notices("told"), notices("skipped")), (4.0, 2.0));
}

/// `chatRead` tells the partner, and only the partner, what its sender has read, in order
/// with the sender's messages; `ask` (after a reconnect) goes with it. The mark is named by
/// the server, whatever the client says; a `lastId` of another shape, or a room the sender
/// is not in, is refused before the engine sees it.
async fn a_read_mark_reaches_the_partner_alone_and_a_request_for_one_too(mut app: TestApp) {
    let (mut a, _) = user(&mut app, "alice", "01011112222").await;
    let (mut b, _) = user(&mut app, "bobby", "01033334444").await;
    let (ma, mb) = pair(&app, &mut a, &mut b).await;
    let room = ma["roomId"].as_str().unwrap().to_owned();
    let (id_a, id_b) = (ma["senderId"].clone(), mb["senderId"].clone());
    let hello = a.say(&mut b, &room, "안녕").await;
    a.expect("chatMessage").await;
    b.send(
        "chatRead",
        json!({ "roomId": room, "lastId": hello["id"], "userId": id_a, "ask": false }),
    )
    .await;
    let read = a.expect("chatRead").await;
    assert_eq!(
        read,
        json!({ "roomId": room, "lastId": hello["id"], "userId": id_b })
    );
    // Back from a reconnect, with nothing read yet: a request alone.
    a.send("chatRead", json!({ "roomId": room, "ask": true }))
        .await;
    a.send("chatMessage", json!({ "roomId": room, "message": "또" }))
        .await;
    let asked = b.expect_any(&["chatRead", "chatMessage"]).await;
    assert_eq!(
        asked,
        (
            "chatRead".to_owned(),
            json!({ "roomId": room, "ask": true, "userId": id_a })
        )
    );
    assert_eq!(b.expect("chatMessage").await["message"], json!("또"));
    // Nobody hears their own mark.
    b.expect_none_within(&["chatRead"], std::time::Duration::from_millis(300))
        .await;
    for bad in [json!("12"), json!("x-1"), json!("1-2-3"), json!(5)] {
        b.send("chatRead", json!({ "roomId": room, "lastId": bad }))
            .await;
        let refused = b.expect("error").await;
        assert_eq!(refused["event"], json!("chatRead"), "{bad}");
        assert_eq!(refused["code"], json!("INVALID_REQUEST"), "{bad}");
    }
    let other = "0".repeat(32);
    b.send("chatRead", json!({ "roomId": other, "lastId": "1-0" }))
        .await;
    assert_eq!(b.expect("error").await["code"], json!("NOT_IN_ROOM"));
    a.expect_none_within(&["chatRead"], std::time::Duration::from_millis(300))
        .await;
    assert_eq!(app.metric("telepathy_read_marks_total"), 2.0);
}

/// `typing` and `stopTyping` check the room id as `chatMessage` does: an id of another shape
/// (a key of the room's, say) names no room, and is never handed to the engine.
async fn typing_names_a_room_as_every_other_frame_does(mut app: TestApp) {
    let (mut a, _) = user(&mut app, "alice", "01011112222").await;
    let (mut b, _) = user(&mut app, "bobby", "01033334444").await;
    let (ma, _) = pair(&app, &mut a, &mut b).await;
    let room = ma["roomId"].as_str().unwrap().to_owned();
    let odd = [
        format!("{room}:s"),
        format!("{room}:c"),
        room.to_uppercase(),
        "no-such-room".to_owned(),
        String::new(),
        "\u{0}".to_owned(),
    ];
    for event in ["typing", "stopTyping", "chatMessage"] {
        for id in &odd {
            a.send(event, json!({ "roomId": id, "message": "안녕" }))
                .await;
            let refused = a.expect("error").await;
            assert_eq!(refused["event"], json!(event), "{id:?}");
            assert_eq!(refused["code"], json!("NOT_IN_ROOM"), "{event} {id:?}");
        }
    }
    // Not one of them reached the engine (where a key of the room's, a stream, would be
    // read as a room: Redis refuses with WRONGTYPE).
    let relayed = r#"telepathy_typing_notices_total{op="told"}"#;
    assert_eq!(app.metric(relayed), 0.0);
    assert_eq!(
        app.metric(r#"telepathy_engine_errors_total{op="room"}"#),
        0.0
    );
    // The room itself still works.
    a.send("typing", json!({ "roomId": room })).await;
    assert_eq!(b.expect("typing").await["roomId"], json!(room));
    assert_eq!(app.metric(relayed), 1.0);
}

/// Abusive words reach nobody, the sender's own echo included, and contact details are
/// masked in the first minutes of a chat; the archive keeps what was said, for the
/// operations team.
async fn abuse_and_early_contacts_are_masked_and_the_archive_keeps_what_was_said(mut app: TestApp) {
    let (mut a, _) = user(&mut app, "alice", "01011112222").await;
    let (mut b, _) = user(&mut app, "bobby", "01033334444").await;
    let (ma, _) = pair(&app, &mut a, &mut b).await;
    let room = ma["roomId"].as_str().unwrap().to_owned();
    let said = [
        ("야 tlqkf 뭐해", "야 ***** 뭐해"),
        ("카톡 아이디 abc123 추가해", "카톡 아이디 ****** 추가해"),
        ("내일 8시 30분에 봐요", "내일 8시 30분에 봐요"),
    ];
    for (text, shown) in said {
        assert_eq!(a.say(&mut b, &room, text).await["message"], json!(shown));
        assert_eq!(a.expect("chatMessage").await["message"], json!(shown));
    }
    // A member who comes back reads the masked text too.
    b.send("resume", json!({ "roomId": room })).await;
    let resumed = b.expect("chatMessage").await;
    assert_eq!(resumed["message"], json!("야 ***** 뭐해"));

    archive_recorded(&app, &room).await;
    let transcript = app.state.store.transcript(&room).await.unwrap();
    assert_eq!(
        transcript
            .iter()
            .map(|m| m.body.as_str())
            .collect::<Vec<_>>(),
        said.map(|(text, _)| text)
    );
    let metrics = app.state.metrics.encode();
    assert!(
        metrics.contains("telepathy_messages_masked_total{op=\"abuse\"} 1"),
        "{metrics}"
    );
    assert!(
        metrics.contains("telepathy_messages_masked_total{op=\"contact\"} 1"),
        "{metrics}"
    );
}

/// After a chat, either member can block the other: from then on the two are never
/// paired, whoever waits first, while others still are; only a member of the room can.
async fn a_blocked_partner_is_never_matched_again(mut app: TestApp) {
    let (mut a, cookie_a) = user(&mut app, "alice", "01011112222").await;
    let (mut b, _) = user(&mut app, "bobby", "01033334444").await;
    let (mut c, cookie_c) = user(&mut app, "carol", "01055556666").await;
    let (ma, _) = pair(&app, &mut a, &mut b).await;
    let room = ma["roomId"].clone();
    a.send("leaveRoom", json!({ "roomId": room })).await;
    b.expect("chatEnded").await;

    app.cookie = Some(cookie_c);
    app.post("/api/match/block", json!({ "roomId": room }))
        .await
        .assert_error(400, "NOT_IN_ROOM");
    app.cookie = Some(cookie_a);
    let blocked = app
        .post("/api/match/block", json!({ "roomId": room }))
        .await;
    blocked.assert_ok();
    app.post("/api/match/block", json!({ "roomId": room }))
        .await
        .assert_ok();
    // The bell that makes both sockets read their lists again travels over the bus.
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;

    // Either may wait first; each turn on a word of its own (a join moves a waiter).
    let mut turns = 0;
    for word in 0..4 {
        let done = if turns == 0 {
            kept_apart_turn(&app, &mut b, &mut a, &mut c, word).await
        } else {
            kept_apart_turn(&app, &mut a, &mut b, &mut c, word).await
        };
        turns += usize::from(done);
        if turns == 2 {
            break;
        }
    }
    assert_eq!(turns, 2, "two turns within four words");
}

/// `first` waits, `second` (kept apart from it) joins the same word and must wait too,
/// and `third` then takes `first`. False when a round ended in between.
async fn kept_apart_turn(
    app: &TestApp,
    first: &mut Client,
    second: &mut Client,
    third: &mut Client,
    word: usize,
) -> bool {
    let r = app.state.realtime.round_state();
    let (round, word) = (r.round, r.words[word].word.clone());
    first
        .send("join_match", json!({ "word": word, "round": round }))
        .await;
    if first.expect_any(&["matchWaiting", "error"]).await.0 == "error" {
        return false;
    }
    second
        .send("join_match", json!({ "word": word, "round": round }))
        .await;
    match second
        .expect_any(&["matchWaiting", "matched", "error"])
        .await
        .0
        .as_str()
    {
        "error" => return false,
        got => assert_eq!(got, "matchWaiting", "kept apart"),
    }
    third
        .send("join_match", json!({ "word": word, "round": round }))
        .await;
    let (got, with) = third.expect_any(&["matched", "error"]).await;
    if got == "error" {
        return false;
    }
    let partner = first.expect("matched").await;
    assert_eq!(
        partner["roomId"], with["roomId"],
        "the third takes the first waiter"
    );
    third
        .send("leaveRoom", json!({ "roomId": with["roomId"] }))
        .await;
    first.expect("chatEnded").await;
    true
}

/// Runs a turn of the archive once the room is in SQL (the recorder writes it a moment
/// after the match; until then the archive leaves the room's messages for its next turn).
async fn archive_recorded(app: &TestApp, room: &str) {
    for _ in 0..100 {
        if app.state.store.room_record(room).await.unwrap().is_some() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    app.state.engine.clear("lease:archive").await.unwrap();
    app.state
        .realtime
        .archive(telepathy_engine::ArchiveShare::ALL)
        .await;
}

/// Binary frames count toward the frame limit like text ones (they are read for nothing),
/// and a flood far past it closes the socket with a policy violation instead of costing
/// the node an answer per frame.
async fn binary_frames_count_and_a_flood_closes_the_socket(mut app: TestApp) {
    let (mut a, _) = user(&mut app, "alice", "01011112222").await;
    for _ in 0..40 {
        assert!(a.send_binary(vec![0; 1024]).await);
    }
    a.send("getOnlineCount", json!({})).await;
    let refused = a.expect("error").await;
    assert_eq!(refused["code"], json!("RATE_LIMITED"));
    assert_eq!(refused["event"], json!("getOnlineCount"));
    for _ in 0..200 {
        if !a.send_binary(vec![0; 1024]).await {
            break;
        }
    }
    assert_eq!(a.expect_close_within(SOON).await, Some(1008));
    let metrics = app.state.metrics.encode();
    assert!(
        metrics.contains("telepathy_sockets_kicked_total{op=\"flood\"} 1"),
        "{metrics}"
    );
}

/// A frame over 16 KiB is not read: the socket closes with "message too big".
async fn a_frame_over_the_size_limit_closes_the_socket(mut app: TestApp) {
    let (mut a, _) = user(&mut app, "alice", "01011112222").await;
    a.send_text(&format!(
        "{{\"event\":\"getOnlineCount\",\"data\":{{\"pad\":\"{}\"}}}}",
        "x".repeat(20 * 1024)
    ))
    .await;
    assert_eq!(a.expect_close_within(SOON).await, Some(1009));
}

/// `resume` names a position in the stream; anything that is not one is refused alike on
/// both engines (Redis would fail on it, memory would replay everything).
async fn a_malformed_last_id_is_refused_on_both_engines(mut app: TestApp) {
    let (mut a, _) = user(&mut app, "alice", "01011112222").await;
    let (mut b, _) = user(&mut app, "bobby", "01033334444").await;
    let (ma, _) = pair(&app, &mut a, &mut b).await;
    let room = ma["roomId"].clone();
    let first = a.say(&mut b, &room, "하나").await;
    for bad in ["abc", "+", "-", "1-", "1-2-3", ""] {
        b.send("resume", json!({ "roomId": room, "lastId": bad }))
            .await;
        let refused = b.expect("error").await;
        assert_eq!(refused["event"], json!("resume"), "{bad}");
        assert_eq!(refused["code"], json!("INVALID_REQUEST"), "{bad}");
    }
    b.send("resume", json!({ "roomId": room, "lastId": "0-0" }))
        .await;
    assert_eq!(b.expect("chatMessage").await["id"], first["id"]);
    assert_eq!(b.expect("resumed").await["count"], json!(1));
}

/// A message sent again with its client id (after an answer that was lost) is delivered
/// once and echoed to the sender with its first id.
async fn a_retry_with_its_client_id_is_delivered_once(mut app: TestApp) {
    let (mut a, _) = user(&mut app, "alice", "01011112222").await;
    let (mut b, _) = user(&mut app, "bobby", "01033334444").await;
    let (ma, _) = pair(&app, &mut a, &mut b).await;
    let room = ma["roomId"].clone();
    let once = json!({ "roomId": room, "message": "한 번만", "clientId": "c-1" });
    a.send("chatMessage", once.clone()).await;
    let echo = a.expect("chatMessage").await;
    assert_eq!(b.expect("chatMessage").await["id"], echo["id"]);
    a.send("chatMessage", once).await;
    let again = a.expect("chatMessage").await;
    assert_eq!(again["id"], echo["id"]);
    assert_eq!(again["clientId"], json!("c-1"));
    // The partner's next message is the next one sent, not the retry.
    a.send(
        "chatMessage",
        json!({ "roomId": room, "message": "다음", "clientId": "c-2" }),
    )
    .await;
    assert_eq!(b.expect("chatMessage").await["message"], json!("다음"));
    b.send("resume", json!({ "roomId": room })).await;
    assert_eq!(b.expect("resumed").await["count"], json!(2));
}

/// Control characters, direction overrides and invisible splitters never reach the
/// partner nor the archive; a message of nothing else is empty.
async fn text_is_cleaned_before_it_is_sent_or_stored(mut app: TestApp) {
    let (mut a, _) = user(&mut app, "alice", "01011112222").await;
    let (mut b, _) = user(&mut app, "bobby", "01033334444").await;
    let (ma, _) = pair(&app, &mut a, &mut b).await;
    let room = ma["roomId"].as_str().unwrap().to_owned();
    let got = a
        .say(&mut b, &room, "안\u{0}녕\u{202e}하\u{200b}세요\r\n반가워")
        .await;
    assert_eq!(got["message"], json!("안녕하세요\n반가워"));
    a.send(
        "chatMessage",
        json!({ "roomId": room, "message": "\u{0}\u{200b} \u{7}" }),
    )
    .await;
    assert_eq!(a.expect("error").await["code"], json!("MESSAGE_EMPTY"));
    archive_recorded(&app, &room).await;
    let transcript = app.state.store.transcript(&room).await.unwrap();
    assert_eq!(transcript.len(), 1);
    assert_eq!(transcript[0].body, "안녕하세요\n반가워");
}

/// A message in a room stream that the database refuses (a NUL byte on PostgreSQL, as a
/// stream written before texts were cleaned may hold) is left out of the archive, counted
/// and logged once; the messages beside it, in its room and others, are archived.
async fn a_message_the_database_refuses_holds_back_no_other(mut app: TestApp) {
    let (mut a, _) = user(&mut app, "alice", "01011112222").await;
    let (mut b, _) = user(&mut app, "bobby", "01033334444").await;
    let (mut c, _) = user(&mut app, "carol", "01055556666").await;
    let (mut d, _) = user(&mut app, "danny", "01077778888").await;
    let (ma, mb) = pair(&app, &mut a, &mut b).await;
    let (mc, _) = pair(&app, &mut c, &mut d).await;
    let first = ma["roomId"].as_str().unwrap().to_owned();
    let second = mc["roomId"].as_str().unwrap().to_owned();
    a.say(&mut b, &first, "하나").await;
    let poison = json!({ "from": mb["receiverId"], "text": "독\u{0}", "at": app.state.shared_clock.now_ms(), "client_id": null });
    let frame = telepathy_engine::MessageFrame {
        head: "{\"event\":\"injected\",\"data\":{\"id\":\"",
        tail: "\"}}",
    };
    let room = app.state.engine.room(&first).await.unwrap().unwrap();
    app.state
        .engine
        .send(
            &room,
            ma["senderId"].as_i64().unwrap(),
            None,
            &poison.to_string(),
            &frame,
        )
        .await
        .unwrap()
        .unwrap();
    a.say(&mut b, &first, "셋").await;
    c.say(&mut d, &second, "넷").await;
    archive_recorded(&app, &first).await;
    archive_recorded(&app, &second).await;
    let bodies = |room: &str| {
        let store = app.state.store.clone();
        let room = room.to_owned();
        async move {
            store
                .transcript(&room)
                .await
                .unwrap()
                .into_iter()
                .map(|m| m.body)
                .collect::<Vec<_>>()
        }
    };
    let postgres = app.state.config.backend == telepathy_store::Backend::Postgres;
    if postgres {
        assert_eq!(bodies(&first).await, ["하나", "셋"]);
        let metrics = app.state.metrics.encode();
        assert!(
            metrics.contains("telepathy_store_rejected_total{op=\"archive_messages\"} 1"),
            "{metrics}"
        );
    } else {
        assert_eq!(bodies(&first).await, ["하나", "독\0", "셋"]);
    }
    assert_eq!(bodies(&second).await, ["넷"]);
    // The next turn moves on: nothing is tried again, nothing counted twice.
    app.state.engine.clear("lease:archive").await.unwrap();
    app.state
        .realtime
        .archive(telepathy_engine::ArchiveShare::ALL)
        .await;
    if postgres {
        assert!(app
            .state
            .metrics
            .encode()
            .contains("telepathy_store_rejected_total{op=\"archive_messages\"} 1"));
    }
}

/// The member whose partner left is offered what the leaver is: a mood for the chat and
/// never meeting the partner again. The server takes both from either member, and from
/// nobody else.
async fn the_one_who_was_left_may_rate_the_chat_and_block_the_partner(mut app: TestApp) {
    let (mut a, _) = user(&mut app, "alice", "01011112222").await;
    let (mut b, cookie_b) = user(&mut app, "bobby", "01033334444").await;
    let (_, stranger) = user(&mut app, "carol", "01055556666").await;
    let (ma, _) = pair(&app, &mut a, &mut b).await;
    let room = ma["roomId"].as_str().unwrap().to_owned();
    a.send("leaveRoom", json!({ "roomId": room })).await;
    assert_eq!(b.expect("chatEnded").await["reason"], json!("left"));
    archive_recorded(&app, &room).await;

    app.cookie = Some(stranger);
    app.post(
        "/api/feedback/add",
        json!({ "roomId": room, "emotion": "화나요" }),
    )
    .await
    .assert_error(400, "FEEDBACK_NO_ROOM");
    app.post("/api/match/block", json!({ "roomId": room }))
        .await
        .assert_error(400, "NOT_IN_ROOM");

    app.cookie = Some(cookie_b);
    app.post(
        "/api/feedback/add",
        json!({ "roomId": room, "emotion": "슬퍼요" }),
    )
    .await
    .assert_ok();
    app.post("/api/match/block", json!({ "roomId": room }))
        .await
        .assert_ok();
    let alice = ma["senderId"].as_i64().unwrap();
    let bobby = ma["receiverId"].as_i64().unwrap();
    assert_eq!(
        app.state.store.kept_apart(bobby).await.unwrap(),
        vec![alice]
    );
}

/// `GET /api/match/current` answers what the server knows, to any page of the member's:
/// nothing before a first chat, the room (as `matched` told it) while they sit in one, on
/// every device, and the chat that ended once it has.
async fn the_current_chat_is_what_the_server_knows(mut app: TestApp) {
    let (mut a, cookie_a) = user(&mut app, "alice", "01011112222").await;
    let (mut b, cookie_b) = user(&mut app, "bobby", "01033334444").await;
    let none = app.get("/api/match/current").await;
    assert_eq!(none.assert_ok(), &json!({}));
    let (ma, mb) = pair(&app, &mut a, &mut b).await;
    let room = ma["roomId"].clone();

    for (cookie, matched) in [(&cookie_a, &ma), (&cookie_b, &mb)] {
        app.cookie = Some(cookie.clone());
        let current = app.get("/api/match/current").await;
        assert_eq!(&current.assert_ok()["room"], matched);
        assert!(current.body["ended"].is_null());
    }
    app.cookie = None;
    app.get("/api/match/current")
        .await
        .assert_error(401, "UNAUTHORIZED");

    b.send("leaveRoom", json!({ "roomId": room })).await;
    a.expect("chatEnded").await;
    archive_recorded(&app, room.as_str().unwrap()).await;
    for (cookie, partner) in [(&cookie_a, "닉bobby"), (&cookie_b, "닉alice")] {
        app.cookie = Some(cookie.clone());
        let current = app.get("/api/match/current").await;
        assert!(current.assert_ok()["room"].is_null());
        assert_eq!(
            current.body["ended"],
            json!({ "roomId": room, "word": ma["word"], "partnerNickname": partner })
        );
    }
}

/// Both members open on the same question, drawn from their word alone; either may ask for
/// the next one, and both are told the same. Only a member of the open room may ask, and
/// the text is never the client's to give.
async fn both_members_see_the_same_question_and_either_draws_the_next(mut app: TestApp) {
    let (mut a, cookie_a) = user(&mut app, "alice", "01011112222").await;
    let (mut b, _) = user(&mut app, "bobby", "01033334444").await;
    let (mut c, _) = user(&mut app, "carol", "01055556666").await;
    let (ma, mb) = pair(&app, &mut a, &mut b).await;
    let room = ma["roomId"].as_str().unwrap().to_owned();
    let word = ma["word"].as_str().unwrap().to_owned();
    let first = ma["question"].as_str().unwrap().to_owned();
    assert_eq!(mb["question"], json!(first));
    assert_eq!(
        (&ma["questionDraw"], &mb["questionDraw"]),
        (&json!(0), &json!(0))
    );
    assert!(
        questions::questions_of(&word).is_some_and(|q| q.contains(&first.as_str())),
        "{first:?} is not one of {word:?}'s questions"
    );
    app.cookie = Some(cookie_a);
    let current = app.get("/api/match/current").await;
    assert_eq!(current.assert_ok()["room"]["question"], json!(first));

    // Either member asks; both hear the same next question, a text of the client's own
    // is not read.
    a.send(
        "nextQuestion",
        json!({ "roomId": room, "draw": 0, "question": "내가 정한 질문?" }),
    )
    .await;
    let (qa, qb) = (a.expect("question").await, b.expect("question").await);
    assert_eq!(qa, qb);
    assert_eq!((&qa["roomId"], &qa["draw"]), (&json!(room), &json!(1)));
    assert_eq!(qa["question"], json!(questions::question(&word, &room, 1)));
    assert_ne!(qa["question"], json!(first));
    b.send("nextQuestion", json!({ "roomId": room, "draw": 1 }))
        .await;
    let (qa, qb) = (a.expect("question").await, b.expect("question").await);
    assert_eq!(qa, qb);
    assert_eq!(qa["draw"], json!(2));
    assert_ne!(qa["question"], json!(questions::question(&word, &room, 1)));

    // A stranger, by the room's id or by nonsense, and a draw past the last: refused, and
    // neither member hears a thing.
    for id in [room.clone(), room.to_uppercase(), "no-such-room".to_owned()] {
        c.send("nextQuestion", json!({ "roomId": id, "draw": 2 }))
            .await;
        let refused = c.expect("error").await;
        assert_eq!(
            (&refused["event"], &refused["code"]),
            (&json!("nextQuestion"), &json!("NOT_IN_ROOM")),
            "{id}"
        );
    }
    a.send("nextQuestion", json!({ "roomId": room, "draw": u32::MAX }))
        .await;
    assert_eq!(a.expect("error").await["code"], json!("INVALID_REQUEST"));
    a.send("nextQuestion", json!({ "roomId": room, "draw": -1 }))
        .await;
    assert_eq!(a.expect("error").await["code"], json!("INVALID_REQUEST"));
    let quiet = std::time::Duration::from_millis(300);
    a.expect_none_within(&["question"], quiet).await;
    b.expect_none_within(&["question"], quiet).await;

    // Once the chat has ended, nobody draws in it.
    b.send("leaveRoom", json!({ "roomId": room })).await;
    a.expect("chatEnded").await;
    a.send("nextQuestion", json!({ "roomId": room, "draw": 2 }))
        .await;
    assert_eq!(a.expect("error").await["code"], json!("NOT_IN_ROOM"));
    b.expect_none_within(&["question"], quiet).await;
}

async fn a_closed_round_echoes_its_picks_and_tonight_names_the_top_word(mut app: TestApp) {
    let (mut a, cookie_a) = user(&mut app, "alice", "01011112222").await;
    let (mut b, _) = user(&mut app, "bobby", "01033334444").await;
    let (mut c, _) = user(&mut app, "carol", "01055556666").await;
    let (mut d, _) = user(&mut app, "dalia", "01077778888").await;
    let (mut e, _) = user(&mut app, "ellie", "01099990000").await;
    app.cookie = Some(cookie_a);
    let tonight = app.get("/api/match/tonight").await;
    assert_eq!(
        tonight.assert_ok(),
        &json!({ "people": 0, "tied": 0 }),
        "nobody yet"
    );

    let (ma, _) = pair(&app, &mut a, &mut b).await;
    let round = app.state.realtime.round_state();
    let words: Vec<String> = round.words.iter().map(|w| w.word.clone()).collect();
    assert_eq!(ma["word"], json!(words[0]));
    c.send(
        "join_match",
        json!({ "word": words[1], "round": round.round }),
    )
    .await;
    c.expect("matchWaiting").await;
    d.send(
        "join_match",
        json!({ "word": words[0], "round": round.round }),
    )
    .await;
    d.expect("matchWaiting").await;
    e.send(
        "join_match",
        json!({ "word": words[2], "round": round.round }),
    )
    .await;
    e.expect("matchWaiting").await;
    // The round closes: everyone hears the counts, in the round's order, names never.
    app.advance_beating(std::time::Duration::from_secs(30))
        .await;
    let counts = [3, 1, 1, 0];
    for client in [&mut a, &mut b, &mut c, &mut d, &mut e] {
        let echo = client.expect("roundEcho").await;
        assert_eq!(echo["round"], json!(round.round));
        let shown: Vec<(String, u64)> = echo["words"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| {
                (
                    w["word"].as_str().unwrap().to_owned(),
                    w["count"].as_u64().unwrap(),
                )
            })
            .collect();
        let expected: Vec<(String, u64)> = words.iter().cloned().zip(counts).collect();
        assert_eq!(shown, expected);
        assert!(!echo.to_string().contains("닉"), "{echo}");
    }
    // The half minute of the nobody-yet answer has passed (a second more: the shared
    // clock's measured skew moves by a millisecond or two meanwhile): tonight's word is
    // read again, once the room is on record (the record follows the match).
    app.clock.advance(std::time::Duration::from_secs(1));
    let room = ma["roomId"].as_str().unwrap().to_owned();
    for _ in 0..100 {
        if app.state.store.room_record(&room).await.unwrap().is_some() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let tonight = app.get("/api/match/tonight").await;
    assert_eq!(
        tonight.assert_ok(),
        &json!({ "word": words[0], "people": 2, "tied": 0 })
    );
    // A round nobody picked in is not echoed.
    app.advance_beating(std::time::Duration::from_secs(30))
        .await;
    let quiet = std::time::Duration::from_millis(1_500);
    c.expect_none_within(&["roundEcho"], quiet).await;
}

/// Rounds only move on: the shared clock stepping back over a round's start (its skew
/// measured again) and on again does not begin that round a second time, nor echo the
/// round before again.
async fn a_round_begins_once_though_the_clock_steps_back_over_its_start(mut app: TestApp) {
    use std::time::Duration;
    let (mut a, _) = user(&mut app, "alice", "01011112222").await;
    let round = app.state.realtime.round_state();
    app.advance_beating(Duration::from_secs(30)).await;
    let next = a.expect("round").await;
    assert_eq!(next["round"], json!(round.round + 1));
    // Back to half a second before the round's start, far more than the shared clock's
    // skew moves by while the test runs, and on again.
    let now = app.state.realtime.round_state();
    let at = telepathy_domain::round::RoundAt::of(
        chrono::DateTime::from_timestamp_millis(now.server_time).unwrap(),
    );
    let back = Duration::from_millis(
        u64::try_from(telepathy_domain::round::ROUND_MS - at.remaining_ms).unwrap() + 500,
    );
    app.clock.rewind(back);
    // The rounds' task looks at the clock at least once a second.
    tokio::time::sleep(Duration::from_millis(1_200)).await;
    app.clock.advance(back);
    a.expect_none_within(&["round", "roundEcho"], Duration::from_millis(1_500))
        .await;
}

/// An account that opens and closes sockets in a loop is refused the upgrade past
/// `SOCKET_OPENS_PER_USER` a window; another account is not held back.
async fn socket_opens_are_limited_per_account(mut app: TestApp) {
    use telepathy_domain::limits::SOCKET_OPENS_PER_USER;
    let (first, cookie) = user(&mut app, "alice", "01011112222").await;
    first.close().await;
    for _ in 1..SOCKET_OPENS_PER_USER {
        let mut c = Client::connect(&app.addr, Some(&cookie), ORIGIN)
            .await
            .unwrap();
        c.expect("hello").await;
        c.close().await;
    }
    assert_eq!(
        Client::connect(&app.addr, Some(&cookie), ORIGIN)
            .await
            .err(),
        Some(429)
    );
    let (mut other, _) = user(&mut app, "bobby", "01033334444").await;
    other.send("getOnlineCount", json!({})).await;
}

/// With fewer than `ROUND_ECHO_MIN_PICKS` picks in a round, its echo would tell each of the
/// few what the others chose: it is not sent.
async fn a_round_of_few_picks_is_not_echoed(mut app: TestApp) {
    let (mut a, _) = user(&mut app, "alice", "01011112222").await;
    let (mut b, _) = user(&mut app, "bobby", "01033334444").await;
    let (mut c, _) = user(&mut app, "carol", "01055556666").await;
    let round = app.state.realtime.round_state();
    for (client, word) in [(&mut a, 0), (&mut b, 1), (&mut c, 2)] {
        client
            .send(
                "join_match",
                json!({ "word": round.words[word].word, "round": round.round }),
            )
            .await;
        client.expect("matchWaiting").await;
    }
    app.advance_beating(std::time::Duration::from_secs(30))
        .await;
    let quiet = std::time::Duration::from_millis(1_500);
    for client in [&mut a, &mut b, &mut c] {
        client.expect_none_within(&["roundEcho"], quiet).await;
    }
}
