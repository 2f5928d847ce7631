use serde_json::json;
use telepathy_store::Backend;

use telepathy_domain::limits::OUTBOX_READS_PER_PHONE;

use crate::helpers::{spawn_with, TestApp, OUTBOX_TOKEN};

crate::both!(
    foreign_origins_cannot_change_state,
    unreadable_requests_get_the_error_shape,
    health_and_readiness,
    web_app_routes_fall_back_to_index,
    app_config_tells_demo,
    the_outbox_never_serves_reset_codes,
    the_outbox_answers_this_machine_or_the_token,
    outbox_reads_are_limited,
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
    assert_eq!(body["message"], json!("요청 형식이 올바르지 않습니다."));
    app.get("/api/no-such-thing")
        .await
        .assert_error(404, "NOT_FOUND");
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
    }
}

async fn app_config_tells_demo(mut app: TestApp) {
    assert_eq!(
        app.get("/api/app-config").await.assert_ok()["demo"],
        json!(true)
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
    let mut app = spawn_with(
        Backend::Sqlite,
        &[
            ("TELEPATHY_DEMO", "false"),
            ("TELEPATHY_SOLAPI_API_KEY", "key"),
            ("TELEPATHY_SOLAPI_API_SECRET", "secret"),
            ("TELEPATHY_SOLAPI_SENDER", "0212345678"),
            ("TELEPATHY_SOLAPI_BASE_URL", "http://127.0.0.1:9"),
            ("TELEPATHY_PORTONE_API_SECRET", "secret"),
            ("TELEPATHY_PORTONE_STORE_ID", "store-x"),
            ("TELEPATHY_PORTONE_IDENTITY_CHANNEL_KEY", "channel-x"),
        ],
    )
    .await;
    app.get("/api/dev/sms-outbox?phone=01011112222")
        .await
        .assert_error(404, "NOT_FOUND");
    assert_eq!(app.get("/api/app-config").await.body["demo"], json!(false));
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
