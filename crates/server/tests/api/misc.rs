use serde_json::json;
use telepathy_store::Backend;

use telepathy_domain::limits::OUTBOX_READS_PER_PHONE;

use crate::helpers::{spawn_with, TestApp, ORIGIN, OUTBOX_TOKEN, UNREACHABLE_PROVIDERS};

crate::both!(
    foreign_origins_cannot_change_state,
    unreadable_requests_get_the_error_shape,
    health_and_readiness,
    web_app_routes_fall_back_to_index,
    built_assets_are_compressed_and_cached_for_a_year,
    app_config_tells_demo,
    app_config_tells_the_configured_business,
    a_locked_database_answers_503_and_recovers,
    oversized_bodies_are_refused_in_the_error_shape,
    overlong_addresses_are_refused_in_the_error_shape,
    security_headers_cover_the_app_and_the_api,
    the_outbox_never_serves_reset_codes,
    the_outbox_answers_this_machine_or_the_token,
    outbox_reads_are_limited,
    the_demo_keeps_the_spec_hours_once_its_clock_is_moved,
    a_forwarded_entry_with_a_port_is_that_client,
);

async fn foreign_origins_cannot_change_state(mut app: TestApp) {
    let a = app
        .post_with(
            "/api/auth/login",
            json!({ "username": "alice", "password": "x" }),
            &[("origin", "https://evil.example")],
        )
        .await;
    a.assert_error(403, "FORBIDDEN_ORIGIN");
    let a = app
        .post_with(
            "/api/auth/check-username",
            json!({ "username": "alice" }),
            &[],
        )
        .await;
    a.assert_ok();
}

async fn unreadable_requests_get_the_error_shape(mut app: TestApp) {
    let resp = app
        .client
        .post("/api/auth/login")
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await;
    assert_eq!(resp.0.status(), 400);
    let body: serde_json::Value =
        serde_json::from_str(&resp.0.into_body().into_string().await.unwrap()).unwrap();
    assert_eq!(body["code"], json!("INVALID_REQUEST"));
    assert_eq!(body["message"], json!("요청 형식이 올바르지 않아요."));
    app.get("/api/no-such-thing")
        .await
        .assert_error(404, "NOT_FOUND");
    // A body that is not JSON at all: the documented 400, not an undocumented 415.
    let resp = app
        .client
        .post("/api/auth/login")
        .header("content-type", "text/plain")
        .body("alice")
        .send()
        .await;
    assert_eq!(resp.0.status(), 400);
    let body: serde_json::Value =
        serde_json::from_str(&resp.0.into_body().into_string().await.unwrap()).unwrap();
    assert_eq!(body["code"], json!("INVALID_REQUEST"));
}

async fn health_and_readiness(mut app: TestApp) {
    let a = app.get("/healthz").await;
    assert_eq!(a.status, 200);
    let a = app.get("/readyz").await;
    assert_eq!(a.status, 200);
    assert_eq!(a.body["store"], json!("ok"));
    assert!(a.body["engine"] == json!("memory") || a.body["engine"] == json!("redis"));
}

async fn web_app_routes_fall_back_to_index(mut app: TestApp) {
    for path in [
        "/",
        "/login",
        "/main",
        "/verify/callback?identityVerificationId=x",
        "/terms/privacy",
    ] {
        let a = app.get(path).await;
        assert_eq!(a.status, 200, "{path}");
        assert!(
            a.body.as_str().unwrap_or_default().contains("텔레파시"),
            "{path}"
        );
        let head = app.client.head(path).send().await;
        assert_eq!(head.0.status(), 200, "HEAD {path}");
    }
}

