//! Megaphones: card payments that cannot be forged or replayed (against a stand-in of
//! PortOne's V1 API), the demo checkout, and `megaphone:send`.

use std::sync::Arc;

use serde_json::{json, Value};
use telepathy_domain::megaphone::{AIR_WAIT_MAX, ON_AIR};
use telepathy_providers::stand_in::{PortOneV1StandIn, V1_API_KEY, V1_API_SECRET};
use telepathy_providers::{PortOneV1Config, PortOneV1Payments, Secret};

use crate::helpers::{TestApp, ORIGIN};
use crate::realtime::user;
use crate::ws_client::SOON;

crate::both!(
    the_count_is_the_session_users_own,
    a_paid_order_grants_its_pack_once,
    the_window_opens_only_for_the_registered_amount,
    forged_replayed_and_mismatched_payments_grant_nothing,
    verify_and_webhook_racing_grant_once,
    a_notification_grants_to_a_user_who_closed_the_tab,
    an_expired_token_is_fetched_again,
    portone_down_is_a_clear_error,
    the_demo_checkout_pays_without_a_card,
    a_megaphone_reaches_everyone_online_with_the_senders_nickname,
    megaphones_are_checked_and_spent_once,
    megaphones_take_turns_and_wait_at_most_a_minute,
);

fn v1(base_url: &str) -> PortOneV1Payments {
    PortOneV1Payments::new(PortOneV1Config {
        api_key: V1_API_KEY.to_owned(),
        api_secret: Secret::new(V1_API_SECRET),
        imp_code: "imp12345678".to_owned(),
        pg: "html5_inicis".to_owned(),
        base_url: base_url.to_owned(),
    })
    .unwrap()
}

/// An app whose card payments go to a fresh PortOne stand-in.
async fn with_portone(app: TestApp) -> (TestApp, PortOneV1StandIn) {
    let portone = PortOneV1StandIn::start().await;
    let app = app.with_payments(Arc::new(v1(&portone.base_url))).await;
    (app, portone)
}

async fn signed_up(app: &mut TestApp, name: &str, phone: &str) -> String {
    app.cookie = None;
    app.sign_up(name, "abcdefg1", phone).await;
    app.cookie.clone().unwrap()
}

async fn prepare(app: &mut TestApp, item: &str) -> Value {
    app.post("/api/payments/prepare", json!({ "item": item }))
        .await
        .assert_ok()
        .clone()
}

fn merchant(order: &Value) -> String {
    order["merchantUid"].as_str().unwrap().to_owned()
}

async fn verify(
    app: &mut TestApp,
    imp_uid: &str,
    merchant_uid: &str,
    item: &str,
) -> crate::helpers::Answer {
    app.post(
        "/api/payments/verify",
        json!({ "imp_uid": imp_uid, "merchant_uid": merchant_uid, "item": item }),
    )
    .await
}

async fn count(app: &mut TestApp) -> i64 {
    app.get("/api/user/megaphone-count").await.assert_ok()["count"]
        .as_i64()
        .unwrap()
}

async fn the_count_is_the_session_users_own(mut app: TestApp) {
    app.get("/api/user/megaphone-count")
        .await
        .assert_error(401, "UNAUTHORIZED");
    app.post("/api/payments/prepare", json!({ "item": "megaphone_1" }))
        .await
        .assert_error(401, "UNAUTHORIZED");
    signed_up(&mut app, "alice", "01011112222").await;
    let answer = app.get("/api/user/megaphone-count").await;
    let body = answer.assert_ok();
    assert_eq!(body["success"], json!(true));
    assert_eq!(body["count"], json!(0));
    assert!(!body["message"].as_str().unwrap().is_empty());
    app.post("/api/payments/prepare", json!({ "item": "megaphone_2" }))
        .await
        .assert_error(400, "PACK_INVALID");
}

async fn a_paid_order_grants_its_pack_once(app: TestApp) {
    let (mut app, portone) = with_portone(app).await;
    signed_up(&mut app, "alice", "01011112222").await;
    let order = prepare(&mut app, "megaphone_5").await;
    assert_eq!(order["amount"], json!(2000));
    assert_eq!(order["megaphones"], json!(5));
    assert_eq!(order["impCode"], json!("imp12345678"));
    assert_eq!(order["demo"], json!(false));
    let m = merchant(&order);
    let imp = portone.pay(&m).unwrap();

    let granted = verify(&mut app, &imp, &m, "megaphone_5").await;
    assert_eq!(granted.assert_ok()["count"], json!(5));
    // The same payment again (a double click, a second tab): success, nothing more.
    let again = verify(&mut app, &imp, &m, "megaphone_5").await;
    assert_eq!(again.assert_ok()["count"], json!(5));
    assert_eq!(count(&mut app).await, 5);

    // A second pack adds up.
    let order = prepare(&mut app, "megaphone_10").await;
    let m = merchant(&order);
    let imp = portone.pay(&m).unwrap();
    let granted = verify(&mut app, &imp, &m, "megaphone_10").await;
    assert_eq!(granted.assert_ok()["count"], json!(15));
}

