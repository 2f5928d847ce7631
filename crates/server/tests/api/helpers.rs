//! `spawn_app`: a whole node in process with a fresh store, a hand-moved clock and typed
//! request helpers. SQLite runs with the memory engine (the embedded mode), PostgreSQL with
//! Redis (the cluster mode); both servers must be running.

use std::sync::Arc;
use std::time::Duration;

use poem::endpoint::BoxEndpoint;
use poem::http::StatusCode;
use poem::listener::Acceptor;
use poem::test::TestClient;
use poem::{EndpointExt, Server};
use serde_json::{json, Value};
use telepathy_engine::{Engine, RedisEngine, PRESENCE_TTL};
use telepathy_providers::{CardPayments, CodePurpose, IdentityVerifier};
use telepathy_server::clock::ManualClock;
use telepathy_server::config::Config;
use telepathy_server::state::{AppState, Overrides};
use telepathy_store::testing::fresh_url;
use telepathy_store::{AuditEntry, Backend, NewSanction};

pub const ORIGIN: &str = "http://127.0.0.1:8080";

/// Real providers instead of the demo ones, at an address where nobody listens: every SMS
/// fails, and there is no demo outbox.
pub const UNREACHABLE_PROVIDERS: &[(&str, &str)] = &[
    ("TELEPATHY_DEMO", "false"),
    ("TELEPATHY_SOLAPI_API_KEY", "key"),
    ("TELEPATHY_SOLAPI_API_SECRET", "secret"),
    ("TELEPATHY_SOLAPI_SENDER", "0212345678"),
    ("TELEPATHY_SOLAPI_BASE_URL", "http://127.0.0.1:9"),
    ("TELEPATHY_PORTONE_API_SECRET", "secret"),
    ("TELEPATHY_PORTONE_STORE_ID", "store-x"),
    ("TELEPATHY_PORTONE_IDENTITY_CHANNEL_KEY", "channel-x"),
    ("TELEPATHY_PORTONE_V1_API_KEY", "key"),
    ("TELEPATHY_PORTONE_V1_API_SECRET", "secret"),
    ("TELEPATHY_PORTONE_V1_IMP_CODE", "imp00000000"),
    ("TELEPATHY_PORTONE_V1_BASE_URL", "http://127.0.0.1:9"),
    ("TELEPATHY_TRANSFER_BANK", "국민"),
    ("TELEPATHY_TRANSFER_ACCOUNT", "123456-01-234567"),
    ("TELEPATHY_TRANSFER_HOLDER", "텔레파시"),
    (
        "TELEPATHY_DATA_KEY",
        "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=",
    ),
    (
        "TELEPATHY_VAPID_PRIVATE_KEY",
        "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE",
    ),
    ("TELEPATHY_VAPID_SUBJECT", "mailto:ops@example.com"),
];
/// The bearer token that lets the in-process client (which has no peer address) read the
/// demo SMS outbox.
pub const OUTBOX_TOKEN: &str = "test-outbox-token";

pub struct TestApp {
    pub client: TestClient<BoxEndpoint<'static, poem::Response>>,
    /// `host:port` of the same app on a real socket, for WebSocket tests.
    pub addr: String,
    pub state: AppState,
    pub clock: Arc<ManualClock>,
    /// The session cookie the app last set, sent with every request.
    pub cookie: Option<String>,
    /// The device cookie the app last set (a login or sign-up), sent with every request.
    pub device: Option<String>,
    /// The code flow cookie the app last set (an SMS code sent), sent with every request:
    /// the browser's own codes. Take it to play another browser.
    pub flow: Option<String>,
}

/// An answer: status and JSON body.
#[derive(Debug)]
pub struct Answer {
    pub status: StatusCode,
    pub body: Value,
    pub set_cookie: Option<String>,
}

impl Answer {
    pub fn code(&self) -> &str {
        self.body["code"].as_str().unwrap_or("")
    }