/// The build's hashed files come in the encoding the browser takes, from the files the build
/// compressed, and are kept for a year; the page is asked again on every visit; a file of
/// another build is a 404, never the page.
async fn built_assets_are_compressed_and_cached_for_a_year(app: TestApp) {
    let assets = app.state.config.static_dir.join("assets");
    std::fs::create_dir_all(&assets).unwrap();
    let script = "console.log('텔레파시');".repeat(100);
    std::fs::write(assets.join("index-AbC123.js"), &script).unwrap();
    std::fs::write(assets.join("index-AbC123.js.br"), b"brotli bytes").unwrap();
    std::fs::write(assets.join("index-AbC123.js.gz"), b"gzip bytes").unwrap();
    std::fs::write(assets.join("logo-Zz9.png"), b"\x89PNG").unwrap();

    let get = |encoding: &'static str| {
        let mut req = app.client.get("/assets/index-AbC123.js");
        if !encoding.is_empty() {
            req = req.header("accept-encoding", encoding);
        }
        req.send()
    };
    for (accepted, encoding, body) in [
        (
            "gzip, deflate, br, zstd",
            Some("br"),
            "brotli bytes".to_owned(),
        ),
        ("gzip, deflate", Some("gzip"), "gzip bytes".to_owned()),
        ("gzip;q=0, identity", None, script.clone()),
        ("", None, script.clone()),
    ] {
        let answer = get(accepted).await;
        answer.assert_status_is_ok();
        let headers = answer.0.headers().clone();
        assert_eq!(
            headers.get("content-encoding").map(|v| v.to_str().unwrap()),
            encoding,
            "{accepted}"
        );
        assert_eq!(
            headers["content-type"].to_str().unwrap(),
            "text/javascript; charset=utf-8",
            "{accepted}"
        );
        assert_eq!(
            headers["cache-control"],
            "public, max-age=31536000, immutable"
        );
        assert_eq!(headers["vary"], "accept-encoding");
        assert_eq!(answer.0.into_body().into_string().await.unwrap(), body);
    }
    let image = app
        .client
        .get("/assets/logo-Zz9.png")
        .header("accept-encoding", "br")
        .send()
        .await;
    image.assert_status_is_ok();
    assert!(image.0.headers().get("content-encoding").is_none());

    for missing in [
        "/assets/index-Old000.js",
        "/assets/../index.html",
        "/assets/",
    ] {
        let answer = app.client.get(missing).send().await;
        assert_eq!(answer.0.status(), 404, "{missing}");
    }
    for page in ["/", "/main"] {
        let answer = app.client.get(page).send().await;
        answer.assert_status_is_ok();
        assert_eq!(answer.0.headers()["cache-control"], "no-cache", "{page}");
    }
}

async fn app_config_tells_demo(mut app: TestApp) {
    let config = app.get("/api/app-config").await.assert_ok().clone();
    assert_eq!(config["demo"], json!(true));
    // Demo mode names a demo operator and email, and nothing it was not told.
    assert_eq!(
        config["business"],
        json!({ "name": "텔레파시 운영팀", "email": "help@telepathy.example" })
    );
    assert_eq!(
        config["links"],
        json!({}),
        "no page of the operator's is made up"
    );
}

/// What the operator configures is what the footer, the help page, the terms and the links
/// read; what it leaves unset is absent, never a placeholder.
async fn app_config_tells_the_configured_business(app: TestApp) {
    let mut app = app
        .with_vars(&[
            ("TELEPATHY_BUSINESS_NAME", "주식회사 텔레파시"),
            ("TELEPATHY_BUSINESS_REPRESENTATIVE", "한지우"),
            ("TELEPATHY_BUSINESS_REGISTRATION_NUMBER", "1234567890"),
            ("TELEPATHY_BUSINESS_EMAIL", "help@telepathy.kr"),
            ("TELEPATHY_BUSINESS_HOSTING", "한빛클라우드"),
            ("TELEPATHY_YOUTH_OFFICER_NAME", "이서연"),
            ("TELEPATHY_YOUTH_OFFICER_POSITION", "운영 책임자"),
            ("TELEPATHY_YOUTH_OFFICER_EMAIL", "youth@telepathy.kr"),
            (
                "TELEPATHY_COMMUNITY_URL",
                "https://gall.example.kr/telepathy",
            ),
            (
                "TELEPATHY_PAYMENT_INQUIRY_URL",
                "https://forms.example.kr/pay",
            ),
        ])
        .await;
    let config = app.get("/api/app-config").await.assert_ok().clone();
    assert_eq!(
        config["links"],
        json!({
            "community": "https://gall.example.kr/telepathy",
            "paymentInquiry": "https://forms.example.kr/pay"
        })
    );
    assert_eq!(
        config["business"],
        json!({
            "name": "주식회사 텔레파시",
            "representative": "한지우",
            "registrationNumber": "123-45-67890",
            "email": "help@telepathy.kr",
            "hosting": "한빛클라우드",
            "youthOfficer": {
                "name": "이서연",
                "position": "운영 책임자",
                "email": "youth@telepathy.kr"
            }
        })
    );
}