async fn the_window_opens_only_for_the_registered_amount(app: TestApp) {
    let (mut app, portone) = with_portone(app).await;
    signed_up(&mut app, "alice", "01011112222").await;
    for (item, price) in [
        ("megaphone_1", 500),
        ("megaphone_5", 2000),
        ("megaphone_10", 3500),
    ] {
        let order = prepare(&mut app, item).await;
        assert_eq!(order["amount"], json!(price));
        assert_eq!(portone.prepared(&merchant(&order)), Some(price), "{item}");
    }
    // The demo checkout exists only in demo mode.
    let order = prepare(&mut app, "megaphone_1").await;
    app.post(
        "/api/payments/demo-pay",
        json!({ "merchantUid": merchant(&order) }),
    )
    .await
    .assert_error(404, "NOT_FOUND");
}

async fn forged_replayed_and_mismatched_payments_grant_nothing(app: TestApp) {
    let (mut app, portone) = with_portone(app).await;
    signed_up(&mut app, "bobby", "01033334444").await;
    let bobs = prepare(&mut app, "megaphone_10").await;
    let bobs_imp = portone.pay(&merchant(&bobs)).unwrap();

    signed_up(&mut app, "alice", "01011112222").await;
    let order = prepare(&mut app, "megaphone_5").await;
    let m = merchant(&order);

    // A payment PortOne never saw.
    verify(&mut app, "imp_000000999999", &m, "megaphone_5")
        .await
        .assert_error(400, "PAYMENT_INVALID");
    // Paid, but less than the pack costs.
    let cheap = portone.payment_of(&m, 500, "paid");
    verify(&mut app, &cheap, &m, "megaphone_5")
        .await
        .assert_error(400, "PAYMENT_INVALID");
    // Another user's paid order, claimed as one's own.
    verify(&mut app, &bobs_imp, &merchant(&bobs), "megaphone_10")
        .await
        .assert_error(400, "PAYMENT_INVALID");
    // Another user's payment, for one's own order.
    verify(&mut app, &bobs_imp, &m, "megaphone_5")
        .await
        .assert_error(400, "PAYMENT_INVALID");
    // A cheap pack's payment for a dear pack.
    let one = prepare(&mut app, "megaphone_1").await;
    let one_imp = portone.pay(&merchant(&one)).unwrap();
    verify(&mut app, &one_imp, &merchant(&one), "megaphone_10")
        .await
        .assert_error(400, "PAYMENT_INVALID");
    // Not paid: cancelled in the window, or failed.
    let cancelled = portone.payment_of(&m, 2000, "cancelled");
    verify(&mut app, &cancelled, &m, "megaphone_5")
        .await
        .assert_error(400, "CARD_NOT_PAID");
    let failed = portone.payment_of(&m, 2000, "failed");
    verify(&mut app, &failed, &m, "megaphone_5")
        .await
        .assert_error(400, "CARD_NOT_PAID");
    assert_eq!(count(&mut app).await, 0, "nothing granted");

    // The real payment grants; replaying it for a second order of the same pack does not.
    let imp = portone.pay(&m).unwrap();
    verify(&mut app, &imp, &m, "megaphone_5").await.assert_ok();
    let second = prepare(&mut app, "megaphone_5").await;
    verify(&mut app, &imp, &merchant(&second), "megaphone_5")
        .await
        .assert_error(400, "PAYMENT_INVALID");
    // A payment cancelled after its grant is not granted again by a late verify.
    portone.cancel(&imp);
    verify(&mut app, &imp, &m, "megaphone_5")
        .await
        .assert_error(400, "CARD_NOT_PAID");
    assert_eq!(count(&mut app).await, 5);

    // Bob still owns nothing: his order was never verified by him.
    app.cookie = None;
    app.login("bobby", "abcdefg1").await.assert_ok();
    assert_eq!(count(&mut app).await, 0);
}

