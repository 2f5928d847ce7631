//! Two real `telepathy` processes sharing real Redis and PostgreSQL: users on different
//! nodes match and chat; a node killed with SIGKILL loses no acknowledged message, and its
//! users drop out of the online count. Every scenario runs on one Redis server and on a
//! Redis Cluster.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;
use std::time::Duration;

use serde_json::{json, Value};
use telepathy_store::testing::fresh_url;
use telepathy_store::Backend;

#[path = "support/nodes.rs"]
mod nodes;
#[path = "support/ws_client.rs"]
mod ws_client;

use nodes::{
    connect, free_port, post, round_with, seed, sign_up, start_node_with, test_redis_cluster_url,
    test_redis_url,
};
use ws_client::{Client, SOON};

async fn nodes_share_matching_and_chat_and_survive_a_killed_node(redis: &str) {
    let database_url = fresh_url(Backend::Postgres).await;
    let prefix = format!("cluster:{}:", rand::random::<u64>());
    let (pa, pb) = (free_port(), free_port());
    let origins = format!("http://127.0.0.1:{pa},http://127.0.0.1:{pb}");
    let a = start_node_with(pa, &origins, &database_url, redis, &prefix, &[]).await;
    let b = start_node_with(pb, &origins, &database_url, redis, &prefix, &[]).await;

    let alice = sign_up(&a.base, "alice", "01011112222").await;
    let bobby = sign_up(&b.base, "bobby", "01033334444").await;
    let carol = sign_up(&b.base, "carol", "01055556666").await;

    let mut ca = connect(&a, &alice).await;
    let mut cb = connect(&b, &bobby).await;
    let mut cc = connect(&b, &carol).await;
    ca.expect("hello").await;
    cb.expect("hello").await;
    loop {
        if ca.expect("onlineCount").await["count"] == json!(3) {
            break;
        }
    }

    // Alice buys megaphones on one node and has them granted on the other; her
    // megaphone reaches the users of both.
    let (order, _) = post(
        &a.base,
        "/api/payments/prepare",
        json!({ "item": "megaphone_1" }),
        Some(&alice),
    )
    .await;
    let merchant_uid = order["merchantUid"].clone();
    let (paid, _) = post(
        &b.base,
        "/api/payments/demo-pay",
        json!({ "merchantUid": merchant_uid }),
        Some(&alice),
    )
    .await;
    let verify =
        json!({ "imp_uid": paid["impUid"], "merchant_uid": merchant_uid, "item": "megaphone_1" });
    let (granted, _) = post(&b.base, "/api/payments/verify", verify, Some(&alice)).await;
    assert_eq!(granted["count"], json!(1));
    ca.send("megaphone:send", json!({ "message": "모두 안녕!" }))
        .await;
    for client in [&mut cb, &mut cc] {
        let heard = client.expect("megaphone").await;
        assert_eq!(heard["message"], json!("모두 안녕!"));
        assert_eq!(heard["nickname"], json!("닉alice"));
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
            assert_eq!(matched["receiverNickname"], json!("닉bobby"));
            assert_eq!(
                cb.expect("matched").await["receiverNickname"],
                json!("닉alice")
            );
            room = Some(matched["roomId"].as_str().unwrap().to_owned());
            break;
        }
    }
    let room = room.expect("alice and bobby matched across nodes");

    let first = ca.say(&mut cb, &room, "a에서 안녕").await;
    assert_eq!(first["message"], json!("a에서 안녕"));
    assert_eq!(
        ca.expect("chatMessage").await["message"],
        json!("a에서 안녕"),
        "the echo"
    );
    cb.send("typing", json!({ "roomId": room })).await;
    ca.expect("typing").await;
    assert_eq!(
        cb.say(&mut ca, &room, "b에서 반가워").await["message"],
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
    assert_eq!(
        ca.say(&mut cb, &room, "돌아왔구나").await["message"],
        json!("돌아왔구나")
    );
    drop(a);
}

/// What one user of the crowd saw.
#[derive(Default)]
struct Seen {
    room: Option<String>,
    partner: Option<i64>,
    matched: usize,
    /// Ids of chat messages received from the partner, and of echoes of its own.
    from_partner: Vec<String>,
    echoes: Vec<String>,
    misrouted: usize,
    ended: usize,
}

impl Seen {
    /// Reads `me`'s chat messages until `messages` from the partner and as many echoes of
    /// its own have come; one from anyone else, or of another room, counts as misrouted.
    async fn read_chat(&mut self, me: i64, c: &mut Client, messages: usize) {
        while self.from_partner.len() + self.echoes.len() < 2 * messages {
            let (name, m) = c
                .expect_any_within(&["chatMessage", "error"], Duration::from_secs(30))
                .await;
            assert_eq!(name, "chatMessage", "user {me}: {m}");
            let id = m["id"].as_str().unwrap().to_owned();
            if m["senderId"] == json!(me) {
                self.echoes.push(id);
            } else if m["senderId"].as_i64() == self.partner
                && m["roomId"].as_str() == self.room.as_deref()
            {
                self.from_partner.push(id);
            } else {
                self.misrouted += 1;
            }
        }
    }
}