/// A reset code goes to the account's own phone; were the outbox to show it, anyone who saw
/// the masked phone of the reset step could take the account over.
async fn the_outbox_never_serves_reset_codes(mut app: TestApp) {
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    app.cookie = None;
    let sign_up = app.read_outbox("01011112222", Some(OUTBOX_TOKEN)).await;
    let sign_up = sign_up.assert_ok().clone();
    app.pass_sms_cooldown("01011112222").await;
    app.post("/api/password/send-code", json!({ "username": "alice" }))
        .await
        .assert_ok();
    let after = app.read_outbox("01011112222", Some(OUTBOX_TOKEN)).await;
    assert_eq!(
        after.assert_ok(),
        &sign_up,
        "still the sign-up code, never the reset code"
    );
}

/// The outbox answers this machine over a real socket (the browser tests and the load
/// generator read it so), and anyone else only with the configured token.
async fn the_outbox_answers_this_machine_or_the_token(mut app: TestApp) {
    app.post("/api/verify-mvp/send", json!({ "phone": "01011112222" }))
        .await
        .assert_ok();
    // The in-process client has no peer address: a stranger.
    app.read_outbox("01011112222", None)
        .await
        .assert_error(404, "NOT_FOUND");
    app.read_outbox("01011112222", Some("guess"))
        .await
        .assert_error(404, "NOT_FOUND");
    app.read_outbox("01011112222", Some(OUTBOX_TOKEN))
        .await
        .assert_ok();
    let url = format!("http://{}/api/dev/sms-outbox?phone=01011112222", app.addr);
    let local = reqwest::get(&url).await.unwrap();
    assert_eq!(local.status(), 200);
    let proxied = reqwest::Client::new()
        .get(&url)
        .header("x-forwarded-for", "203.0.113.9")
        .send()
        .await
        .unwrap();
    assert_eq!(
        proxied.status(),
        404,
        "a request that came through a proxy is a stranger's"
    );
}

async fn outbox_reads_are_limited(mut app: TestApp) {
    app.post("/api/verify-mvp/send", json!({ "phone": "01011112222" }))
        .await
        .assert_ok();
    for _ in 0..OUTBOX_READS_PER_PHONE {
        app.read_outbox("01011112222", Some(OUTBOX_TOKEN))
            .await
            .assert_ok();
    }
    app.read_outbox("01011112222", Some(OUTBOX_TOKEN))
        .await
        .assert_error(429, "RATE_LIMITED");
}

#[tokio::test]
async fn the_outbox_does_not_exist_outside_demo_mode() {
    let mut app = spawn_with(Backend::Sqlite, UNREACHABLE_PROVIDERS).await;
    app.get("/api/dev/sms-outbox?phone=01011112222")
        .await
        .assert_error(404, "NOT_FOUND");
    let config = app.get("/api/app-config").await.body;
    assert_eq!(config["demo"], json!(false));
    assert_eq!(
        config["business"],
        json!({}),
        "nothing configured, nothing told"
    );
    // The real provider is unreachable here: the user is told the send failed.
    let a = app
        .post("/api/verify-mvp/send", json!({ "phone": "01011112222" }))
        .await;
    a.assert_error(502, "SMS_SEND_FAILED");
    assert_eq!(a.message(), "인증번호 전송에 실패했습니다.");
}

#[tokio::test]
async fn openapi_document_is_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../openapi/openapi.json");
    let fresh = telepathy_server::openapi_json().await.unwrap() + "\n";
    if std::env::var_os("UPDATE_OPENAPI").is_some() {
        std::fs::write(path, &fresh).unwrap();
    }
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        committed == fresh,
        "openapi/openapi.json is stale: run `UPDATE_OPENAPI=1 cargo test -p telepathy-server --test api openapi`"
    );
}