async fn verify_and_webhook_racing_grant_once(app: TestApp) {
    let (mut app, portone) = with_portone(app).await;
    let cookie = signed_up(&mut app, "alice", "01011112222").await;
    let order = prepare(&mut app, "megaphone_10").await;
    let m = merchant(&order);
    let imp = portone.pay(&m).unwrap();

    let verify = json!({ "imp_uid": imp, "merchant_uid": m, "item": "megaphone_10" });
    let notice = json!({ "imp_uid": imp, "merchant_uid": m, "status": "paid" });
    let mut calls = Vec::new();
    for i in 0..12 {
        let request = if i % 2 == 0 {
            app.client
                .post("/api/payments/verify")
                .header("origin", ORIGIN)
                .header("cookie", cookie.clone())
                .body_json(&verify)
        } else {
            // PortOne's server: no cookie, no Origin.
            app.client.post("/api/payments/webhook").body_json(&notice)
        };
        calls.push(request.send());
    }
    for response in futures_util::future::join_all(calls).await {
        response.assert_status_is_ok();
    }
    assert_eq!(count(&mut app).await, 10, "one pack, however many asked");
}

async fn a_notification_grants_to_a_user_who_closed_the_tab(app: TestApp) {
    let (mut app, portone) = with_portone(app).await;
    signed_up(&mut app, "alice", "01011112222").await;
    let order = prepare(&mut app, "megaphone_1").await;
    let m = merchant(&order);
    let imp = portone.pay(&m).unwrap();
    let cookie = app.cookie.take();

    // The notification's own fields are not believed: only what PortOne says of imp_uid.
    let lie = app
        .post_with(
            "/api/payments/webhook",
            json!({ "imp_uid": "imp_000000999999", "merchant_uid": m, "status": "paid" }),
            &[],
        )
        .await;
    assert_eq!(lie.assert_ok()["success"], json!(false));
    let notice = app
        .post_with(
            "/api/payments/webhook",
            json!({ "imp_uid": imp, "merchant_uid": "anything", "status": "paid" }),
            &[],
        )
        .await;
    assert_eq!(notice.assert_ok()["success"], json!(true));

    app.cookie = cookie;
    assert_eq!(count(&mut app).await, 1);
    // Coming back later, the page's own verify answers the same count.
    assert_eq!(
        verify(&mut app, &imp, &m, "megaphone_1").await.assert_ok()["count"],
        json!(1)
    );
}

async fn an_expired_token_is_fetched_again(app: TestApp) {
    let (mut app, portone) = with_portone(app).await;
    signed_up(&mut app, "alice", "01011112222").await;
    let order = prepare(&mut app, "megaphone_1").await;
    let second = prepare(&mut app, "megaphone_1").await;
    assert_eq!(portone.token_requests(), 1, "one token serves many calls");
    portone.expire_tokens();
    let imp = portone.pay(&merchant(&order)).unwrap();
    verify(&mut app, &imp, &merchant(&order), "megaphone_1")
        .await
        .assert_ok();
    assert_eq!(portone.token_requests(), 2);
    assert!(portone.prepared(&merchant(&second)).is_some());
}

async fn portone_down_is_a_clear_error(app: TestApp) {
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", listener.local_addr().unwrap())
    };
    let mut app = app.with_payments(Arc::new(v1(&closed))).await;
    signed_up(&mut app, "alice", "01011112222").await;
    app.post("/api/payments/prepare", json!({ "item": "megaphone_1" }))
        .await
        .assert_error(502, "PAYMENT_UNAVAILABLE");
    // PortOne is asked again when its notification cannot be checked now.
    let notice = app
        .post_with(
            "/api/payments/webhook",
            json!({ "imp_uid": "imp_1", "merchant_uid": "m", "status": "paid" }),
            &[],
        )
        .await;
    assert_eq!(notice.status.as_u16(), 502);
}

/// Buys `item` through the demo checkout; the count after.
pub async fn buy(app: &mut TestApp, item: &str) -> i64 {
    let order = prepare(app, item).await;
    assert_eq!(order["demo"], json!(true));
    let m = merchant(&order);
    let paid = app
        .post("/api/payments/demo-pay", json!({ "merchantUid": m }))
        .await;
    let imp = paid.assert_ok()["impUid"].as_str().unwrap().to_owned();
    verify(app, &imp, &m, item).await.assert_ok()["count"]
        .as_i64()
        .unwrap()
}

