//! 다시 텔레파시 end to end: wishes, pairs, invitations, on every setup.

use std::time::Duration;

use serde_json::{json, Value};

use telepathy_providers::push_stand_in::{PushServiceStandIn, ReceivedPush};

use crate::helpers::TestApp;
use crate::realtime::{pair, user};
use crate::ws_client::Client;

crate::both!(
    invitations_at_once_keep_the_nightly_limit,
    both_wishes_make_a_pair_whose_invitation_seats_both_again,
    one_wish_alone_shows_nothing_and_a_block_ends_a_pair,
    an_invitation_reaches_the_devices_and_opens_from_its_push,
);

const QUIET: Duration = Duration::from_millis(300);

/// Ends the chat of `room` from `leaver`'s side; `left` is told.
async fn end_chat(leaver: &mut Client, left: &mut Client, room: &str) {
    leaver.send("leaveRoom", json!({ "roomId": room })).await;
    left.expect("chatEnded").await;
}

async fn wish(app: &mut TestApp, cookie: &str, room: &str) -> crate::helpers::Answer {
    app.cookie = Some(cookie.to_owned());
    app.post("/api/again/wish", json!({ "roomId": room })).await
}

async fn pairs(app: &mut TestApp, cookie: &str) -> Vec<Value> {
    app.cookie = Some(cookie.to_owned());
    let answer = app.get("/api/again/pairs").await;
    answer.assert_ok()["pairs"].as_array().unwrap().clone()
}

async fn invite(app: &mut TestApp, cookie: &str, pair_id: &Value) -> crate::helpers::Answer {
    app.cookie = Some(cookie.to_owned());
    app.post("/api/again/invite", json!({ "pairId": pair_id }))
        .await
}

async fn answer(
    app: &mut TestApp,
    cookie: &str,
    invite_id: &Value,
    accept: bool,
) -> crate::helpers::Answer {
    app.cookie = Some(cookie.to_owned());
    app.post(
        "/api/again/answer",
        json!({ "inviteId": invite_id, "accept": accept }),
    )
    .await
}