    pub fn message(&self) -> &str {
        self.body["message"].as_str().unwrap_or("")
    }

    /// Asserts an error answer with this code and the domain's Korean message for it.
    #[track_caller]
    pub fn assert_error(&self, status: u16, code: &str) {
        assert_eq!(self.status.as_u16(), status, "status of {:?}", self.body);
        assert_eq!(self.code(), code, "code of {:?}", self.body);
        assert_eq!(self.body["success"], json!(false));
        assert!(!self.message().is_empty());
    }

    #[track_caller]
    pub fn assert_ok(&self) -> &Value {
        assert_eq!(self.status, StatusCode::OK, "{:?}", self.body);
        &self.body
    }
}

pub async fn spawn_app(backend: Backend) -> TestApp {
    spawn_with(backend, &[]).await
}

pub async fn spawn_with(backend: Backend, extra: &[(&str, &str)]) -> TestApp {
    spawn_full(backend, extra, None, None).await
}

/// A whole node with these variables set too, and `identity` and `payments` in place of the
/// configured providers when given.
pub async fn spawn_full(
    backend: Backend,
    extra: &[(&str, &str)],
    identity: Option<Arc<dyn IdentityVerifier>>,
    payments: Option<Arc<dyn CardPayments>>,
) -> TestApp {
    spawn_on(backend, extra, identity, payments, false).await
}

/// A whole node in demo mode on demo mode's own clock, the real time that
/// `POST /api/dev/clock` moves (with `Authorization: Bearer OUTBOX_TOKEN`), rather than
/// the test's hand-moved one: `TestApp::clock` moves nothing there.
pub async fn spawn_on_the_demo_clock(backend: Backend) -> TestApp {
    spawn_on(backend, &[], None, None, true).await
}