async fn the_demo_checkout_pays_without_a_card(mut app: TestApp) {
    let bob = signed_up(&mut app, "bobby", "01033334444").await;
    let bobs = prepare(&mut app, "megaphone_1").await;
    // A notification names any order it likes, and a demo payment id can be written by
    // hand: in the demo only the owner's verify settles an order.
    app.cookie = None;
    let forged =
        json!({ "imp_uid": format!("imp_demo_500_{}", merchant(&bobs)), "status": "paid" });
    let notice = app.post("/api/payments/webhook", forged).await;
    assert_eq!(notice.body["success"], json!(false), "{:?}", notice.body);
    app.cookie = Some(bob);
    assert_eq!(count(&mut app).await, 0);
    signed_up(&mut app, "alice", "01011112222").await;
    assert_eq!(buy(&mut app, "megaphone_5").await, 5);
    assert_eq!(buy(&mut app, "megaphone_1").await, 6);
    // Nobody pays another user's order.
    app.post(
        "/api/payments/demo-pay",
        json!({ "merchantUid": merchant(&bobs) }),
    )
    .await
    .assert_error(400, "PAYMENT_INVALID");
    // A demo payment id names its amount; a forged one for less is refused all the same.
    let order = prepare(&mut app, "megaphone_10").await;
    let m = merchant(&order);
    verify(&mut app, &format!("imp_demo_500_{m}"), &m, "megaphone_10")
        .await
        .assert_error(400, "PAYMENT_INVALID");
    assert_eq!(count(&mut app).await, 6);
}

async fn a_megaphone_reaches_everyone_online_with_the_senders_nickname(mut app: TestApp) {
    let (mut listener, _) = user(&mut app, "bobby", "01033334444").await;
    let (mut sender, _) = user(&mut app, "alice", "01011112222").await;
    assert_eq!(buy(&mut app, "megaphone_5").await, 5);
    sender.expect("megaphoneCount").await;

    sender
        .send(
            "megaphone:send",
            json!({ "message": "  다들 안녕하세요  ", "userId": 1, "nickname": "운영자" }),
        )
        .await;
    // The answer, the megaphone itself and the new count come in any order: the last two
    // come back from the bus, on channels that may be of two Redis servers.
    let (mut sent, mut own, mut counted) = (None, None, None);
    while sent.is_none() || own.is_none() || counted.is_none() {
        let (event, data) = sender
            .expect_any(&["megaphoneSent", "megaphone", "megaphoneCount"])
            .await;
        match event.as_str() {
            "megaphoneSent" => sent = Some(data),
            "megaphone" => own = Some(data),
            _ => counted = Some(data),
        }
    }
    let (sent, own) = (sent.unwrap(), own.unwrap());
    assert_eq!(sent["remaining"], json!(4));
    assert!(!sent["message"].as_str().unwrap().is_empty());
    for heard in [listener.expect("megaphone").await, own] {
        assert_eq!(heard["message"], json!("다들 안녕하세요"));
        assert_eq!(
            heard["nickname"],
            json!("닉alice"),
            "the session's, not the frame's"
        );
        assert_eq!(heard["id"], sent["id"]);
        assert!(heard["sentAt"].as_i64().unwrap() > 0);
    }
    assert_eq!(counted.unwrap()["count"], json!(4));
    assert_eq!(count(&mut app).await, 4);
    // Another one within 10 s is refused with how long to wait, and nothing is spent.
    sender
        .send("megaphone:send", json!({ "message": "한 번 더" }))
        .await;
    let refused = sender.expect("error").await;
    assert_eq!(refused["code"], json!("MEGAPHONE_TOO_SOON"));
    let told = refused["message"].as_str().unwrap();
    assert!(
        told.starts_with("확성기는 10초에 한 번 보낼 수 있어요. ")
            && told.ends_with("초 뒤에 다시 보내주세요."),
        "{told}"
    );
    assert_eq!(count(&mut app).await, 4);
    // A screen that opens during its turn sees it too, for the time it has left.
    let (mut late, _) = user(&mut app, "carol", "01055556666").await;
    let heard = late.expect("megaphone").await;
    assert_eq!(heard["id"], sent["id"]);
    assert_eq!(heard["message"], json!("다들 안녕하세요"));
    let (wait, show) = (
        heard["waitMs"].as_i64().unwrap(),
        heard["showMs"].as_i64().unwrap(),
    );
    assert_eq!(wait, 0);
    assert!(0 < show && show <= 5_000, "{show}");
}