async fn both_wishes_make_a_pair_whose_invitation_seats_both_again(mut app: TestApp) {
    let (mut a, cookie_a) = user(&mut app, "alice", "01011112222").await;
    let (mut b, cookie_b) = user(&mut app, "bobby", "01033334444").await;
    let (_c, cookie_c) = user(&mut app, "carol", "01055556666").await;
    let (ma, _) = pair(&app, &mut a, &mut b).await;
    let room = ma["roomId"].as_str().unwrap().to_owned();
    let word = ma["word"].as_str().unwrap().to_owned();
    assert_eq!(
        ma["again"],
        Value::Null,
        "a round's match says nothing of it"
    );

    wish(&mut app, &cookie_a, &room)
        .await
        .assert_error(400, "AGAIN_NO_ROOM");
    end_chat(&mut b, &mut a, &room).await;
    wish(&mut app, &cookie_c, &room)
        .await
        .assert_error(400, "AGAIN_NO_ROOM");
    for _ in 0..2 {
        let wished = wish(&mut app, &cookie_a, &room).await;
        assert_eq!(wished.assert_ok()["paired"], json!(false));
    }
    assert!(pairs(&mut app, &cookie_a).await.is_empty());
    assert!(
        pairs(&mut app, &cookie_b).await.is_empty(),
        "b learns nothing"
    );
    let wished = wish(&mut app, &cookie_b, &room).await;
    assert_eq!(wished.assert_ok()["paired"], json!(true));
    let of_a = pairs(&mut app, &cookie_a).await;
    let of_b = pairs(&mut app, &cookie_b).await;
    assert_eq!(of_a, of_b, "the same pair for both");
    assert_eq!(of_a.len(), 1);
    assert_eq!(
        (&of_a[0]["word"], &of_a[0]["roomId"]),
        (&json!(word), &json!(room))
    );
    let pair_id = of_a[0]["id"].clone();

    // b invites; a is told the word, and nothing of who.
    let sent = invite(&mut app, &cookie_b, &pair_id).await;
    let invite_id = sent.assert_ok()["inviteId"].clone();
    let told = a.expect("againInvite").await;
    assert_eq!(
        (&told["inviteId"], &told["word"], &told["expiresAt"]),
        (&invite_id, &json!(word), &sent.body["expiresAt"])
    );
    assert!(!told.to_string().contains("bobby"), "{told}");
    invite(&mut app, &cookie_a, &pair_id)
        .await
        .assert_error(409, "AGAIN_PENDING");
    answer(&mut app, &cookie_c, &invite_id, true)
        .await
        .assert_error(409, "AGAIN_INVITE_OVER");

    // a accepts: both are seated in a new room of the word, told it is a meeting again.
    let accepted = answer(&mut app, &cookie_a, &invite_id, true).await;
    let again_room = accepted.assert_ok()["roomId"].as_str().unwrap().to_owned();
    assert_ne!(again_room, room);
    let (ma, mb) = (a.expect("matched").await, b.expect("matched").await);
    for m in [&ma, &mb] {
        assert_eq!(
            (&m["roomId"], &m["word"], &m["again"]),
            (&json!(again_room), &json!(word), &json!(true))
        );
    }
    assert_eq!(ma["receiverNickname"], json!("닉bobby"));
    answer(&mut app, &cookie_a, &invite_id, true)
        .await
        .assert_error(409, "AGAIN_INVITE_OVER");
    app.cookie = Some(cookie_b.clone());
    let current = app.get("/api/match/current").await;
    assert_eq!(current.assert_ok()["room"]["roomId"], json!(again_room));
    a.send(
        "chatMessage",
        json!({ "roomId": again_room, "message": "또 만났네요", "clientId": "c1" }),
    )
    .await;
    assert_eq!(
        b.expect("chatMessage").await["message"],
        json!("또 만났네요")
    );

    // Not while in a chat; once it ended, a declined invitation tells its sender nothing.
    invite(&mut app, &cookie_a, &pair_id)
        .await
        .assert_error(409, "ALREADY_IN_ROOM");
    end_chat(&mut a, &mut b, &again_room).await;
    // The history tells the chat they met again in from the one that made the pair, once
    // the recorder has written the room (the record follows the match).
    for _ in 0..100 {
        if app
            .state
            .store
            .room_record(&again_room)
            .await
            .unwrap()
            .is_some()
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    app.cookie = Some(cookie_a.clone());
    let history = app.get("/api/word-history").await;
    let marks: std::collections::BTreeMap<_, _> = history.assert_ok()["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["room_id"].as_str().unwrap().to_owned(),
                h["again"].clone(),
            )
        })
        .collect();
    assert_eq!(
        marks,
        [
            (again_room.clone(), json!(true)),
            (room.clone(), json!(false))
        ]
        .into()
    );
    let sent = invite(&mut app, &cookie_a, &pair_id).await;
    let invite_id = sent.assert_ok()["inviteId"].clone();
    assert_eq!(b.expect("againInvite").await["inviteId"], invite_id);
    let declined = answer(&mut app, &cookie_b, &invite_id, false).await;
    assert_eq!(declined.assert_ok(), &json!({ "success": true }));
    a.expect_none_within(&["matched", "againInvite", "error"], QUIET)
        .await;

    // Either takes the pair back, for both.
    app.cookie = Some(cookie_b.clone());
    let path = format!("/api/again/pairs/{pair_id}");
    app.delete(&path).await.assert_ok();
    app.delete(&path).await.assert_error(404, "AGAIN_NO_PAIR");
    assert!(pairs(&mut app, &cookie_a).await.is_empty());
    invite(&mut app, &cookie_a, &pair_id)
        .await
        .assert_error(404, "AGAIN_NO_PAIR");
}