/// A thousand users on two nodes pick words at once, pair up (half across nodes), chat and
/// leave; every event that must arrive arrives exactly once. Fails on any loss.
async fn a_thousand_users_match_and_chat_across_two_nodes_losing_nothing(redis: &str) {
    use futures_util::stream::{self, StreamExt};

    const USERS: usize = 1000;
    const MESSAGES: usize = 5;
    let database_url = fresh_url(Backend::Postgres).await;
    let prefix = format!("crowd:{}:", rand::random::<u64>());
    let (pa, pb) = (free_port(), free_port());
    let origins = format!("http://127.0.0.1:{pa},http://127.0.0.1:{pb}");
    let a = start_node_with(pa, &origins, &database_url, redis, &prefix, &[]).await;
    let b = start_node_with(pb, &origins, &database_url, redis, &prefix, &[]).await;
    let nodes = [&a, &b];
    let users = seed(&database_url, USERS);
    assert_eq!(users.len(), USERS);

    // Everyone connects: user i to node i % 2.
    let mut clients: Vec<(i64, Client, Seen)> = stream::iter(users.iter().enumerate())
        .map(|(i, (id, cookie))| {
            let node = nodes[i % 2];
            async move {
                let mut c = connect(node, cookie).await;
                c.expect("hello").await;
                (*id, c, Seen::default())
            }
        })
        .buffered(50)
        .collect()
        .await;

    // A round with time to spare, then every join at once. Users 2k and 2k+1 share a word
    // and sit on different nodes.
    let round = round_with(&a.base, 15).await;
    futures_util::future::join_all(clients.iter_mut().enumerate().map(|(i, (_, c, _))| {
        let join = json!({ "word": round["words"][(i / 2) % 4]["word"], "round": round["round"] });
        async move { c.send("join_match", join).await }
    }))
    .await;
    futures_util::future::join_all(clients.iter_mut().map(|(me, c, seen)| async move {
        let (name, data) = c
            .expect_any_within(&["matched", "error"], Duration::from_secs(30))
            .await;
        assert_eq!(name, "matched", "user {me}: {data}");
        assert_eq!(data["senderId"], json!(*me));
        seen.matched += 1;
        seen.room = data["roomId"].as_str().map(str::to_owned);
        seen.partner = data["receiverId"].as_i64();
    }))
    .await;
    let partner_of: std::collections::HashMap<i64, (i64, String)> = clients
        .iter()
        .map(|(me, _, s)| (*me, (s.partner.unwrap(), s.room.clone().unwrap())))
        .collect();
    for (me, (partner, room)) in &partner_of {
        let (back, their_room) = &partner_of[partner];
        assert_eq!((back, their_room), (me, room), "pairs agree");
    }

    // Every user sends MESSAGES; each must reach the partner once and echo back once.
    futures_util::future::join_all(clients.iter_mut().map(|(me, c, seen)| async move {
        let room = seen.room.clone().unwrap();
        for k in 0..MESSAGES {
            let text = format!("{me}:{k}");
            c.send("chatMessage", json!({ "roomId": room, "message": text }))
                .await;
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }))
    .await;
    futures_util::future::join_all(
        clients
            .iter_mut()
            .map(|(me, c, seen)| seen.read_chat(*me, c, MESSAGES)),
    )
    .await;
    for (me, _, seen) in &clients {
        assert_eq!(seen.misrouted, 0, "user {me} got someone else's message");
        let mut unique = seen.from_partner.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), MESSAGES, "user {me}: {:?}", seen.from_partner);
        assert_eq!(seen.echoes.len(), MESSAGES, "user {me}'s acknowledgements");
    }

    // The first of each pair leaves; both hear the chat ended.
    futures_util::future::join_all(clients.iter_mut().map(|(me, c, seen)| async move {
        if *me < seen.partner.unwrap() {
            c.send("leaveRoom", json!({ "roomId": seen.room })).await;
        }
    }))
    .await;
    futures_util::future::join_all(clients.iter_mut().map(|(me, c, seen)| async move {
        let ended = c.expect_within("chatEnded", Duration::from_secs(30)).await;
        assert_eq!(ended["roomId"].as_str(), seen.room.as_deref(), "user {me}");
        seen.ended += 1;
    }))
    .await;
    assert!(clients
        .iter()
        .all(|(_, _, s)| s.matched == 1 && s.ended == 1));

    // Both nodes count every event they were meant to deliver, and lost none.
    let http = reqwest::Client::new();
    for node in nodes {
        let text = http
            .get(format!("{}/metrics", node.base))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(
            text.contains("telepathy_sockets_kicked_total{op=\"slow\"} 0"),
            "{text}"
        );
        assert!(text.contains("telepathy_bus_gaps_total 0"), "{text}");
        assert!(text.contains("telepathy_sockets_open 500"), "{text}");
    }
}

