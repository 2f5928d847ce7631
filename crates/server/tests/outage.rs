//! Outages of the shared parts, with servers the tests start and stop themselves: while
//! Redis or PostgreSQL is away a node answers at once that it cannot serve (503 and the
//! Korean message; an error frame on a socket) and says it is not ready; when they come
//! back it heals by itself, with no restart.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{json, Value};
use telepathy_domain::ErrorCode;
use telepathy_store::testing::fresh_url;
use telepathy_store::Backend;

#[path = "support/nodes.rs"]
mod nodes;
#[path = "support/ws_client.rs"]
mod ws_client;

use nodes::{
    connect, free_port, request, round_with, seed, start_node_with, test_redis_url, wait_ready,
    OwnPostgres, OwnRedis,
};

/// How soon a call must be answered while a part is down: the engine and the store give
/// up after 2 s, once per call (a second wait, say to take back a count, would make it 4);
/// the rest is this shared machine's slack.
const FAIL_FAST: Duration = Duration::from_millis(3_500);

#[track_caller]
fn assert_unavailable(status: u16, body: &Value, started: Instant) {
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["code"], json!("UNAVAILABLE"), "{body}");
    assert_eq!(body["message"], json!(ErrorCode::Unavailable.message()));
    assert!(
        started.elapsed() < FAIL_FAST,
        "answered after {:?}",
        started.elapsed()
    );
}