/// `/metrics` answers this machine over a real socket, a scraper elsewhere only with the
/// configured token, and counts what happened.
#[tokio::test]
async fn metrics_are_scraped_locally_or_with_the_token() {
    let mut app = spawn_with(Backend::Sqlite, &[("TELEPATHY_METRICS_TOKEN", "s3cret")]).await;
    app.get("/api/server-time").await.assert_ok();
    let local = reqwest::get(format!("http://{}/metrics", app.addr))
        .await
        .unwrap();
    assert_eq!(local.status(), 200);
    assert!(local
        .headers()
        .get("content-type")
        .unwrap()
        .to_str()
        .unwrap()
        .starts_with("text/plain"));
    let text = local.text().await.unwrap();
    for metric in [
        "telepathy_sockets_open 0",
        "telepathy_bus_gaps_total 0",
        "telepathy_sockets_kicked_total{op=\"slow\"} 0",
        "telepathy_http_requests_total{route=\"getServerTime\",status=\"200\"} 1",
        "# TYPE telepathy_relay_latency_seconds histogram",
    ] {
        assert!(text.contains(metric), "{metric} in\n{text}");
    }

    // Through a proxy, or from another host (the in-process client has no peer address):
    // only with the token.
    let proxied = reqwest::Client::new()
        .get(format!("http://{}/metrics", app.addr))
        .header("x-forwarded-for", "203.0.113.9")
        .send()
        .await
        .unwrap();
    assert_eq!(proxied.status(), 404);
    app.get("/metrics").await.assert_error(404, "NOT_FOUND");
    let wrong = app
        .client
        .get("/metrics")
        .header("authorization", "Bearer guess")
        .send()
        .await;
    assert_eq!(wrong.0.status(), 404);
    let scraped = app
        .client
        .get("/metrics")
        .header("authorization", "Bearer s3cret")
        .send()
        .await;
    assert_eq!(scraped.0.status(), 200);
}

/// A write lock held too long (a stuck transaction, a long migration) makes the calls that
/// need it answer 503 with the Korean message within seconds, not hang or fail with a 500;
/// once the lock is gone, they work again by themselves.
async fn a_locked_database_answers_503_and_recovers(mut app: TestApp) {
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    app.cookie = None;
    let lock = telepathy_store::testing::lock_sessions(&app.state.config.database_url).await;
    let started = std::time::Instant::now();
    let a = app.login("alice", "abcdefg1").await;
    a.assert_error(503, "UNAVAILABLE");
    assert_eq!(
        a.message(),
        telepathy_domain::ErrorCode::Unavailable.message()
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(8),
        "answered in {:?}",
        started.elapsed()
    );
    drop(lock);
    app.login("alice", "abcdefg1").await.assert_ok();
}

/// `n` look-ups (username checks) over a real socket, each with its own X-Forwarded-For;
/// the status of each answer.
async fn lookups_forwarded_for(app: &TestApp, chains: &[String]) -> Vec<u16> {
    let client = reqwest::Client::new();
    let mut statuses = Vec::new();
    for chain in chains {
        let resp = client
            .post(format!("http://{}/api/auth/check-username", app.addr))
            .header("x-forwarded-for", chain)
            .json(&json!({ "username": "alice_1" }))
            .send()
            .await
            .unwrap();
        statuses.push(resp.status().as_u16());
    }
    statuses
}

/// Behind one trusted proxy the client is the last X-Forwarded-For entry (the one the
/// proxy wrote): what a client writes there itself does not make it someone else.
#[tokio::test]
async fn a_forged_forwarded_hop_does_not_escape_rate_limits() {
    let app = spawn_with(Backend::Sqlite, &[("TELEPATHY_TRUST_PROXY", "true")]).await;
    let limit = telepathy_domain::limits::LOOKUPS_PER_IP as usize;
    let forged: Vec<String> = (0..=limit)
        .map(|i| format!("198.18.{}.{}, 203.0.113.5", i / 250, i % 250))
        .collect();
    let statuses = lookups_forwarded_for(&app, &forged).await;
    assert!(statuses[..limit].iter().all(|s| *s == 200), "{statuses:?}");
    assert_eq!(statuses[limit], 429, "one client, whatever it forged");
    let other = lookups_forwarded_for(&app, &["203.0.113.6".to_owned()]).await;
    assert_eq!(other, [200], "another client behind the same proxy");
}

/// A proxy that writes the client's port too (`203.0.113.14:5555`, `[2001:db8::14]:443`)
/// still names that client: each is limited alone, not with everyone behind the proxy.
async fn a_forwarded_entry_with_a_port_is_that_client(app: TestApp) {
    let app = app.with_vars(&[("TELEPATHY_TRUST_PROXY", "true")]).await;
    let limit = telepathy_domain::limits::LOOKUPS_PER_IP as usize;
    let one: Vec<String> = (0..=limit)
        .map(|i| format!("203.0.113.14:{}", 5000 + i))
        .collect();
    let statuses = lookups_forwarded_for(&app, &one).await;
    assert!(statuses[..limit].iter().all(|s| *s == 200), "{statuses:?}");
    assert_eq!(statuses[limit], 429, "one client, whatever its port");
    let others = [
        "203.0.113.15:5555".to_owned(),
        "[2001:db8::14]:443".to_owned(),
        "[2001:db8:1::14]".to_owned(),
    ];
    let statuses = lookups_forwarded_for(&app, &others).await;
    assert_eq!(
        statuses,
        [200, 200, 200],
        "other clients behind the same proxy"
    );
}