async fn megaphones_are_checked_and_spent_once(mut app: TestApp) {
    let (mut listener, _) = user(&mut app, "bobby", "01033334444").await;
    let (mut tab1, cookie) = user(&mut app, "alice", "01011112222").await;
    let mut tab2 = crate::ws_client::Client::connect(&app.addr, Some(&cookie), ORIGIN)
        .await
        .unwrap();
    tab2.expect("hello").await;

    for (message, code) in [
        ("   ", "MEGAPHONE_EMPTY"),
        (&"가".repeat(21)[..], "MEGAPHONE_TOO_LONG"),
        ("시발 다 나와", "CONTENT_NOT_ALLOWED"),
        ("010-1234-5678 연락줘", "MEGAPHONE_CONTACT"),
        ("안녕하세요", "NO_MEGAPHONES"),
    ] {
        tab1.send("megaphone:send", json!({ "message": message }))
            .await;
        let error = tab1.expect("error").await;
        assert_eq!(error["event"], json!("megaphone:send"));
        assert_eq!(error["code"], json!(code), "{message}");
        assert!(!error["message"].as_str().unwrap().is_empty());
    }

    // One megaphone, two tabs sending at once: one goes out.
    assert_eq!(buy(&mut app, "megaphone_1").await, 1);
    tab1.send("megaphone:send", json!({ "message": "첫째 탭" }))
        .await;
    tab2.send("megaphone:send", json!({ "message": "둘째 탭" }))
        .await;
    let mut outcomes = Vec::new();
    for tab in [&mut tab1, &mut tab2] {
        outcomes.push(tab.expect_any(&["megaphoneSent", "error"]).await.0);
    }
    outcomes.sort();
    assert_eq!(outcomes, ["error", "megaphoneSent"]);
    listener.expect("megaphone").await;
    assert!(
        listener.try_expect("megaphone", SOON).await.is_none(),
        "a second megaphone went out"
    );
    assert_eq!(count(&mut app).await, 0);
}

/// Megaphones sent at once show one after the other, each alone for 5 s; one whose turn
/// would come more than a minute ahead is refused and not spent.
async fn megaphones_take_turns_and_wait_at_most_a_minute(mut app: TestApp) {
    let mut sockets = Vec::new();
    for (name, phone) in [
        ("carol", "01055556666"),
        ("bobby", "01033334444"),
        ("alice", "01011112222"),
    ] {
        let (socket, cookie) = user(&mut app, name, phone).await;
        assert_eq!(buy(&mut app, "megaphone_5").await, 5);
        sockets.push((socket, cookie));
    }
    let (mut carol, carol_cookie) = sockets.remove(0);
    let (mut bobby, _) = sockets.remove(0);
    let (mut alice, _) = sockets.remove(0);

    alice
        .send("megaphone:send", json!({ "message": "첫 번째" }))
        .await;
    let first = alice.expect("megaphoneSent").await;
    bobby
        .send("megaphone:send", json!({ "message": "두 번째" }))
        .await;
    let second = bobby.expect("megaphoneSent").await;
    assert_eq!(first["waitMs"], json!(0));
    assert_eq!(first["message"], json!("확성기를 보냈어요."));
    let wait = second["waitMs"].as_i64().unwrap();
    assert!(
        (3_000..=5_000).contains(&wait),
        "after the first's 5 s: {wait}"
    );
    assert_eq!(
        second["message"],
        json!("확성기를 보냈어요. 앞선 확성기가 끝나는 대로 모두에게 보여요.")
    );
    for expected in ["첫 번째", "두 번째"] {
        let heard = carol.expect("megaphone").await;
        assert_eq!(heard["message"], json!(expected));
        assert_eq!(heard["showMs"], json!(5_000));
    }

    // The next minute's turns all taken: a new megaphone is refused and kept.
    let now = app.state.shared_clock.now_ms();
    while app
        .state
        .engine
        .take_air(now, ON_AIR, AIR_WAIT_MAX)
        .await
        .unwrap()
        .is_some()
    {}
    carol
        .send("megaphone:send", json!({ "message": "세 번째" }))
        .await;
    let error = carol.expect("error").await;
    assert_eq!(error["code"], json!("MEGAPHONE_BUSY"));
    assert_eq!(
        error["message"],
        json!("지금은 확성기를 기다리는 사람이 많아요. 1분쯤 뒤에 다시 보내주세요.")
    );
    app.cookie = Some(carol_cookie);
    assert_eq!(count(&mut app).await, 5, "not spent");
    assert!(
        carol.try_expect("megaphone", SOON).await.is_none(),
        "nothing went out"
    );
}