/// Four nodes, pairs chatting across two of them: each node hears only the events its own
/// sockets need (typing, the message, stopping typing, as the web app sends them), and
/// nothing of the rooms of the other two nodes. The routing before this test (every node
/// hearing every partition) counted half of each node's events as unneeded.
async fn four_nodes_hear_only_what_their_sockets_need(redis: &str) {
    const USERS: usize = 80;
    const MESSAGES: usize = 3;
    let database_url = fresh_url(Backend::Postgres).await;
    let prefix = format!("interest:{}:", rand::random::<u64>());
    let ports: Vec<u16> = (0..4).map(|_| free_port()).collect();
    let origins = ports
        .iter()
        .map(|p| format!("http://127.0.0.1:{p}"))
        .collect::<Vec<_>>()
        .join(",");
    let mut nodes = Vec::new();
    for port in &ports {
        nodes.push(start_node_with(*port, &origins, &database_url, redis, &prefix, &[]).await);
    }
    let users = seed(&database_url, USERS);
    // User i on node i % 4: users 2k and 2k+1 pair up, on nodes 0 and 1, or 2 and 3.
    let mut clients = Vec::new();
    for (i, (id, cookie)) in users.iter().enumerate() {
        let mut c = connect(&nodes[i % 4], cookie).await;
        c.expect("hello").await;
        clients.push((*id, c, Seen::default()));
    }
    let round = round_with(&nodes[0].base, 15).await;
    for (i, (_, c, _)) in clients.iter_mut().enumerate() {
        // Pair k picks word k % 4: pairs of one word queue one after another.
        let word = &round["words"][(i / 2) % 4]["word"];
        c.send(
            "join_match",
            json!({ "word": word, "round": round["round"] }),
        )
        .await;
        if i % 2 == 1 {
            // The pair is made before the next pair of the same word queues.
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
    }
    for (me, c, seen) in &mut clients {
        let (name, data) = c
            .expect_any_within(&["matched", "error"], Duration::from_secs(30))
            .await;
        assert_eq!(name, "matched", "user {me}: {data}");
        seen.room = data["roomId"].as_str().map(str::to_owned);
        seen.partner = data["receiverId"].as_i64();
    }
    for k in 0..MESSAGES {
        for (me, c, seen) in &mut clients {
            let room = seen.room.clone().unwrap();
            c.send("typing", json!({ "roomId": room })).await;
            c.send(
                "chatMessage",
                json!({ "roomId": room, "message": format!("{me}:{k} 안녕하세요") }),
            )
            .await;
            c.send("stopTyping", json!({ "roomId": room })).await;
        }
    }
    for (me, c, seen) in &mut clients {
        seen.read_chat(*me, c, MESSAGES).await;
        assert_eq!(seen.misrouted, 0, "user {me}");
    }
    // Typing notices are not acknowledged: give the last ones time to arrive.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let http = reqwest::Client::new();
    for node in &nodes {
        let text = http
            .get(format!("{}/metrics", node.base))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let count = |series: &str| -> f64 {
            text.lines()
                .find_map(|l| l.strip_prefix(series)?.trim().parse().ok())
                .unwrap_or_else(|| panic!("no {series} in {text}"))
        };
        let needed = count("telepathy_events_in_total{need=\"some\"}");
        let unneeded = count("telepathy_events_in_total{need=\"none\"}");
        assert!(needed > 0.0, "{}: {text}", node.base);
        assert_eq!(
            unneeded, 0.0,
            "{} heard events none of its sockets needed",
            node.base
        );
    }
}

/// SIGTERM closes every socket at once with 1012 (its client reconnects to another node)
/// instead of holding the shutdown, and the node leaves the online count on its way out.
async fn a_terminated_node_tells_its_sockets_to_reconnect_and_leaves(redis: &str) {
    use futures_util::StreamExt;
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
    use tokio_tungstenite::tungstenite::Message;

    let database_url = fresh_url(Backend::Postgres).await;
    let prefix = format!("drain:{}:", rand::random::<u64>());
    let (pa, pb) = (free_port(), free_port());
    let origins = format!("http://127.0.0.1:{pa},http://127.0.0.1:{pb}");
    let a = start_node_with(pa, &origins, &database_url, redis, &prefix, &[]).await;
    let mut b = start_node_with(pb, &origins, &database_url, redis, &prefix, &[]).await;
    let users = seed(&database_url, 2);
    let mut on_a = connect(&a, &users[0].1).await;
    on_a.expect("hello").await;
    let addr = b.base.trim_start_matches("http://").to_owned();
    let mut req = format!("ws://{addr}/ws").into_client_request().unwrap();
    req.headers_mut().insert("origin", b.base.parse().unwrap());
    req.headers_mut()
        .insert("cookie", users[1].1.parse().unwrap());
    let (mut on_b, _) = tokio_tungstenite::connect_async(req).await.unwrap();
    loop {
        if on_a.expect("onlineCount").await["count"] == json!(2) {
            break;
        }
    }

    let started = std::time::Instant::now();
    let killed = Command::new("kill")
        .args(["-TERM", &b.child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let close = loop {
        match tokio::time::timeout(Duration::from_secs(5), on_b.next()).await {
            Ok(Some(Ok(Message::Close(frame)))) => break frame,
            Ok(Some(Ok(_))) => {}
            other => panic!("expected a close frame, got {other:?}"),
        }
    };
    assert_eq!(close.map(|f| f.code), Some(CloseCode::Restart));
    let status = tokio::task::spawn_blocking(move || b.child.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(status.success(), "{status:?}");
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "the sockets did not hold the shutdown: {:?}",
        started.elapsed()
    );
    loop {
        let count = on_a
            .expect_within("onlineCount", Duration::from_secs(10))
            .await;
        if count["count"] == json!(1) {
            break;
        }
    }
}

/// A chat member that keeps talking through node restarts: it reconnects to whichever
/// node answers and resumes its room from the last message it has.
struct Talker {
    me: i64,
    cookie: String,
    room: String,
    partner: i64,
    /// Ids of its own messages the server acknowledged (echoed).
    acknowledged: Vec<String>,
    /// Ids of the partner's messages it received, live or resumed.
    received: Vec<String>,
    /// Where the next resume starts: the newest id taken outside a resume.
    last_id: Option<String>,
    /// A `resume` is out and its `resumed` has not come: live messages may overtake the
    /// older ones it brings, so they do not move `last_id` yet.
    resuming: bool,
    /// Messages refused with `UNAVAILABLE` (Redis failing over): never acknowledged.
    unavailable: usize,
}

/// A stream id's order: `<ms>-<seq>` by its numbers.
fn id_order(id: &str) -> (u64, u64) {
    let (ms, seq) = id.split_once('-').unwrap();
    (ms.parse().unwrap(), seq.parse().unwrap())
}

impl Talker {
    /// Takes a chat message in, once by its id, as the web app merges live and resumed
    /// messages: what arrived live while a resume was on its way comes again in it. Outside
    /// a resume the newest id is where the next one starts.
    fn take(&mut self, m: &Value) {
        let id = m["id"].as_str().unwrap().to_owned();
        if m["senderId"] == json!(self.me) {
            if !self.acknowledged.contains(&id) {
                self.acknowledged.push(id.clone());
            }
        } else {
            assert_eq!(m["senderId"], json!(self.partner), "a stranger's message");
            if !self.received.contains(&id) {
                self.received.push(id.clone());
            }
        }
        if !self.resuming {
            self.advance(&id);
        }
    }

    fn advance(&mut self, id: &str) {
        if self
            .last_id
            .as_deref()
            .is_none_or(|last| id_order(id) > id_order(last))
        {
            self.last_id = Some(id.to_owned());
        }
    }

    /// A resume is whole: everything up to the newest message taken is here.
    fn resumed(&mut self) {
        self.resuming = false;
        let newest = self
            .acknowledged
            .iter()
            .chain(&self.received)
            .max_by_key(|id| id_order(id))
            .cloned();
        if let Some(id) = newest {
            self.advance(&id);
        }
    }

    /// Talks for `until`, one message every `every`, over any node of `bases` that answers.
    async fn talk(&mut self, bases: &[String], until: tokio::time::Instant, every: Duration) {
        use futures_util::{SinkExt, StreamExt};
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        use tokio_tungstenite::tungstenite::Message;

        let mut turn = self.me as usize;
        let mut sent = 0;
        while tokio::time::Instant::now() < until {
            turn += 1;
            let base = &bases[turn % bases.len()];
            let mut req = format!("ws://{}/ws", base.trim_start_matches("http://"))
                .into_client_request()
                .unwrap();
            req.headers_mut().insert("origin", base.parse().unwrap());
            req.headers_mut()
                .insert("cookie", self.cookie.parse().unwrap());
            let Ok((mut ws, _)) = tokio_tungstenite::connect_async(req).await else {
                tokio::time::sleep(Duration::from_millis(200)).await;
                continue;
            };
            let resume = json!({ "event": "resume", "data": { "roomId": self.room, "lastId": self.last_id } });
            if ws
                .send(Message::Text(resume.to_string().into()))
                .await
                .is_err()
            {
                continue;
            }
            self.resuming = true;
            // A resume refused for now (Redis failing over) is asked again at the next tick.
            let mut resume_again = false;
            let mut tick = tokio::time::interval(every);
            // A tick missed on a busy machine is not made up in a burst: the frame
            // allowance would refuse it, as it would a client that did so.
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    _ = tick.tick() => {
                        if tokio::time::Instant::now() >= until {
                            break;
                        }
                        if std::mem::take(&mut resume_again) {
                            let resume = json!({ "event": "resume", "data": { "roomId": self.room, "lastId": self.last_id } });
                            if ws.send(Message::Text(resume.to_string().into())).await.is_err() {
                                break;
                            }
                        }
                        sent += 1;
                        let text = json!({ "event": "chatMessage", "data": { "roomId": self.room, "message": format!("{}:{sent}", self.me) } });
                        if ws.send(Message::Text(text.to_string().into())).await.is_err() {
                            break;
                        }
                    }
                    next = ws.next() => match next {
                        Some(Ok(Message::Text(text))) => {
                            let v: Value = serde_json::from_str(&text).unwrap();
                            match v["event"].as_str() {
                                Some("chatMessage") => self.take(&v["data"]),
                                Some("resumed") => self.resumed(),
                                Some("chatEnded") => panic!("user {}: the chat ended: {v}", self.me),
                                Some("error") if v["data"]["code"] == json!("UNAVAILABLE") && v["data"]["event"] == json!("resume") => resume_again = true,
                                Some("error") if v["data"]["code"] == json!("UNAVAILABLE") => self.unavailable += 1,
                                Some("error") => panic!("user {}: {v}", self.me),
                                _ => {}
                            }
                        }
                        Some(Ok(_)) => {}
                        // Closed (the node is restarting): reconnect elsewhere.
                        _ => break,
                    },
                }
            }
        }
    }

    /// After the talking: one last connection that reads everything still missed. A
    /// socket the node closes on the way (a hole it is healing) is opened again and
    /// resumed from what was read, as the app does.
    async fn catch_up(&mut self, base: &str) {
        let node_addr = base.trim_start_matches("http://");
        let mut why = String::new();
        for _ in 0..10 {
            let mut c = match Client::connect(node_addr, Some(&self.cookie), base).await {
                Ok(c) => c,
                Err(status) => {
                    why = format!("refused with {status}");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    continue;
                }
            };
            c.send(
                "resume",
                json!({ "roomId": self.room, "lastId": self.last_id }),
            )
            .await;
            self.resuming = true;
            loop {
                match c.try_expect_any(&["chatMessage", "resumed"], SOON).await {
                    Ok((name, _)) if name == "resumed" => return self.resumed(),
                    Ok((_, data)) => self.take(&data),
                    Err(e) => {
                        why = e;
                        break;
                    }
                }
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
        panic!("user {}: no whole resume in ten tries: {why}", self.me);
    }
}

/// Two nodes on a Redis Cluster of the test's own (three masters, a replica each) and a
/// fresh PostgreSQL database, with its users.
struct OnOwnCluster {
    cluster: nodes::OwnCluster,
    a: nodes::Node,
    b: nodes::Node,
    bases: [String; 2],
    users: Vec<(i64, String)>,
}

async fn on_own_cluster(name: &str, users: usize) -> OnOwnCluster {
    let cluster = nodes::OwnCluster::start().await;
    let redis = cluster.url();
    let database_url = fresh_url(Backend::Postgres).await;
    let prefix = format!("{name}:{}:", rand::random::<u64>());
    let (pa, pb) = (free_port(), free_port());
    let origins = format!("http://127.0.0.1:{pa},http://127.0.0.1:{pb}");
    let a = start_node_with(pa, &origins, &database_url, &redis, &prefix, &[]).await;
    let b = start_node_with(pb, &origins, &database_url, &redis, &prefix, &[]).await;
    let bases = [a.base.clone(), b.base.clone()];
    let users = seed(&database_url, users);
    OnOwnCluster {
        cluster,
        a,
        b,
        bases,
        users,
    }
}

/// Pairs users across two nodes (user 2k on `a`, 2k+1 on `b`, each pair on one word) and
/// answers each user as a `Talker` of their room.
async fn pair_talkers(
    a: &nodes::Node,
    b: &nodes::Node,
    users: &[(i64, String)],
    round_secs: i64,
) -> Vec<Talker> {
    let mut clients = Vec::new();
    for (i, (_, cookie)) in users.iter().enumerate() {
        let node = if i % 2 == 0 { a } else { b };
        let mut c = connect(node, cookie).await;
        c.expect("hello").await;
        clients.push(c);
    }
    let round = round_with(&a.base, round_secs).await;
    for (i, c) in clients.iter_mut().enumerate() {
        let word = round["words"][(i / 2) % 4]["word"].clone();
        c.send(
            "join_match",
            json!({ "word": word, "round": round["round"] }),
        )
        .await;
    }
    let mut talkers = Vec::new();
    for (i, c) in clients.iter_mut().enumerate() {
        let m = c.expect("matched").await;
        talkers.push(Talker {
            me: users[i].0,
            cookie: users[i].1.clone(),
            room: m["roomId"].as_str().unwrap().to_owned(),
            partner: m["receiverId"].as_i64().unwrap(),
            acknowledged: Vec::new(),
            received: Vec::new(),
            last_id: None,
            resuming: false,
            unavailable: 0,
        });
    }
    talkers
}

/// How often a talker sends: half the frame allowance (`SOCKET_FRAMES_PER_WINDOW`), so that
/// the parts of it a failover strands on a closed socket (given back only when the engine
/// answers) leave room for the resumes and messages of the sockets that follow.
const TALK_EVERY: Duration = Duration::from_millis(500);

/// Every talker talks for `secs`, one message every `TALK_EVERY`, over any node of `bases`.
fn talk_all(
    talkers: Vec<Talker>,
    bases: &[String],
    secs: u64,
) -> tokio::task::JoinHandle<Vec<Talker>> {
    let until = tokio::time::Instant::now() + Duration::from_secs(secs);
    let bases = bases.to_vec();
    tokio::spawn(async move {
        let tasks: Vec<_> = talkers
            .into_iter()
            .map(|mut t| {
                let bases = bases.clone();
                tokio::spawn(async move {
                    t.talk(&bases, until, TALK_EVERY).await;
                    t
                })
            })
            .collect();
        let mut done = Vec::new();
        for t in tasks {
            done.push(t.await.unwrap());
        }
        done
    })
}

/// Every message a talker saw acknowledged reached its partner (live or resumed); answers
/// how many were acknowledged and how many refused as unavailable.
fn assert_acknowledged_reached(talkers: &[Talker], context: &str) -> (usize, usize) {
    let by_user: std::collections::HashMap<i64, &Talker> =
        talkers.iter().map(|t| (t.me, t)).collect();
    let (mut acknowledged, mut refused) = (0, 0);
    for t in talkers {
        let partner = by_user[&t.partner];
        assert_eq!(partner.partner, t.me, "pairs hold");
        let mut got = partner.received.clone();
        got.sort();
        for id in &t.acknowledged {
            assert!(
                got.binary_search(id).is_ok(),
                "user {}'s acknowledged message {id} never reached user {} ({context}; the partner got {:?})",
                t.me,
                t.partner,
                got.iter().filter(|g| g[..8] == id[..8]).collect::<Vec<_>>()
            );
        }
        acknowledged += t.acknowledged.len();
        refused += t.unavailable;
    }
    (acknowledged, refused)
}

/// Both nodes restart one after the other (SIGTERM, then a new process) while pairs
/// chat across them; the clients reconnect to the other node and resume. Every message
/// the server acknowledged reaches the partner exactly once.
async fn a_rolling_restart_under_chat_loses_no_acknowledged_message(redis: &str) {
    const PAIRS: usize = 10;
    let database_url = fresh_url(Backend::Postgres).await;
    let prefix = format!("rolling:{}:", rand::random::<u64>());
    let (pa, pb) = (free_port(), free_port());
    let origins = format!("http://127.0.0.1:{pa},http://127.0.0.1:{pb}");
    let mut a = start_node_with(pa, &origins, &database_url, redis, &prefix, &[]).await;
    let mut b = start_node_with(pb, &origins, &database_url, redis, &prefix, &[]).await;
    let bases = [a.base.clone(), b.base.clone()];
    let users = seed(&database_url, 2 * PAIRS);

    // Everyone talks for a while; meanwhile A, then B, restarts.
    let talkers = pair_talkers(&a, &b, &users, 10).await;
    let talking = talk_all(talkers, &bases, 12);
    for (node, port) in [(&mut a, pa), (&mut b, pb)] {
        tokio::time::sleep(Duration::from_secs(3)).await;
        let pid = node.child.id().to_string();
        assert!(Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success());
        assert!(node.child.wait().unwrap().success());
        *node = start_node_with(port, &origins, &database_url, redis, &prefix, &[]).await;
    }
    let mut talkers = talking.await.unwrap();
    for t in &mut talkers {
        t.catch_up(&a.base).await;
    }

    let (total, _) = assert_acknowledged_reached(&talkers, "a rolling restart");
    assert!(total > PAIRS * 2 * 10, "enough was said: {total}");
}

/// A master of a Redis Cluster (three masters, a replica each, started by the test) is
/// killed with SIGKILL while pairs chat across two nodes: its replica takes over, the
/// nodes follow (their sockets resync and resume), every message a sender saw
/// acknowledged reaches its partner, nobody is matched twice, and matching resumes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_master_killed_under_chat_loses_no_acknowledged_message_and_matching_resumes() {
    const PAIRS: usize = 8;
    let OnOwnCluster {
        mut cluster,
        a,
        b,
        bases,
        users,
    } = on_own_cluster("failover", 2 * PAIRS + 2).await;

    let talkers = pair_talkers(&a, &b, &users[..2 * PAIRS], 12).await;
    let talking = talk_all(talkers, &bases, 16);

    // The master of the first slots: partition 0 (the heartbeats) and a third of the rest.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let killed_at = std::time::Instant::now();
    let killed_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis();
    let port = cluster.kill_master_of(0);
    assert!(
        cluster
            .wait_taken_over(0, port, Duration::from_secs(30))
            .await,
        "no replica took over from {port}: {}\n{}",
        cluster.ask("nodes"),
        cluster.logs()
    );
    let promoted = killed_at.elapsed();

    // Two more users join the same word until they are matched, each into one room.
    let (x, y) = (&users[2 * PAIRS], &users[2 * PAIRS + 1]);
    let matched_after = loop {
        assert!(
            killed_at.elapsed() < Duration::from_secs(30),
            "no match within 30 s of the kill"
        );
        // Fresh sockets each try (a resync closes them); a match whose frame was lost on a
        // closed socket shows in the next hello.
        let (mut cx, hx) = nodes::reconnect_to(&bases[0], &x.1, 30).await;
        let (mut cy, hy) = nodes::reconnect_to(&bases[1], &y.1, 30).await;
        if hx["roomId"].is_string() || hy["roomId"].is_string() {
            assert_eq!(hx["roomId"], hy["roomId"], "one room for the pair");
            break killed_at.elapsed();
        }
        let round = round_with(&a.base, 5).await;
        let join = json!({ "word": round["words"][0]["word"], "round": round["round"] });
        cx.send("join_match", join.clone()).await;
        cx.try_expect("matchWaiting", Duration::from_secs(2)).await;
        cy.send("join_match", join).await;
        let got_y = cy.try_expect("matched", Duration::from_secs(2)).await;
        let got_x = cx.try_expect("matched", Duration::from_secs(1)).await;
        if let (Some(mx), Some(my)) = (&got_x, &got_y) {
            assert_eq!(mx["roomId"], my["roomId"], "one room for the pair");
            assert!(
                cx.try_expect("matched", Duration::from_millis(500))
                    .await
                    .is_none(),
                "matched twice"
            );
            break killed_at.elapsed();
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    };

    let mut talkers = talking.await.unwrap();
    for t in &mut talkers {
        t.catch_up(&a.base).await;
    }
    let (acknowledged, refused) =
        assert_acknowledged_reached(&talkers, &format!("the master was killed at {killed_ms}"));
    assert!(
        acknowledged > PAIRS * 2 * 20,
        "enough was said: {acknowledged}"
    );
    eprintln!(
        "failover: master {port} killed; its replica serves after {promoted:?}; a new match after \
         {matched_after:?}; {acknowledged} messages acknowledged, {refused} refused as unavailable"
    );
}

/// A slot of a Redis Cluster moves to another master under two nodes whose users sit in
/// rooms of that slot (its keys first, then the slot, as a reshard does). The old master
/// drops the nodes' subscriptions to the slot's channel with a push that fred does not
/// pass on; each node finds the channel deaf by its probes within seconds, subscribes
/// again (to the new owner) and resumes its sockets: the rooms go on live, and every
/// acknowledged message reaches its partner.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slot_moved_under_chat_is_heard_again_and_its_rooms_go_on() {
    const PAIRS: usize = 4;
    let OnOwnCluster {
        cluster,
        a,
        b,
        bases,
        users,
    } = on_own_cluster("reshard", 2 * PAIRS).await;
    let talkers = pair_talkers(&a, &b, &users, 12).await;

    let mut slots: Vec<u16> = talkers
        .iter()
        .map(|t| telepathy_engine::RedisEngine::room_slot(&t.room))
        .collect();
    slots.sort_unstable();
    slots.dedup();
    for slot in &slots {
        cluster.move_slot(*slot);
    }
    let moved_ms = u64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap();

    let mut talkers = talk_all(talkers, &bases, 14).await.unwrap();
    // Live: well after the move, each side still hears its own messages acknowledged,
    // before any last look at the stream.
    for t in &talkers {
        let late = t
            .acknowledged
            .iter()
            .filter(|id| id.split('-').next().unwrap().parse::<u64>().unwrap() > moved_ms + 8_000)
            .count();
        assert!(
            late >= 5,
            "user {} in room {} (slot {}) was acknowledged {late} messages in the last seconds: {:?}",
            t.me,
            t.room,
            telepathy_engine::RedisEngine::room_slot(&t.room),
            t.acknowledged
        );
    }
    for t in &mut talkers {
        t.catch_up(&a.base).await;
    }
    let (acknowledged, _) = assert_acknowledged_reached(&talkers, "slots moved");
    assert!(
        acknowledged > PAIRS * 2 * 20,
        "enough was said: {acknowledged}"
    );

    // The deafness was a counted gap, not a silence.
    let http = reqwest::Client::new();
    let mut gaps = 0.0;
    for base in &bases {
        let text = http
            .get(format!("{base}/metrics"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        gaps += text
            .lines()
            .find_map(|l| l.strip_prefix("telepathy_bus_gaps_total "))
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0);
    }
    assert!(gaps >= 2.0, "each node counted the hole: {gaps}");

    // A resume on a node that had the hole, from an id inside it, starts before the hole:
    // a client that was handed a newer message on another channel while this one was
    // deaf still gets what it carried.
    let t = &talkers[0];
    let inside = t
        .acknowledged
        .iter()
        .chain(&t.received)
        .filter(|id| (moved_ms + 1..=moved_ms + 1_500).contains(&id_order(id).0))
        .max_by_key(|id| id_order(id))
        .expect("the room spoke in the second after the move")
        .clone();
    let mut c = Client::connect(
        a.base.trim_start_matches("http://"),
        Some(&t.cookie),
        &a.base,
    )
    .await
    .unwrap();
    c.send("resume", json!({ "roomId": t.room, "lastId": inside }))
        .await;
    let mut again = Vec::new();
    while let Ok((name, data)) = c.try_expect_any(&["chatMessage", "resumed"], SOON).await {
        if name == "resumed" {
            break;
        }
        again.push(data["id"].as_str().unwrap().to_owned());
    }
    assert!(
        again.iter().any(|id| id_order(id) < id_order(&inside)),
        "a resume after {inside} brings what came since the hole again: {again:?}"
    );
    eprintln!("reshard: slots {slots:?} moved; {acknowledged} messages acknowledged");
}

/// The opening bell on two nodes: at 20:00 each device is told once. Then, on the next
/// evening, the sending node is killed mid-run; the other takes the evening over once the
/// lease runs out, and still no device is told twice.
async fn two_nodes_ring_each_device_once_an_evening_even_when_the_sender_dies(redis: &str) {
    use std::collections::HashMap;
    use telepathy_providers::push_stand_in::PushServiceStandIn;

    // Slow enough that a run of two batches takes a few seconds.
    let service = PushServiceStandIn::start_with_delay(Duration::from_millis(250)).await;
    let database_url = fresh_url(Backend::Postgres).await;
    let prefix = format!("cluster:{}:", rand::random::<u64>());
    let (pa, pb) = (free_port(), free_port());
    let origins = format!("http://127.0.0.1:{pa},http://127.0.0.1:{pb}");
    let extra = [("TELEPATHY_PUSH_SERVICES", service.origin.as_str())];
    let a = nodes::start_node_with(pa, &origins, &database_url, redis, &prefix, &extra).await;
    let b = nodes::start_node_with(pb, &origins, &database_url, redis, &prefix, &extra).await;

    // 100 users with 10 devices each (as many as one may have), half through each node:
    // 1,000 devices, two batches of `OPENING_BATCH`.
    let users = seed(&database_url, 100);
    let mut devices = 0;
    for (i, (_, cookie)) in users.iter().enumerate() {
        let base = if i % 2 == 0 { &a.base } else { &b.base };
        post(
            base,
            "/api/push/consent",
            json!({ "agree": true }),
            Some(cookie),
        )
        .await;
        for _ in 0..10 {
            let device = service.subscribe();
            let body = json!({
                "endpoint": device.endpoint,
                "keys": { "p256dh": device.p256dh, "auth": device.auth },
            });
            post(base, "/api/push/subscribe", body, Some(cookie)).await;
            devices += 1;
        }
    }
    let times_told = |service: &PushServiceStandIn| {
        let mut told: HashMap<u64, usize> = HashMap::new();
        for push in service.received() {
            *told.entry(push.device).or_default() += 1;
        }
        told
    };
    let set_clock = |base: String, date: &'static str, time: &'static str| async move {
        post(
            &base,
            "/api/dev/clock",
            json!({ "date": date, "seoulTime": time }),
            None,
        )
        .await
    };

    // Both nodes reach 20:00 together.
    set_clock(a.base.clone(), "2026-12-01", "19:59:58").await;
    set_clock(b.base.clone(), "2026-12-01", "19:59:58").await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while service.received().len() < devices && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // A little longer: a second sender would show now.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let told = times_told(&service);
    assert_eq!(told.len(), devices, "every device is told");
    assert!(told.values().all(|&n| n == 1), "no device is told twice");
    assert_eq!(service.refused(), Vec::<String>::new());

    // The next evening the sender dies after its first batch.
    service.clear();
    set_clock(a.base.clone(), "2026-12-02", "19:59:59").await;
    set_clock(b.base.clone(), "2026-12-02", "19:59:59").await;
    let store = telepathy_store::Store::connect(&database_url)
        .await
        .unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while service.received().len() < 250 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let holder = store.opening("2026-12-02").await.unwrap().unwrap().holder;
    let sender = usize::from(!holder.starts_with(&format!("node-{pa}.")));
    let dead_port = [pa, pb][sender];
    assert!(
        holder.starts_with(&format!("node-{dead_port}.")),
        "{holder}"
    );
    let mut nodes = [a, b];
    nodes[sender].child.kill().unwrap();
    let survivor = &nodes[1 - sender];
    let told_before = service.received().len();
    assert!(told_before < devices, "the sender died mid-run");
    // Three minutes on for the survivor: the dead sender's lease has run out.
    set_clock(survivor.base.clone(), "2026-12-02", "20:03:00").await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let opening = store.opening("2026-12-02").await.unwrap().unwrap();
        if opening.finished_at.is_some() {
            assert!(!opening.holder.starts_with(&format!("node-{dead_port}.")));
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the evening was taken over"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let told = times_told(&service);
    assert!(told.values().all(|&n| n == 1), "no device is told twice");
    let batch = usize::try_from(telepathy_domain::bell::OPENING_BATCH).unwrap();
    assert!(devices > batch, "more devices than one batch");
    // At most the dead sender's batch in flight missed the bell (a batch it claimed and
    // did not finish, and the pushes of it held back to try again), besides the pushes
    // the push service failed (counted; on a loaded machine one may time out).
    let failed = store
        .opening("2026-12-02")
        .await
        .unwrap()
        .map_or(0, |o| usize::try_from(o.failed).unwrap_or(0));
    assert!(
        told.len() + batch + failed >= devices,
        "{} of {devices} told, {failed} failed",
        told.len()
    );
    assert!(told.len() > told_before, "the survivor went on");
}

macro_rules! on_both {
    ($($name:ident),* $(,)?) => {
        mod on_redis {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $name() { super::$name(&super::test_redis_url()).await; })*
        }
        mod on_cluster {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $name() { super::$name(&super::test_redis_cluster_url()).await; })*
        }
    };
}

on_both!(
    nodes_share_matching_and_chat_and_survive_a_killed_node,
    a_thousand_users_match_and_chat_across_two_nodes_losing_nothing,
    four_nodes_hear_only_what_their_sockets_need,
    a_terminated_node_tells_its_sockets_to_reconnect_and_leaves,
    a_rolling_restart_under_chat_loses_no_acknowledged_message,
    two_nodes_ring_each_device_once_an_evening_even_when_the_sender_dies
);