async fn one_wish_alone_shows_nothing_and_a_block_ends_a_pair(mut app: TestApp) {
    let (mut a, cookie_a) = user(&mut app, "alice", "01011112222").await;
    let (mut b, cookie_b) = user(&mut app, "bobby", "01033334444").await;
    let (ma, _) = pair(&app, &mut a, &mut b).await;
    let first = ma["roomId"].as_str().unwrap().to_owned();
    end_chat(&mut a, &mut b, &first).await;
    wish(&mut app, &cookie_a, &first).await.assert_ok();
    assert!(pairs(&mut app, &cookie_a).await.is_empty());
    assert!(pairs(&mut app, &cookie_b).await.is_empty());
    // Past the hour after the chat, no wish is taken.
    app.clock.advance(Duration::from_secs(61 * 60));
    wish(&mut app, &cookie_b, &first)
        .await
        .assert_error(400, "AGAIN_NO_ROOM");
    assert!(pairs(&mut app, &cookie_a).await.is_empty());

    let (ma, _) = pair(&app, &mut a, &mut b).await;
    let second = ma["roomId"].as_str().unwrap().to_owned();
    end_chat(&mut b, &mut a, &second).await;
    wish(&mut app, &cookie_b, &second).await.assert_ok();
    let wished = wish(&mut app, &cookie_a, &second).await;
    assert_eq!(wished.assert_ok()["paired"], json!(true));
    let pair_id = pairs(&mut app, &cookie_a).await[0]["id"].clone();

    // A block from the mood question after the chat ends the pair for both.
    app.cookie = Some(cookie_b.clone());
    app.post("/api/match/block", json!({ "roomId": second }))
        .await
        .assert_ok();
    assert!(pairs(&mut app, &cookie_a).await.is_empty());
    assert!(pairs(&mut app, &cookie_b).await.is_empty());
    invite(&mut app, &cookie_a, &pair_id)
        .await
        .assert_error(404, "AGAIN_NO_PAIR");
    b.expect_none_within(&["againInvite"], QUIET).await;
}

/// Seven invitations at once to seven pairs send five, the nightly limit, on any setup:
/// each counts and writes in turn.
async fn invitations_at_once_keep_the_nightly_limit(mut app: TestApp) {
    use telepathy_domain::limits::AGAIN_INVITES_A_NIGHT;
    use telepathy_store::{MatchSide, RoomRecord};

    let (_a, cookie_a) = user(&mut app, "alice", "01011112222").await;
    let alice = crate::helpers::user_id(&app, "alice").await;
    let store = app.state.store.clone();
    let now = app.state.clock.now_ms();
    for i in 0..7u32 {
        let name = format!("pal{i}");
        app.cookie = None;
        app.sign_up(&name, "abcdefg1", &format!("0105555{i:04}"))
            .await;
        let pal = crate::helpers::user_id(&app, &name).await;
        let record = RoomRecord {
            id: format!("{:032x}", 0xa9a1_u128 + u128::from(i)),
            word: "바다".into(),
            round: 1,
            user_a: alice,
            user_b: pal,
            created_at: now - 60_000,
            ended_at: None,
        };
        let sides = [
            MatchSide {
                user_id: alice,
                nickname: "닉alice",
            },
            MatchSide {
                user_id: pal,
                nickname: "닉pal",
            },
        ];
        store.record_matches(&[(&record, sides)]).await.unwrap();
        store
            .mark_room_ended(&record.id, now - 30_000)
            .await
            .unwrap();
        let ended = store.room_record(&record.id).await.unwrap().unwrap();
        let until = now + 30 * 86_400_000;
        store.wish_again(&ended, alice, now, until).await.unwrap();
        store
            .wish_again(&ended, pal, now, until)
            .await
            .unwrap()
            .unwrap();
    }
    let pair_ids: Vec<Value> = pairs(&mut app, &cookie_a)
        .await
        .iter()
        .map(|p| p["id"].clone())
        .collect();
    assert_eq!(pair_ids.len(), 7);
    let sends = pair_ids.iter().map(|id| {
        app.client
            .post("/api/again/invite")
            .header("origin", crate::helpers::ORIGIN)
            .header("cookie", &cookie_a)
            .body_json(&json!({ "pairId": id }))
            .send()
    });
    let mut answers = Vec::new();
    for resp in futures_util::future::join_all(sends).await {
        let text = resp.0.into_body().into_string().await.unwrap();
        let body: Value = serde_json::from_str(&text).unwrap();
        answers.push(body["code"].as_str().unwrap_or("SENT").to_owned());
    }
    let sent = answers.iter().filter(|a| *a == "SENT").count();
    assert_eq!(sent as i64, AGAIN_INVITES_A_NIGHT, "{answers:?}");
    assert!(
        answers.iter().all(|a| a == "SENT" || a == "AGAIN_TOO_MANY"),
        "{answers:?}"
    );
}

