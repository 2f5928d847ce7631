//! Two real `telepathy` processes sharing real Redis and PostgreSQL: users on different
//! nodes match and chat; a node killed with SIGKILL loses no acknowledged message, and its
//! users drop out of the online count.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};
use telepathy_store::testing::fresh_url;
use telepathy_store::Backend;

#[path = "support/ws_client.rs"]
mod ws_client;

use ws_client::Client;

struct Node {
    child: Child,
    base: String,
}

impl Drop for Node {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

async fn start_node(port: u16, origins: &str, database_url: &str, prefix: &str) -> Node {
    let redis = std::env::var("TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let log =
        std::fs::File::create(std::env::temp_dir().join(format!("telepathy-cluster-{port}.log")))
            .unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_telepathy"))
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("DATABASE_URL", database_url)
        .env("REDIS_URL", redis)
        .env("TELEPATHY_REDIS_PREFIX", prefix)
        .env("TELEPATHY_DEMO", "true")
        .env("TELEPATHY_LISTEN", format!("127.0.0.1:{port}"))
        .env("TELEPATHY_PUBLIC_ORIGIN", origins)
        .env("TELEPATHY_STATIC_DIR", std::env::temp_dir())
        .env("TELEPATHY_NODE_ID", format!("node-{port}"))
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap();
    let node = Node {
        child,
        base: format!("http://127.0.0.1:{port}"),
    };
    let http = reqwest::Client::new();
    for _ in 0..100 {
        if let Ok(r) = http.get(format!("{}/readyz", node.base)).send().await {
            if r.status().is_success() {
                return node;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("node on port {port} did not become ready");
}

async fn connect(node: &Node, cookie: &str) -> Client {
    let addr = node.base.trim_start_matches("http://");
    Client::connect(addr, Some(cookie), &node.base)
        .await
        .unwrap()
}

async fn post(
    base: &str,
    path: &str,
    body: Value,
    cookie: Option<&str>,
) -> (Value, Option<String>) {
    let mut req = reqwest::Client::new()
        .post(format!("{base}{path}"))
        .header("origin", base)
        .json(&body);
    if let Some(c) = cookie {
        req = req.header("cookie", c);
    }
    let resp = req.send().await.unwrap();
    let cookie = resp
        .headers()
        .get("set-cookie")
        .and_then(|v| v.to_str().ok())
        .map(|v| v.split(';').next().unwrap_or_default().to_owned());
    let status = resp.status();
    let body: Value = resp.json().await.unwrap();
    assert!(status.is_success(), "{path}: {body}");
    (body, cookie)
}

/// Signs up through `base` (whose demo outbox holds the code) and sets a nickname.
async fn sign_up(base: &str, username: &str, phone: &str) -> String {
    post(
        base,
        "/api/verify-mvp/send",
        json!({ "phone": phone }),
        None,
    )
    .await;
    let outbox: Value = reqwest::get(format!("{base}/api/dev/sms-outbox?phone={phone}"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    post(
        base,
        "/api/verify-mvp/check",
        json!({ "phone": phone, "code": outbox["code"] }),
        None,
    )
    .await;
    let body = json!({ "username": username, "password": "abcdefg1", "phone": phone, "gender": "남성", "birthdate": "19990101" });
    let (_, cookie) = post(base, "/api/register", body, None).await;
    let cookie = cookie.unwrap();
    post(
        base,
        "/api/nickname/set-nickname",
        json!({ "nickname": format!("닉{username}") }),
        Some(&cookie),
    )
    .await;
    cookie
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nodes_share_matching_and_chat_and_survive_a_killed_node() {
    let database_url = fresh_url(Backend::Postgres).await;
    let prefix = format!("cluster:{}:", rand::random::<u64>());
    let (pa, pb) = (free_port(), free_port());
    let origins = format!("http://127.0.0.1:{pa},http://127.0.0.1:{pb}");
    let a = start_node(pa, &origins, &database_url, &prefix).await;
    let b = start_node(pb, &origins, &database_url, &prefix).await;

    let alice = sign_up(&a.base, "alice", "01011112222").await;
    let bobby = sign_up(&b.base, "bobby", "01033334444").await;
    let carol = sign_up(&b.base, "carol", "01055556666").await;

    let mut ca = connect(&a, &alice).await;
    let mut cb = connect(&b, &bobby).await;
    let _cc = connect(&b, &carol).await;
    ca.expect("hello").await;
    cb.expect("hello").await;
    loop {
        if ca.expect("onlineCount").await["count"] == json!(3) {
            break;
        }
    }

    // Match across nodes (retrying once if a round ends between the two joins).
    let mut room = None;
    for _ in 0..2 {
        let round: Value = reqwest::get(format!("{}/api/match/current-round", a.base))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let join = json!({ "word": round["words"][1]["word"], "round": round["round"] });
        ca.send("join_match", join.clone()).await;
        ca.expect("matchWaiting").await;
        cb.send("join_match", join).await;
        let got = tokio::time::timeout(Duration::from_secs(5), ca.expect("matched")).await;
        if let Ok(matched) = got {
            assert_eq!(matched["receiverUsername"], json!("bobby"));
            assert_eq!(
                cb.expect("matched").await["receiverUsername"],
                json!("alice")
            );
            room = Some(matched["roomId"].as_str().unwrap().to_owned());
            break;
        }
    }
    let room = room.expect("alice and bobby matched across nodes");

    ca.send(
        "chatMessage",
        json!({ "roomId": room, "message": "a에서 안녕" }),
    )
    .await;
    let first = cb.expect("chatMessage").await;
    assert_eq!(first["message"], json!("a에서 안녕"));
    assert_eq!(
        ca.expect("chatMessage").await["message"],
        json!("a에서 안녕"),
        "the echo"
    );
    cb.send("typing", json!({ "roomId": room })).await;
    ca.expect("typing").await;
    cb.send(
        "chatMessage",
        json!({ "roomId": room, "message": "b에서 반가워" }),
    )
    .await;
    assert_eq!(
        ca.expect("chatMessage").await["message"],
        json!("b에서 반가워")
    );
    let last_seen_by_b = first["id"].clone();

    // Node B dies hard, mid-chat. Alice keeps writing; each message she sees echoed is acknowledged.
    let mut b = b;
    b.child.kill().unwrap();
    b.child.wait().unwrap();
    let mut acknowledged = Vec::new();
    for text in ["하나", "둘", "셋"] {
        ca.send("chatMessage", json!({ "roomId": room, "message": text }))
            .await;
        let echo = ca.expect("chatMessage").await;
        assert_eq!(echo["message"], json!(text));
        acknowledged.push(text);
    }

    // B's users drop out of the count within seconds.
    let start = tokio::time::Instant::now();
    loop {
        let count = ca
            .expect_within("onlineCount", Duration::from_secs(20))
            .await["count"]
            .clone();
        if count == json!(1) {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the dead node's users still count"
        );
    }

    // Bobby reconnects to the surviving node and gets everything he missed, in order.
    let mut cb = connect(&a, &bobby).await;
    assert_eq!(cb.expect("hello").await["roomId"], json!(room));
    cb.send(
        "resume",
        json!({ "roomId": room, "lastId": last_seen_by_b }),
    )
    .await;
    let mut got = Vec::new();
    loop {
        let (name, data) = cb.expect_any(&["chatMessage", "resumed"]).await;
        if name == "resumed" {
            break;
        }
        got.push(data["message"].as_str().unwrap().to_owned());
    }
    assert_eq!(
        got,
        ["b에서 반가워", "하나", "둘", "셋"],
        "every acknowledged message arrives"
    );
    ca.send(
        "chatMessage",
        json!({ "roomId": room, "message": "돌아왔구나" }),
    )
    .await;
    assert_eq!(
        cb.expect("chatMessage").await["message"],
        json!("돌아왔구나")
    );
    drop(a);
}