/// With two trusted proxies the client is the second address from the right.
#[tokio::test]
async fn the_client_is_counted_from_the_right_past_trusted_proxies() {
    let app = spawn_with(Backend::Sqlite, &[("TELEPATHY_TRUSTED_PROXIES", "2")]).await;
    let limit = telepathy_domain::limits::LOOKUPS_PER_IP as usize;
    let chains: Vec<String> = (0..=limit)
        .map(|i| format!("198.18.0.{i}, 203.0.113.5, 10.0.0.2"))
        .collect();
    let statuses = lookups_forwarded_for(&app, &chains).await;
    assert!(statuses[..limit].iter().all(|s| *s == 200), "{statuses:?}");
    assert_eq!(statuses[limit], 429);
    let other = lookups_forwarded_for(&app, &["203.0.113.6, 10.0.0.2".to_owned()]).await;
    assert_eq!(other, [200], "another client behind the same proxies");
}

/// A writer of log lines the test can read back.
#[derive(Clone, Default)]
struct LogLines(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for LogLines {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl LogLines {
    /// The lines that logged a request to `path`.
    fn requests_to(&self, path: &str) -> Vec<String> {
        String::from_utf8_lossy(&self.0.lock().unwrap())
            .lines()
            .filter(|l| l.contains(path))
            .map(str::to_owned)
            .collect()
    }
}

/// The access log names the connection's peer, never a forwarded address in its place,
/// and the client as the trusted proxies tell it.
#[tokio::test]
async fn the_access_log_names_the_peer_and_the_client() {
    // The process's subscriber, not this thread's: a thread-local one misses events whose
    // call sites other tests' threads (logging to no subscriber) reached first. Other
    // tests' lines come in too; the assertions below hold whatever they add.
    static LINES: std::sync::OnceLock<LogLines> = std::sync::OnceLock::new();
    let lines = LINES
        .get_or_init(|| {
            let lines = LogLines::default();
            let writer = lines.clone();
            let subscriber = tracing_subscriber::fmt()
                .with_max_level(tracing::Level::INFO)
                .with_ansi(false)
                .with_writer(move || writer.clone())
                .finish();
            tracing::subscriber::set_global_default(subscriber)
                .expect("no other test sets the process's subscriber");
            lines
        })
        .clone();
    for (proxies, path, client) in [
        ("0", "/healthz", "127.0.0.1"),
        ("1", "/readyz", "203.0.113.9"),
    ] {
        let app = spawn_with(Backend::Sqlite, &[("TELEPATHY_TRUSTED_PROXIES", proxies)]).await;
        let resp = reqwest::Client::new()
            .get(format!("http://{}{path}?secret=1", app.addr))
            .header("x-forwarded-for", "203.0.113.9")
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 200);
        // The line is written as the answer leaves, which may be after the client has it.
        let ours = |l: &String| {
            l.contains("peer=127.0.0.1")
                && l.contains(&format!("client={client}"))
                && l.contains("status=200")
                && l.contains("method=GET")
        };
        let mut logged = lines.requests_to(path);
        for _ in 0..250 {
            if logged.iter().any(ours) {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            logged = lines.requests_to(path);
        }
        assert!(
            logged.iter().any(ours),
            "behind {proxies} proxies: {logged:#?}"
        );
        assert!(
            logged.iter().all(|l| !l.contains("secret=1")),
            "queries stay out of the log: {logged:#?}"
        );
        if proxies == "0" {
            assert!(
                logged.iter().all(|l| !l.contains("203.0.113.9")),
                "{logged:#?}"
            );
        }
    }
}

/// The body of an answer, as JSON.
async fn json_of(resp: poem::test::TestResponse) -> (u16, serde_json::Value) {
    let status = resp.0.status().as_u16();
    let text = resp.0.into_body().into_string().await.unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or(serde_json::Value::String(text)),
    )
}

/// API bodies are read up to 64 KiB, whether their length is declared or not; beyond, the
/// answer is 413 in the error shape.
async fn oversized_bodies_are_refused_in_the_error_shape(mut app: TestApp) {
    let huge = json!({ "username": "alice_1", "password": "x".repeat(1 << 20) }).to_string();
    let declared = app
        .client
        .post("/api/auth/login")
        .header("origin", crate::helpers::ORIGIN)
        .header("content-type", "application/json")
        .header("content-length", huge.len())
        .body(huge.clone())
        .send()
        .await;
    let (status, body) = json_of(declared).await;
    assert_eq!(status, 413, "{body}");
    assert_eq!(body["code"], json!("PAYLOAD_TOO_LARGE"));
    assert_eq!(body["success"], json!(false));
    assert_eq!(body["message"], json!("요청 내용이 너무 커요."));
    // Streamed without a declared length: counted as it is read.
    let a = app
        .post("/api/auth/login", serde_json::from_str(&huge).unwrap())
        .await;
    a.assert_error(413, "PAYLOAD_TOO_LARGE");
    // Within the limit, the handler reads it as ever.
    let a = app
        .post(
            "/api/auth/login",
            json!({ "username": "alice_1", "password": "x".repeat(60_000) }),
        )
        .await;
    a.assert_error(401, "LOGIN_FAILED");
}

/// A 20 KB path or query is answered in the error shape (414), not read.
async fn overlong_addresses_are_refused_in_the_error_shape(mut app: TestApp) {
    let long = "a".repeat(20_000);
    app.get(&format!("/api/server-time?x={long}"))
        .await
        .assert_error(414, "URI_TOO_LONG");
    app.get(&format!("/api/{long}"))
        .await
        .assert_error(414, "URI_TOO_LONG");
    app.get(&format!("/{long}"))
        .await
        .assert_error(414, "URI_TOO_LONG");
    app.get("/api/server-time").await.assert_ok();
}

/// Over a real socket: what a client gets for a 1 MB body and for long addresses.
#[tokio::test]
async fn oversized_requests_over_a_socket() {
    let app = crate::helpers::spawn_app(Backend::Sqlite).await;
    let client = reqwest::Client::new();
    let resp = client
        .post(format!("http://{}/api/auth/login", app.addr))
        .header("origin", crate::helpers::ORIGIN)
        .json(&json!({ "username": "alice_1", "password": "x".repeat(1 << 20) }))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 413);
    let body: serde_json::Value = resp.json().await.unwrap();
    assert_eq!(body["code"], json!("PAYLOAD_TOO_LARGE"));
    let resp = client
        .get(format!(
            "http://{}/api/server-time?x={}",
            app.addr,
            "a".repeat(20_000)
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 414);
    let body: serde_json::Value = resp.json().await.unwrap();
    assert_eq!(body["code"], json!("URI_TOO_LONG"));
    // Beyond 64 KiB the HTTP layer under poem refuses the request line itself (414 with
    // no body; clients refuse to send such addresses anyway); beyond its 400 KB read
    // buffer, or past 100 header lines, 431. Those answers carry our headers too. The
    // node lives on either way.
    let many: String = (0..120).map(|i| format!("x-{i}: {i}\r\n")).collect();
    for (what, head, status) in [
        (
            "request line",
            format!(
                "GET /api/server-time?x={} HTTP/1.1\r\nhost: x\r\n",
                "a".repeat(70_000)
            ),
            "414",
        ),
        (
            "head",
            format!(
                "GET /api/server-time HTTP/1.1\r\nhost: x\r\nx-big: {}\r\n",
                "a".repeat(500_000)
            ),
            "431",
        ),
        (
            "header lines",
            format!("GET /api/server-time HTTP/1.1\r\nhost: x\r\n{many}"),
            "431",
        ),
    ] {
        let request = format!("{head}connection: close\r\n\r\n");
        let answer = raw_request(&app.addr, request.as_bytes()).await;
        assert!(
            answer.starts_with(&format!("HTTP/1.1 {status} ")),
            "{what}: {}",
            answer.lines().next().unwrap_or_default()
        );
        let head = answer.to_ascii_lowercase();
        for line in [
            "\r\nx-content-type-options: nosniff\r\n",
            "\r\nx-frame-options: deny\r\n",
            "\r\ncontent-security-policy: default-src 'self'",
            "\r\npermissions-policy: ",
        ] {
            assert!(head.contains(line), "{what}: {line:?} in {answer}");
        }
    }
    // The node still serves after all that.
    let resp = client
        .get(format!("http://{}/api/server-time", app.addr))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
}

/// A client that sends slowly or not at all cannot hold a connection: a head that does not
/// end, a body that does not come and a silent kept-alive connection are each given up.
#[tokio::test]
async fn slow_and_silent_clients_are_cut_off() {
    use std::time::{Duration, Instant};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let app = crate::helpers::spawn_with(
        Backend::Sqlite,
        &[
            ("TELEPATHY_REQUEST_TIMEOUT_SECONDS", "1"),
            ("TELEPATHY_IDLE_TIMEOUT_SECONDS", "2"),
        ],
    )
    .await;
    // Reads until the server closes; what it said and when it closed.
    async fn until_closed(
        stream: &mut tokio::net::TcpStream,
        start: Instant,
    ) -> (String, Duration) {
        let mut answer = Vec::new();
        let read = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer));
        assert!(read.await.is_ok(), "still open after 10 s");
        (
            String::from_utf8_lossy(&answer).into_owned(),
            start.elapsed(),
        )
    }
    // A head that never ends, one line at a time.
    let mut stream = tokio::net::TcpStream::connect(&app.addr).await.unwrap();
    let start = Instant::now();
    stream
        .write_all(b"GET /api/server-time HTTP/1.1\r\nhost: x\r\n")
        .await
        .unwrap();
    let (answer, took) = until_closed(&mut stream, start).await;
    assert!(answer.is_empty(), "{answer}");
    assert!(took >= Duration::from_millis(900), "{took:?}");
    // A body that stops halfway: 408 in the error shape, and the connection is closed.
    let mut stream = tokio::net::TcpStream::connect(&app.addr).await.unwrap();
    let start = Instant::now();
    let head = format!(
        "POST /api/auth/login HTTP/1.1\r\nhost: x\r\norigin: {}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{{\"username\"",
        crate::helpers::ORIGIN
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let (answer, took) = until_closed(&mut stream, start).await;
    assert!(answer.starts_with("HTTP/1.1 408 "), "{answer}");
    assert!(answer.contains("\"REQUEST_TIMEOUT\""), "{answer}");
    assert!(
        answer.contains("요청이 제시간에 도착하지 않았어요."),
        "{answer}"
    );
    assert!(took >= Duration::from_millis(900), "{took:?}");
    // A kept-alive connection that goes silent after its answer.
    let mut stream = tokio::net::TcpStream::connect(&app.addr).await.unwrap();
    stream
        .write_all(b"GET /api/server-time HTTP/1.1\r\nhost: x\r\n\r\n")
        .await
        .unwrap();
    let mut first = [0u8; 12];
    stream.read_exact(&mut first).await.unwrap();
    assert_eq!(&first, b"HTTP/1.1 200");
    let start = Instant::now();
    let (_, took) = until_closed(&mut stream, start).await;
    assert!(took >= Duration::from_millis(1500), "{took:?}");
    // Meanwhile the node serves whoever sends in time.
    let resp = reqwest::get(format!("http://{}/api/server-time", app.addr))
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    for why in ["head", "body", "idle"] {
        let series = format!("telepathy_connections_cut_total{{op=\"{why}\"}}");
        assert!(app.metric(&series) >= 1.0, "{series}");
    }
}