/// Waits until the push service has received `n` pushes (an invitation's goes out after the
/// sender's answer).
async fn pushes(service: &PushServiceStandIn, n: usize) -> Vec<ReceivedPush> {
    for _ in 0..100 {
        let received = service.received();
        if received.len() >= n {
            return received;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    service.received()
}

async fn an_invitation_reaches_the_devices_and_opens_from_its_push(app: TestApp) {
    let (mut app, service) = crate::push::with_push_service(app).await;
    let (mut a, cookie_a) = user(&mut app, "alice", "01011112222").await;
    let (mut b, cookie_b) = user(&mut app, "bobby", "01033334444").await;
    let (_c, cookie_c) = user(&mut app, "carol", "01055556666").await;
    let device = service.subscribe();
    app.cookie = Some(cookie_a.clone());
    crate::push::bell_on(&mut app, &device).await;
    let (ma, _) = pair(&app, &mut a, &mut b).await;
    let room = ma["roomId"].as_str().unwrap().to_owned();
    let word = ma["word"].as_str().unwrap().to_owned();
    end_chat(&mut b, &mut a, &room).await;
    wish(&mut app, &cookie_a, &room).await.assert_ok();
    wish(&mut app, &cookie_b, &room).await.assert_ok();
    let pair_id = pairs(&mut app, &cookie_b).await[0]["id"].clone();

    let sent = invite(&mut app, &cookie_b, &pair_id).await;
    let invite_id = sent.assert_ok()["inviteId"].as_str().unwrap().to_owned();
    let received = pushes(&service, 1).await;
    assert_eq!(received.len(), 1, "one device, one push");
    let push = &received[0];
    assert_eq!(push.device, device.id);
    let payload: Value = serde_json::from_slice(&push.payload).unwrap();
    assert_eq!(payload["title"], json!("다시 텔레파시"));
    assert_eq!(
        payload["body"],
        json!(format!("‘{word}’의 그 사람이 다시 이야기하고 싶어 해요"))
    );
    assert_eq!(payload["url"], json!(format!("/main?invite={invite_id}")));
    assert_eq!(payload["tag"], json!("again"));
    for name in ["alice", "bobby"] {
        assert!(!payload.to_string().contains(name), "{payload}");
    }
    // No longer than the invitation waits; a phone switched on later is not told.
    assert!(push.ttl > 0 && push.ttl <= 60, "{}", push.ttl);
    assert_eq!(push.topic.as_deref(), Some("again"));
    assert_eq!(push.urgency.as_deref(), Some("high"));

    // The screen the push opens asks for the invitation: its receiver alone, while it waits.
    let path = format!("/api/again/invites/{invite_id}");
    app.cookie = Some(cookie_a.clone());
    let open = app.get(&path).await;
    assert_eq!(
        open.assert_ok()["invite"],
        json!({ "inviteId": invite_id, "word": word, "expiresAt": sent.body["expiresAt"] })
    );
    for cookie in [&cookie_b, &cookie_c] {
        app.cookie = Some(cookie.clone());
        app.get(&path).await.assert_error(409, "AGAIN_INVITE_OVER");
    }
    app.cookie = Some(cookie_a.clone());
    app.get("/api/again/invites/x%00y")
        .await
        .assert_error(409, "AGAIN_INVITE_OVER");
    answer(&mut app, &cookie_a, &json!(invite_id), false)
        .await
        .assert_ok();
    app.cookie = Some(cookie_a.clone());
    app.get(&path).await.assert_error(409, "AGAIN_INVITE_OVER");

    // Without the consent, nothing is pushed.
    app.post("/api/push/consent", json!({ "agree": false }))
        .await
        .assert_ok();
    let sent = invite(&mut app, &cookie_b, &pair_id).await;
    sent.assert_ok();
    tokio::time::sleep(QUIET).await;
    assert_eq!(service.received().len(), 1);
}