/// A socket of the user that said hello, connecting a second apart up to ten times.
async fn reconnect(node: &nodes::Node, cookie: &str) -> ws_client::Client {
    nodes::reconnect_to(&node.base, cookie, 10).await.0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redis_outage_fails_fast_and_heals_by_itself() {
    let mut redis = OwnRedis::start().await;
    let database_url = fresh_url(Backend::Postgres).await;
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let node = start_node_with(port, &base, &database_url, &redis.url(), "outage:", &[]).await;
    let users = seed(&database_url, 2);
    let mut a = connect(&node, &users[0].1).await;
    a.expect("hello").await;

    redis.stop();
    // A call that counts a rate limit in Redis is refused at once, not left hanging.
    let started = Instant::now();
    let login = json!({ "username": "someone", "password": "abcdefg1" });
    let (status, body, _) =
        request(&base, Method::POST, "/api/auth/login", Some(login), None).await;
    assert_unavailable(status, &body, started);
    // A socket frame that needs Redis gets an error frame with the same code.
    let started = Instant::now();
    a.send("getOnlineCount", json!({})).await;
    let refused = a.expect("error").await;
    assert_eq!(refused["code"], json!("UNAVAILABLE"));
    assert_eq!(refused["event"], json!("getOnlineCount"));
    assert!(started.elapsed() < FAIL_FAST);
    assert!(
        wait_ready(&base, false, Duration::from_secs(10)).await,
        "/readyz still says ready"
    );

    // Redis comes back empty, as after a restart without persistence.
    redis.restart().await;
    assert!(
        wait_ready(&base, true, Duration::from_secs(20)).await,
        "/readyz did not turn ready by itself"
    );
    // The node's sockets are told to reconnect and resume: what was routed to them while
    // Redis was away is lost to them.
    assert_eq!(
        a.expect_close_within(Duration::from_secs(20)).await,
        Some(1013)
    );

    // Presence, matching and the bus work again, with no restart of the node. Clients
    // reconnect as the web app does: until a socket says hello, and again when it is
    // closed (the node may find its beat forgotten by the empty Redis after its bus, and
    // close its sockets a second time to start over under a new name).
    let counted = Instant::now();
    let (mut a, mut b) = 'sockets: loop {
        assert!(
            counted.elapsed() < Duration::from_secs(30),
            "no socket stayed open"
        );
        let mut a = reconnect(&node, &users[0].1).await;
        let b = reconnect(&node, &users[1].1).await;
        while a.try_send("getOnlineCount", json!({})).await {
            match a
                .try_expect_any(&["onlineCount"], Duration::from_secs(5))
                .await
            {
                Ok((_, count)) if count["count"] == json!(2) => break 'sockets (a, b),
                Ok(_) => {
                    assert!(
                        counted.elapsed() < Duration::from_secs(30),
                        "the online count did not come back"
                    );
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                // Closed: connect again.
                Err(_) => break,
            }
        }
    };
    let round = round_with(&base, 5).await;
    let join = json!({ "word": round["words"][0]["word"], "round": round["round"] });
    a.send("join_match", join.clone()).await;
    a.expect("matchWaiting").await;
    b.send("join_match", join).await;
    let matched = b.expect("matched").await;
    assert_eq!(a.expect("matched").await["roomId"], matched["roomId"]);
    assert_eq!(
        a.say(&mut b, &matched["roomId"], "다시 만났네").await["message"],
        json!("다시 만났네")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_outage_answers_503_and_heals_by_itself() {
    let mut pg = OwnPostgres::start().await;
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let prefix = format!("dbdown:{}:", rand::random::<u64>());
    let _node = start_node_with(port, &base, &pg.url(), &test_redis_url(), &prefix, &[]).await;
    let users = seed(&pg.url(), 1);
    let cookie = users[0].1.as_str();
    let profile = |cookie: &str| {
        let (base, cookie) = (base.clone(), cookie.to_owned());
        async move {
            request(
                &base,
                Method::GET,
                "/api/nickname/profile",
                None,
                Some(&cookie),
            )
            .await
        }
    };
    assert_eq!(profile(cookie).await.0, 200);

    pg.stop();
    let started = Instant::now();
    let (status, body, _) = profile(cookie).await;
    assert_unavailable(status, &body, started);
    assert!(
        wait_ready(&base, false, Duration::from_secs(10)).await,
        "/readyz still says ready"
    );

    pg.restart().await;
    assert!(
        wait_ready(&base, true, Duration::from_secs(20)).await,
        "/readyz did not turn ready by itself"
    );
    let (status, body, _) = profile(cookie).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["success"], json!(true));
}

/// A chat message sent while Redis stalls is answered `UNAVAILABLE`, yet runs when Redis
/// wakes up. The sender's retry with the same client id (what the web app does) is then
/// echoed with the stored message's id and never appended twice: the partner has it once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_send_refused_in_a_stalled_redis_is_retried_without_a_double() {
    let redis = OwnRedis::start().await;
    let database_url = fresh_url(Backend::Postgres).await;
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let node = start_node_with(port, &base, &database_url, &redis.url(), "stall:", &[]).await;
    let users = seed(&database_url, 2);
    let mut a = reconnect(&node, &users[0].1).await;
    let mut b = reconnect(&node, &users[1].1).await;
    let round = round_with(&base, 15).await;
    let join = json!({ "word": round["words"][0]["word"], "round": round["round"] });
    a.send("join_match", join.clone()).await;
    a.expect("matchWaiting").await;
    b.send("join_match", join).await;
    let room = b.expect("matched").await["roomId"].clone();
    a.expect("matched").await;
    let message = json!({ "roomId": room, "message": "얼어붙은 말", "clientId": "c-frozen" });

    redis.freeze();
    let started = Instant::now();
    a.send("chatMessage", message.clone()).await;
    let refused = a.expect("error").await;
    assert_eq!(refused["event"], json!("chatMessage"));
    assert_eq!(refused["code"], json!("UNAVAILABLE"));
    assert!(started.elapsed() < FAIL_FAST, "{:?}", started.elapsed());
    redis.thaw();
    assert!(
        wait_ready(&base, true, Duration::from_secs(20)).await,
        "/readyz did not turn ready"
    );

    // The retry, on a socket of its own as after a reconnect: echoed with one id.
    let mut retry = reconnect(&node, &users[0].1).await;
    retry.send("chatMessage", message).await;
    let echo = retry.expect("chatMessage").await;
    assert_eq!(echo["clientId"], json!("c-frozen"));
    let id = echo["id"].clone();

    // The partner, resuming, finds the message once, under that id.
    let mut partner = reconnect(&node, &users[1].1).await;
    partner.send("resume", json!({ "roomId": room })).await;
    let got = partner.expect("chatMessage").await;
    assert_eq!(got["id"], id);
    assert_eq!(got["message"], json!("얼어붙은 말"));
    assert_eq!(partner.expect("resumed").await["count"], json!(1));
}

/// A socket that closes while Redis stalls (as when many thousands close at once) is not
/// detached in time; its user still stops counting as online once Redis answers, rather
/// than for as long as the node lives.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_detach_lost_to_a_stalled_redis_is_said_again() {
    let redis = OwnRedis::start().await;
    let database_url = fresh_url(Backend::Postgres).await;
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let node = start_node_with(port, &base, &database_url, &redis.url(), "detach:", &[]).await;
    let users = seed(&database_url, 2);
    let leaving = reconnect(&node, &users[0].1).await;
    let _staying = reconnect(&node, &users[1].1).await;
    let online = || async {
        let mut probe = reconnect(&node, &users[1].1).await;
        probe.send("getOnlineCount", json!({})).await;
        probe.expect("onlineCount").await["count"].clone()
    };
    assert_eq!(online().await, json!(2));

    redis.freeze();
    leaving.close().await;
    // The node's detach gives up after 2 s while Redis stalls.
    tokio::time::sleep(Duration::from_secs(4)).await;
    redis.thaw();
    assert!(
        wait_ready(&base, true, Duration::from_secs(20)).await,
        "/readyz did not turn ready"
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut count = online().await;
    while count != json!(1) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(500)).await;
        count = online().await;
    }
    assert_eq!(count, json!(1), "the user who left still counts as online");
}