/// Writes `request` to a fresh connection and reads the answer until the server closes it.
async fn raw_request(addr: &str, request: &[u8]) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    // The server may answer and close before it has read everything.
    let _ = stream.write_all(request).await;
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer).await;
    String::from_utf8_lossy(&answer).into_owned()
}

/// The headers of an answer to `GET path`.
async fn headers_of(app: &TestApp, path: &str) -> poem::http::HeaderMap {
    let resp = app.client.get(path).send().await;
    resp.0.headers().clone()
}

fn header<'a>(headers: &'a poem::http::HeaderMap, name: &str) -> &'a str {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_else(|| panic!("no {name} in {headers:?}"))
}

/// Pages and API answers carry one Content-Security-Policy (no inline script, no framing,
/// sockets to our own origin) and a Permissions-Policy; no HSTS over plain http.
async fn security_headers_cover_the_app_and_the_api(app: TestApp) {
    for path in ["/", "/login", "/api/server-time", "/api/no-such-thing"] {
        let headers = headers_of(&app, path).await;
        // No answer of the API is for a cache; the app's pages are revalidated.
        if path.starts_with("/api/") {
            assert_eq!(header(&headers, "cache-control"), "no-store", "{path}");
        }
        let csp = header(&headers, "content-security-policy");
        let directives: Vec<&str> = csp.split(';').map(str::trim).collect();
        for expected in [
            "default-src 'self'",
            "script-src 'self' https://cdn.portone.io https://cdn.iamport.kr",
            "style-src 'self'",
            "object-src 'none'",
            "base-uri 'self'",
            "frame-ancestors 'none'",
        ] {
            assert!(
                directives.contains(&expected),
                "{path}: {expected} in {csp}"
            );
        }
        let connect = directives
            .iter()
            .find(|d| d.starts_with("connect-src "))
            .unwrap_or_else(|| panic!("{path}: connect-src in {csp}"));
        for source in ["'self'", "ws://127.0.0.1:8080", "https://api.portone.io"] {
            assert!(
                connect.split(' ').any(|s| s == source),
                "{source} in {connect}"
            );
        }
        let frames = directives
            .iter()
            .find(|d| d.starts_with("frame-src "))
            .unwrap_or_else(|| panic!("{path}: frame-src in {csp}"));
        assert!(frames.contains("https://service.iamport.kr"), "{frames}");
        assert!(
            !csp.contains("unsafe-inline") && !csp.contains("unsafe-eval"),
            "{csp}"
        );
        let permissions = header(&headers, "permissions-policy");
        for feature in [
            "camera=()",
            "microphone=()",
            "geolocation=()",
            "payment=(self",
        ] {
            assert!(
                permissions.contains(feature),
                "{path}: {feature} in {permissions}"
            );
        }
        assert_eq!(header(&headers, "x-frame-options"), "DENY");
        assert!(
            headers.get("strict-transport-security").is_none(),
            "{path}: no HSTS for an http origin"
        );
    }
}