async fn spawn_on(
    backend: Backend,
    extra: &[(&str, &str)],
    identity: Option<Arc<dyn IdentityVerifier>>,
    payments: Option<Arc<dyn CardPayments>>,
    demo_clock: bool,
) -> TestApp {
    let database_url = fresh_url(backend).await;
    // A folder per app: tests run in parallel, and a shared index.html being rewritten by
    // one would be read half-written by another.
    let static_dir = std::env::temp_dir()
        .join("telepathy-tests-static")
        .join(format!("{:016x}", rand::random::<u64>()));
    std::fs::create_dir_all(&static_dir).unwrap();
    std::fs::write(
        static_dir.join("index.html"),
        "<!doctype html><title>텔레파시</title>",
    )
    .unwrap();
    let static_dir = static_dir.display().to_string();
    let mut vars: Vec<(String, String)> = vec![
        ("DATABASE_URL".into(), database_url),
        ("TELEPATHY_DEMO".into(), "true".into()),
        ("TELEPATHY_STATIC_DIR".into(), static_dir),
        ("TELEPATHY_OUTBOX_TOKEN".into(), OUTBOX_TOKEN.into()),
    ];
    for (k, v) in extra {
        vars.retain(|(name, _)| name != k);
        vars.push(((*k).into(), (*v).into()));
    }
    let config =
        Config::from_lookup(|name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
            .unwrap_or_else(|e| panic!("{e}"));
    let engine: Option<Arc<dyn Engine>> = match backend {
        Backend::Sqlite => None,
        Backend::Postgres => Some(Arc::new(redis_engine().await)),
    };
    let clock = Arc::new(ManualClock::new(CLOCK_START.parse().unwrap()));
    let state = AppState::build_with(
        config,
        Overrides {
            clock: if demo_clock {
                None
            } else {
                Some(clock.clone())
            },
            engine,
            sms: None,
            identity,
            payments,
        },
    )
    .await
    .unwrap();
    let app = telepathy_server::http::app::build(state.clone())
        .map_to_response()
        .boxed();
    let addr = serve(&state).await;
    TestApp {
        client: TestClient::new(app),
        addr,
        state,
        clock,
        cookie: None,
        device: None,
        flow: None,
    }
}

/// Starts the real-time tasks of `state` and serves its app on a real socket: answers its
/// `host:port`, for WebSocket tests.
pub async fn serve(state: &AppState) -> String {
    telepathy_server::tasks::start(state).await.unwrap();
    let acceptor =
        telepathy_server::http::listener::bind("127.0.0.1:0", &state.config, &state.metrics)
            .await
            .unwrap();
    let addr = acceptor.local_addr()[0]
        .as_socket_addr()
        .unwrap()
        .to_string();
    let served = telepathy_server::http::app::build(state.clone());
    tokio::spawn(async move { Server::new_with_acceptor(acceptor).run(served).await });
    addr
}

/// Where every test app's clock starts (21:00:10 in Seoul, within the service hours): ten
/// seconds into a round, not on its start, where the shared clock's skew (a millisecond
/// or two either way) would put the node in one round or the one before by chance.
pub const CLOCK_START: &str = "2026-11-22T12:00:10Z";

tokio::task_local! {
    /// Set for a test that runs on the Redis Cluster of the tests (`TEST_REDIS_CLUSTER_URL`)
    /// rather than on one Redis server.
    pub static ON_CLUSTER: bool;
}

async fn redis_engine() -> RedisEngine {
    let url = if ON_CLUSTER.try_with(|on| *on).unwrap_or(false) {
        std::env::var("TEST_REDIS_CLUSTER_URL")
            .unwrap_or_else(|_| "redis-cluster://127.0.0.1:7101".into())
    } else {
        std::env::var("TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
    };
    let prefix = format!("test:{}:", rand::random::<u64>());
    tokio::time::timeout(Duration::from_secs(10), RedisEngine::connect(&url, &prefix))
        .await
        .unwrap_or_else(|_| panic!("no Redis answered at {url}"))
        .unwrap_or_else(|e| panic!("Redis at {url}: {e}"))
}

impl TestApp {
    /// The Cookie header a browser would send: the session's and the device's.
    fn cookies(&self) -> Option<String> {
        let both: Vec<&str> = [&self.cookie, &self.device, &self.flow]
            .into_iter()
            .flatten()
            .map(String::as_str)
            .collect();
        (!both.is_empty()).then(|| both.join("; "))
    }

    pub async fn get(&mut self, path: &str) -> Answer {
        let mut req = self.client.get(path);
        if let Some(c) = self.cookies() {
            req = req.header("cookie", c);
        }
        self.finish(req.send().await).await
    }

    pub async fn post(&mut self, path: &str, body: Value) -> Answer {
        self.post_with(path, body, &[("origin", ORIGIN)]).await
    }

    pub async fn delete(&mut self, path: &str) -> Answer {
        let mut req = self.client.delete(path).header("origin", ORIGIN);
        if let Some(c) = self.cookies() {
            req = req.header("cookie", c);
        }
        self.finish(req.send().await).await
    }

    /// A fresh app on the same backend, with these variables set too.
    pub async fn with_vars(self, extra: &[(&str, &str)]) -> TestApp {
        spawn_with(self.state.config.backend, extra).await
    }

    /// A fresh app on the same backend on demo mode's own clock (`spawn_on_the_demo_clock`).
    pub async fn on_the_demo_clock(self) -> TestApp {
        spawn_on_the_demo_clock(self.state.config.backend).await
    }

    /// A fresh app on the same backend whose identity provider is `identity`.
    pub async fn with_identity(self, identity: Arc<dyn IdentityVerifier>) -> TestApp {
        spawn_full(self.state.config.backend, &[], Some(identity), None).await
    }

    /// A fresh app on the same backend whose card payments go to `payments`.
    pub async fn with_payments(self, payments: Arc<dyn CardPayments>) -> TestApp {
        spawn_full(self.state.config.backend, &[], None, Some(payments)).await
    }

    /// A POST from the client address `ip` (the app must trust X-Forwarded-For). One
    /// address only, so it is the client's however many proxies the app trusts.
    pub async fn post_from(&mut self, ip: &str, path: &str, body: Value) -> Answer {
        self.post_with(path, body, &[("origin", ORIGIN), ("x-forwarded-for", ip)])
            .await
    }

    pub async fn post_with(&mut self, path: &str, body: Value, headers: &[(&str, &str)]) -> Answer {
        let mut req = self.client.post(path).body_json(&body);
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        if let Some(c) = self.cookies() {
            req = req.header("cookie", c);
        }
        self.finish(req.send().await).await
    }

    async fn finish(&mut self, resp: poem::test::TestResponse) -> Answer {
        let status = resp.0.status();
        let mut set_cookie = None;
        for sc in resp
            .0
            .headers()
            .get_all("set-cookie")
            .iter()
            .filter_map(|v| v.to_str().ok())
        {
            // The device cookie is kept apart, as a browser keeps it past a logout.
            if sc.starts_with("tp_device=") {
                self.device = Some(sc.split(';').next().unwrap_or_default().to_owned());
            } else if sc.starts_with("tp_code=") {
                self.flow = Some(sc.split(';').next().unwrap_or_default().to_owned());
            } else {
                set_cookie = Some(sc.to_owned());
            }
        }
        if let Some(sc) = &set_cookie {
            let pair = sc.split(';').next().unwrap_or_default().to_owned();
            let cleared = pair.ends_with('=') || sc.contains("Max-Age=0");
            self.cookie = if cleared { None } else { Some(pair) };
        }
        let text = resp.0.into_body().into_string().await.unwrap();
        let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
        Answer {
            status,
            body,
            set_cookie,
        }
    }

    /// What the store keeps of this browser's code flow (the digest of its cookie).
    pub fn flow_digest(&self) -> String {
        let flow = self.flow.as_deref().expect("a code flow");
        let id = flow.strip_prefix("tp_code=").unwrap_or(flow);
        telepathy_server::accounts::sessions::digest(id)
    }

    /// The latest code the demo SMS outbox holds for `phone`.
    pub async fn outbox_code(&mut self, phone: &str) -> String {
        let a = self.read_outbox(phone, Some(OUTBOX_TOKEN)).await;
        a.assert_ok()["code"].as_str().unwrap().to_owned()
    }

    /// The latest password-reset code the demo SMS provider "sent" to `phone`; the outbox
    /// never shows these, so tests read them from the provider itself.
    pub fn reset_code(&self, phone: &str) -> String {
        let demo = self.state.demo_sms.as_ref().expect("demo mode");
        demo.latest(phone, CodePurpose::Reset)
            .expect("a reset code")
            .code
    }

    /// Reads the demo SMS outbox through the in-process client, with `token` as bearer.
    pub async fn read_outbox(&mut self, phone: &str, token: Option<&str>) -> Answer {
        let mut req = self
            .client
            .get(format!("/api/dev/sms-outbox?phone={phone}"));
        if let Some(token) = token {
            req = req.header("authorization", format!("Bearer {token}"));
        }
        self.finish(req.send().await).await
    }

    /// Lets the per-phone SMS cooldown of the in-process client pass (engine windows run on
    /// real time).
    pub async fn pass_sms_cooldown(&self, phone: &str) {
        // The in-process client has no address.
        self.pass_sms_cooldown_from("unknown", phone).await;
    }

    /// Lets the SMS cooldown of `phone` for the client address `ip` pass.
    pub async fn pass_sms_cooldown_from(&self, ip: &str, phone: &str) {
        let net = telepathy_server::security::neighbourhood(ip);
        self.state
            .engine
            .clear(&format!("sms:cool:{phone}:{net}"))
            .await
            .unwrap();
    }

    /// Verifies `phone` through the demo outbox.
    pub async fn verify_phone(&mut self, phone: &str) {
        self.post("/api/verify-mvp/send", json!({ "phone": phone }))
            .await
            .assert_ok();
        let code = self.outbox_code(phone).await;
        self.post(
            "/api/verify-mvp/check",
            json!({ "phone": phone, "code": code }),
        )
        .await
        .assert_ok();
    }

    /// Signs up and stays logged in.
    pub async fn sign_up(&mut self, username: &str, password: &str, phone: &str) {
        self.verify_phone(phone).await;
        let a = self
            .post("/api/register", register_body(username, password, phone))
            .await;
        a.assert_ok();
        assert!(self.cookie.is_some(), "registration logs in");
    }

    pub async fn login(&mut self, username: &str, password: &str) -> Answer {
        self.post(
            "/api/auth/login",
            json!({ "username": username, "password": password }),
        )
        .await
    }

    /// Logs in from the client address `ip` (the app must trust X-Forwarded-For).
    pub async fn login_from(&mut self, ip: &str, username: &str, password: &str) -> Answer {
        self.post_from(
            ip,
            "/api/auth/login",
            json!({ "username": username, "password": password }),
        )
        .await
    }

    /// Moves the test clock on by `by` while sockets are open, with the node's heartbeat
    /// keeping up: a node whose own last beat is `PRESENCE_TTL` old by the clock is given
    /// up for dead and closes its sockets, as one that stalled would. So the clock moves
    /// less than that at a time, each move after a beat at the time it moves from.
    pub async fn advance_beating(&self, by: Duration) {
        let step = PRESENCE_TTL - Duration::from_secs(1);
        let mut left = by;
        while !left.is_zero() {
            self.next_beat().await;
            let now = left.min(step);
            self.clock.advance(now);
            left -= now;
        }
    }

    /// Waits for the node's next heartbeat to be done.
    async fn next_beat(&self) {
        // A beat that read the clock before this call is done within this.
        tokio::time::sleep(Duration::from_millis(50)).await;
        let series = r#"telepathy_engine_latency_seconds_count{op="heartbeat"}"#;
        let before = self.metric(series);
        let beat = async {
            while self.metric(series) <= before {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        };
        tokio::time::timeout(Duration::from_secs(10), beat)
            .await
            .expect("the node beats every few seconds");
    }

    /// The value of one series of the node's metrics (`name{labels}`), 0 when it is not
    /// there.
    pub fn metric(&self, series: &str) -> f64 {
        let text = self.state.metrics.encode();
        text.lines()
            .find_map(|line| line.strip_prefix(series)?.strip_prefix(' '))
            .map_or(0.0, |v| v.parse().unwrap())
    }

    pub async fn logged_in(&mut self) -> bool {
        self.get("/api/auth/check").await.assert_ok()["loggedIn"]
            .as_bool()
            .unwrap()
    }
}

pub fn register_body(username: &str, password: &str, phone: &str) -> Value {
    json!({
        "username": username,
        "password": password,
        "phone": phone,
        "gender": "여성",
        "birthdate": "2000-01-01",
        "service": true,
        "privacy": true,
        "youth": true,
    })
}

/// The id of the account `username`.
pub async fn user_id(app: &TestApp, username: &str) -> i64 {
    app.state
        .store
        .user_by_username(username)
        .await
        .unwrap()
        .unwrap()
        .id
}

/// Sanctions `user_id` now, as the console does but without an operator (`warn`, `ban`,
/// or `suspend` until then); answers the sanction's id.
pub async fn sanction(
    app: &TestApp,
    user_id: i64,
    kind: &str,
    reason: &str,
    until: Option<i64>,
) -> i64 {
    let now = app.state.clock.now_ms();
    app.state
        .safety
        .sanction(
            &NewSanction {
                user_id,
                kind,
                reason,
                until,
                operator_id: None,
                report_id: None,
                now,
            },
            None,
            &AuditEntry {
                operator_id: None,
                action: "test",
                user_id: Some(user_id),
                report_id: None,
                detail: "",
                ip: "",
                now,
            },
        )
        .await
        .unwrap()
}