/// HSTS only when the public origin is https; sockets then go to wss://.
#[tokio::test]
async fn hsts_for_an_https_origin() {
    let app = spawn_with(
        Backend::Sqlite,
        &[("TELEPATHY_PUBLIC_ORIGIN", "https://telepathy.example")],
    )
    .await;
    for path in ["/", "/api/server-time"] {
        let headers = headers_of(&app, path).await;
        assert_eq!(
            header(&headers, "strict-transport-security"),
            "max-age=31536000; includeSubDomains",
            "{path}"
        );
        let csp = header(&headers, "content-security-policy");
        assert!(csp.contains("wss://telepathy.example"), "{csp}");
        assert!(!csp.contains("ws://"), "{csp}");
    }
}

/// Sets demo mode's clock as this machine may (with the token).
async fn set_demo_clock(app: &mut TestApp, body: serde_json::Value) -> serde_json::Value {
    let bearer = format!("Bearer {OUTBOX_TOKEN}");
    app.post_with(
        "/api/dev/clock",
        body,
        &[("origin", ORIGIN), ("authorization", &bearer)],
    )
    .await
    .assert_ok()
    .clone()
}

/// Demo mode is always open on the real time, whatever the hour; moved to 15:00 its clock
/// keeps the spec's hours (closed, opening at 20:00 that day, joins refused), at 21:00 it is
/// open, and moved back it is always open again.
async fn the_demo_keeps_the_spec_hours_once_its_clock_is_moved(app: TestApp) {
    let mut app = app.on_the_demo_clock().await;
    let open = |app: &TestApp| app.state.realtime.round_state().is_open;
    assert!(open(&app), "always open on the real time");

    let moved = set_demo_clock(&mut app, json!({ "seoulTime": "15:00:00" })).await;
    let today = moved["seoulTime"].as_str().unwrap()[..10].to_owned();
    let state = app.get("/api/server-time").await;
    assert_eq!(state.assert_ok()["isOpen"], json!(false));
    let opens: chrono::DateTime<chrono::FixedOffset> =
        state.body["nextOpenAt"].as_str().unwrap().parse().unwrap();
    assert_eq!(
        opens
            .with_timezone(&chrono_tz::Asia::Seoul)
            .format("%Y-%m-%d %H:%M:%S")
            .to_string(),
        format!("{today} 20:00:00")
    );

    let (mut a, _) = crate::realtime::user(&mut app, "alice", "01011112222").await;
    let round = app.state.realtime.round_state();
    a.send(
        "join_match",
        json!({ "word": round.words[0].word, "round": round.round }),
    )
    .await;
    assert_eq!(a.expect("error").await["code"], json!("SERVICE_CLOSED"));

    set_demo_clock(&mut app, json!({ "seoulTime": "21:00:00" })).await;
    assert!(open(&app), "open at 21:00 on the moved clock");
    assert!(app.get("/api/server-time").await.body["nextOpenAt"].is_null());

    set_demo_clock(&mut app, json!({ "seoulTime": "15:00:00" })).await;
    assert!(!open(&app));
    set_demo_clock(&mut app, json!({})).await;
    assert!(open(&app), "always open again on the real time");
}
