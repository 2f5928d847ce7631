//! The opening bell: consent, subscriptions, and the evening's push as a push service
//! receives it (a local stand-in that checks the VAPID token and decrypts RFC 8291).

use std::time::Duration;

use chrono::NaiveDate;
use poem::http::StatusCode;
use serde_json::{json, Value};
use telepathy_providers::push_stand_in::{PushServiceStandIn, StandInDevice};
use telepathy_server::bell::{ring, Rung};

use crate::helpers::{register_body, sanction, user_id, TestApp};

crate::both!(
    the_bell_needs_the_consent_and_a_real_push_service,
    withdrawing_the_consent_turns_off_every_device,
    the_consent_can_come_with_the_sign_up,
    the_evening_push_is_encrypted_signed_and_short_lived,
    gone_devices_are_removed_and_failures_counted,
    an_evening_rings_once_whoever_asks,
    withdrawal_and_ban_remove_the_devices,
    a_suspended_user_is_told_again_when_the_suspension_ends,
    the_bell_rings_by_itself_at_eight,
);

/// An app that may push to a fresh stand-in.
pub(crate) async fn with_push_service(app: TestApp) -> (TestApp, PushServiceStandIn) {
    let service = PushServiceStandIn::start().await;
    let app = app
        .with_vars(&[("TELEPATHY_PUSH_SERVICES", &service.origin)])
        .await;
    (app, service)
}

fn subscription(device: &StandInDevice) -> Value {
    json!({
        "endpoint": device.endpoint,
        "expirationTime": null,
        "keys": { "p256dh": device.p256dh, "auth": device.auth },
    })
}

async fn signed_up(app: &mut TestApp, name: &str, phone: &str) {
    app.cookie = None;
    app.sign_up(name, "abcdefg1", phone).await;
}

pub(crate) async fn bell_on(app: &mut TestApp, device: &StandInDevice) {
    app.post("/api/push/consent", json!({ "agree": true }))
        .await
        .assert_ok();
    app.post("/api/push/subscribe", subscription(device))
        .await
        .assert_ok();
}

fn evening() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, 22).unwrap()
}

async fn the_bell_needs_the_consent_and_a_real_push_service(app: TestApp) {
    let (mut app, service) = with_push_service(app).await;
    let device = service.subscribe();
    app.post("/api/push/subscribe", subscription(&device))
        .await
        .assert_error(401, "UNAUTHORIZED");
    signed_up(&mut app, "bellone", "01055550001").await;
    let state = app.get("/api/push").await;
    assert_eq!(state.assert_ok()["consent"], json!(false));
    assert_eq!(state.body["devices"], json!(0));
    // What the next opening's bell will say, with the words of its first round.
    let now = chrono::DateTime::from_timestamp_millis(app.state.clock.now_ms()).unwrap();
    let today = telepathy_domain::time::seoul_date(now);
    let next = [today, today.succ_opt().unwrap()]
        .into_iter()
        .filter_map(|d| telepathy_domain::bell::opening_at(app.state.realtime.service_window(), d))
        .find(|at| *at > now)
        .unwrap();
    let words: Vec<String> = app
        .state
        .realtime
        .words_of(telepathy_domain::round::RoundAt::of(next).number)
        .into_iter()
        .map(|w| w.word)
        .collect();
    assert_eq!(words.len(), 4);
    assert_eq!(
        state.body["preview"],
        json!({
            "title": "텔레파시가 문을 열었어요",
            "body": format!("첫 라운드 단어: {}\n지금 들어오면 같은 단어를 고른 사람과 이야기할 수 있어요.", words.join(", ")),
        })
    );

    app.post("/api/push/subscribe", subscription(&device))
        .await
        .assert_error(403, "PUSH_CONSENT_REQUIRED");
    let given = app
        .post("/api/push/consent", json!({ "agree": true }))
        .await;
    assert_eq!(given.assert_ok()["consent"], json!(true));
    assert_eq!(given.message(), "알림 수신에 동의했어요.");

    // Only the push services configured, by a name, over HTTPS unless named by origin;
    // and only keys a browser could have made.
    let mut bad = subscription(&device);
    for endpoint in [
        "http://127.0.0.1:9/push/1".to_owned(),
        "https://10.0.0.1/push/1".to_owned(),
        "https://intranet.local/push".to_owned(),
        format!("{}/push/1", service.origin.replace("http://", "https://")),
        format!("{}/{}", service.origin, "x".repeat(1_000)),
        String::new(),
    ] {
        bad["endpoint"] = json!(endpoint);
        app.post("/api/push/subscribe", bad.clone())
            .await
            .assert_error(400, "PUSH_SUBSCRIPTION_INVALID");
    }
    let mut bad = subscription(&device);
    bad["keys"]["auth"] = json!("c2hvcnQ");
    app.post("/api/push/subscribe", bad.clone())
        .await
        .assert_error(400, "PUSH_SUBSCRIPTION_INVALID");
    bad["keys"] = json!({ "p256dh": "BAAA", "auth": device.auth });
    app.post("/api/push/subscribe", bad)
        .await
        .assert_error(400, "PUSH_SUBSCRIPTION_INVALID");
    app.post(
        "/api/push/subscribe",
        json!({ "endpoint": device.endpoint }),
    )
    .await
    .assert_error(400, "PUSH_SUBSCRIPTION_INVALID");

    let on = app.post("/api/push/subscribe", subscription(&device)).await;
    on.assert_ok();
    assert!(on.message().contains("8시"));
    // The same browser again is the same device.
    app.post("/api/push/subscribe", subscription(&device))
        .await
        .assert_ok();
    let other = service.subscribe();
    app.post("/api/push/subscribe", subscription(&other))
        .await
        .assert_ok();
    assert_eq!(app.get("/api/push").await.body["devices"], json!(2));

    app.post(
        "/api/push/unsubscribe",
        json!({ "endpoint": other.endpoint }),
    )
    .await
    .assert_ok();
    assert_eq!(app.get("/api/push").await.body["devices"], json!(1));

    // Another account cannot turn this one's device off; subscribing the same browser
    // moves it to the account that uses it now.
    signed_up(&mut app, "belltwo", "01055550002").await;
    app.post(
        "/api/push/unsubscribe",
        json!({ "endpoint": device.endpoint }),
    )
    .await
    .assert_ok();
    let first = user_id(&app, "bellone").await;
    assert_eq!(app.state.store.push_devices(first).await.unwrap(), 1);
    bell_on(&mut app, &device).await;
    assert_eq!(app.state.store.push_devices(first).await.unwrap(), 0);
    assert_eq!(app.get("/api/push").await.body["devices"], json!(1));
}

async fn withdrawing_the_consent_turns_off_every_device(app: TestApp) {
    let (mut app, service) = with_push_service(app).await;
    signed_up(&mut app, "bellthree", "01055550003").await;
    for _ in 0..3 {
        bell_on(&mut app, &service.subscribe()).await;
    }
    assert_eq!(app.get("/api/push").await.body["devices"], json!(3));
    let withdrawn = app
        .post("/api/push/consent", json!({ "agree": false }))
        .await;
    assert_eq!(withdrawn.assert_ok()["consent"], json!(false));
    assert_eq!(withdrawn.body["devices"], json!(0));
    assert!(withdrawn.message().contains("철회"));
    assert!(matches!(
        ring(&app.state, evening()).await.unwrap(),
        Rung::Sent(c) if c.sent == 0
    ));
    assert!(service.received().is_empty());
}

async fn the_consent_can_come_with_the_sign_up(mut app: TestApp) {
    // Only demo mode's own clock can be moved; a test's clock is the test's.
    app.post("/api/dev/clock", json!({ "seoulTime": "19:59:55" }))
        .await
        .assert_error(404, "NOT_FOUND");
    app.verify_phone("01055550004").await;
    let mut body = register_body("bellfour", "abcdefg1", "01055550004");
    body["alarm"] = json!(true);
    app.post("/api/register", body).await.assert_ok();
    assert_eq!(app.get("/api/push").await.body["consent"], json!(true));

    // Without it (the default), none.
    signed_up(&mut app, "bellfive", "01055550005").await;
    assert_eq!(app.get("/api/push").await.body["consent"], json!(false));
}

async fn the_evening_push_is_encrypted_signed_and_short_lived(app: TestApp) {
    let (mut app, service) = with_push_service(app).await;
    signed_up(&mut app, "bellsix", "01055550006").await;
    let device = service.subscribe();
    bell_on(&mut app, &device).await;
    let public_key = app.get("/api/app-config").await.body["pushPublicKey"].clone();

    let rung = ring(&app.state, evening()).await.unwrap();
    assert_eq!(service.refused(), Vec::<String>::new());
    assert!(matches!(rung, Rung::Sent(c) if c.sent == 1 && c.gone == 0 && c.failed == 0));
    let received = service.received();
    assert_eq!(received.len(), 1);
    let push = &received[0];
    assert_eq!(push.device, device.id);
    let payload: Value = serde_json::from_slice(&push.payload).unwrap();
    assert_eq!(payload["title"], json!("텔레파시가 문을 열었어요"));
    assert_eq!(payload["url"], json!("/main"));
    assert_eq!(payload["tag"], json!("opening"));
    // The evening's first round, the one that starts at 20:00 Seoul, by its words.
    let body = payload["body"].as_str().unwrap();
    let eight = evening()
        .and_hms_opt(20, 0, 0)
        .and_then(|t| t.and_local_timezone(chrono_tz::Asia::Seoul).earliest())
        .unwrap();
    let first = telepathy_domain::words::topic_for_round(
        telepathy_domain::round::RoundAt::of(eight.with_timezone(&chrono::Utc)).number,
    );
    let named = format!("첫 라운드 단어: {}\n", first.words.join(", "));
    assert!(body.starts_with(&named), "{body}");
    assert!(body.contains("같은 단어"), "{body}");
    // An hour: a phone that was off is not told at midnight.
    assert_eq!(push.ttl, 3600);
    assert_eq!(push.topic.as_deref(), Some("opening"));
    assert_eq!(push.urgency.as_deref(), Some("high"));
    // Signed with the key browsers subscribe with.
    assert_eq!(json!(push.vapid_key), public_key);
    assert!(push.subject.starts_with("mailto:"));

    let opening = app
        .state
        .store
        .opening("2026-11-22")
        .await
        .unwrap()
        .unwrap();
    assert!(opening.finished_at.is_some());
    assert_eq!((opening.sent, opening.gone, opening.failed), (1, 0, 0));

    // The console's dashboard tells the evening's figures.
    crate::admin::operator(&mut app, "bellop").await;
    let dashboard = app.get("/api/admin/dashboard").await;
    assert_eq!(dashboard.assert_ok()["bellDevices"], json!(1));
    let last = &dashboard.body["lastBell"];
    assert_eq!(
        (
            &last["evening"],
            &last["sent"],
            &last["gone"],
            &last["failed"]
        ),
        (&json!("2026-11-22"), &json!(1), &json!(0), &json!(0))
    );
    assert!(last["finishedAt"].is_string() && last["startedAt"].is_string());
}

async fn gone_devices_are_removed_and_failures_counted(app: TestApp) {
    let (mut app, service) = with_push_service(app).await;
    signed_up(&mut app, "bellseven", "01055550007").await;
    let good = service.subscribe();
    let unsubscribed = service.subscribe_answering(StatusCode::GONE);
    let unknown = service.subscribe_answering(StatusCode::NOT_FOUND);
    let failing = service.subscribe_answering(StatusCode::INTERNAL_SERVER_ERROR);
    let busy = service.subscribe_refusing(StatusCode::TOO_MANY_REQUESTS, 1);
    let hiccup = service.subscribe_refusing(StatusCode::SERVICE_UNAVAILABLE, 1);
    let down = service.subscribe_refusing(StatusCode::BAD_GATEWAY, 2);
    for device in [
        &good,
        &unsubscribed,
        &unknown,
        &failing,
        &busy,
        &hiccup,
        &down,
    ] {
        bell_on(&mut app, device).await;
    }
    assert_eq!(app.get("/api/push").await.body["devices"], json!(7));

    let rung = ring(&app.state, evening()).await.unwrap();
    // Refused for a moment (429, 503): taken the second time; refused twice, or failing
    // throughout: counted.
    assert!(
        matches!(rung, Rung::Sent(c) if c.sent == 3 && c.gone == 2 && c.failed == 2),
        "{rung:?}"
    );
    let told: Vec<u64> = service.received().iter().map(|p| p.device).collect();
    assert_eq!(told.len(), 3);
    for device in [&good, &busy, &hiccup] {
        assert!(told.contains(&device.id));
    }
    // 404 and 410 are forgotten; a failing service keeps its device for tomorrow.
    assert_eq!(app.get("/api/push").await.body["devices"], json!(5));
    let counted = |op: &str| app.metric(&format!("telepathy_opening_pushes_total{{op=\"{op}\"}}"));
    assert_eq!(
        (counted("sent"), counted("gone"), counted("failed")),
        (3.0, 2.0, 2.0)
    );
    // The 500, 429, 503 and 502 devices were each tried once more.
    assert_eq!(counted("deferred"), 4.0);
    let opening = app
        .state
        .store
        .opening("2026-11-22")
        .await
        .unwrap()
        .unwrap();
    assert_eq!((opening.sent, opening.gone, opening.failed), (3, 2, 2));
}

async fn an_evening_rings_once_whoever_asks(app: TestApp) {
    let (mut app, service) = with_push_service(app).await;
    signed_up(&mut app, "belleight", "01055550008").await;
    let devices: Vec<StandInDevice> = (0..5).map(|_| service.subscribe()).collect();
    for device in &devices {
        bell_on(&mut app, device).await;
    }
    // Eight at once on one evening (nodes waking together): one sends.
    let rings = futures_util::future::join_all((0..8).map(|_| ring(&app.state, evening()))).await;
    let sent: Vec<_> = rings
        .into_iter()
        .map(Result::unwrap)
        .filter(|r| matches!(r, Rung::Sent(_)))
        .collect();
    assert_eq!(sent.len(), 1);
    assert_eq!(service.received().len(), 5);
    // Asked again later that evening: nothing more.
    assert_eq!(ring(&app.state, evening()).await.unwrap(), Rung::NotMine);
    assert_eq!(service.received().len(), 5);

    // A sender that died mid-run (its lease ran out, some devices claimed): the evening
    // is taken over and only the devices not yet claimed are told.
    let next = evening().succ_opt().unwrap();
    let key = next.to_string();
    let now = app.state.clock.now_ms();
    let store = &app.state.store;
    assert!(store
        .claim_opening(&key, "dead-node", now, now + 1_000)
        .await
        .unwrap()
        .is_some());
    let claimed = store
        .claim_push_batch(&key, "dead-node", 2, now)
        .await
        .unwrap();
    assert_eq!(claimed.len(), 2);
    service.clear();
    assert_eq!(ring(&app.state, next).await.unwrap(), Rung::NotMine);
    app.clock.advance(Duration::from_secs(2));
    assert!(matches!(
        ring(&app.state, next).await.unwrap(),
        Rung::Sent(c) if c.sent == 3
    ));
    let told: Vec<u64> = service.received().iter().map(|p| p.device).collect();
    assert_eq!(told.len(), 3);
    for device in claimed {
        let id: u64 = device.endpoint.rsplit('/').next().unwrap().parse().unwrap();
        assert!(!told.contains(&id), "device {id} was told twice");
    }
}

async fn withdrawal_and_ban_remove_the_devices(app: TestApp) {
    let (mut app, service) = with_push_service(app).await;
    signed_up(&mut app, "bellnine", "01055550009").await;
    bell_on(&mut app, &service.subscribe()).await;
    let leaving = user_id(&app, "bellnine").await;
    app.post("/api/auth/withdraw", json!({})).await.assert_ok();
    assert_eq!(app.state.store.push_devices(leaving).await.unwrap(), 0);

    signed_up(&mut app, "bellten", "01055550010").await;
    bell_on(&mut app, &service.subscribe()).await;
    let banned = user_id(&app, "bellten").await;
    sanction(&app, banned, "ban", "반복된 욕설", None).await;
    assert_eq!(app.state.store.push_devices(banned).await.unwrap(), 0);
    ring(&app.state, evening()).await.unwrap();
    assert!(service.received().is_empty());
}

async fn a_suspended_user_is_told_again_when_the_suspension_ends(app: TestApp) {
    let (mut app, service) = with_push_service(app).await;
    signed_up(&mut app, "belltwelve", "01055550012").await;
    bell_on(&mut app, &service.subscribe()).await;
    let user = user_id(&app, "belltwelve").await;
    let day = 24 * 3600 * 1000;
    let until = app.state.clock.now_ms() + day;
    sanction(&app, user, "suspend", "반복된 욕설", Some(until)).await;
    // Not told while suspended; the device is kept.
    ring(&app.state, evening()).await.unwrap();
    assert!(service.received().is_empty());
    assert_eq!(app.state.store.push_devices(user).await.unwrap(), 1);
    // Two evenings on, the suspension has run out.
    app.clock.advance(Duration::from_secs(2 * 24 * 3600));
    let later = evening().succ_opt().unwrap().succ_opt().unwrap();
    ring(&app.state, later).await.unwrap();
    assert_eq!(service.received().len(), 1);
}

async fn the_bell_rings_by_itself_at_eight(app: TestApp) {
    let (mut app, service) = with_push_service(app).await;
    signed_up(&mut app, "belleleven", "01055550011").await;
    bell_on(&mut app, &service.subscribe()).await;
    // The clock starts at 21:00:10 in Seoul (`CLOCK_START`), past the evening's bell; at
    // 19:59:58 the next day nothing has rung, and soon after 20:00 it has.
    app.clock
        .advance(Duration::from_secs(22 * 3600 + 59 * 60 + 48));
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    assert!(service.received().is_empty());
    app.clock.advance(Duration::from_secs(3));
    // The run is recorded done just after the push service has the push.
    let finished = || async {
        let opening = app.state.store.opening("2026-11-23").await.unwrap();
        opening.is_some_and(|o| o.finished_at.is_some())
    };
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while !finished().await && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(finished().await, "the evening's run finished");
    assert_eq!(service.received().len(), 1);
}

/// The figures of one evening's run (loadtest/RESULTS.md): `OPENING_DEVICES` devices
/// (default 10,000) of 10 per user, 1 % gone and 0.5 % failing, against the local push
/// service answering after `OPENING_DELAY_MS` (default 0), on PostgreSQL and Redis.
/// `cargo test --release -p telepathy-server --test api opening_run_figures -- --ignored --nocapture`
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement: run by hand, see loadtest/RESULTS.md"]
async fn opening_run_figures() {
    use telepathy_store::{NewPushSubscription, SeedUser};
    let env = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let devices = env("OPENING_DEVICES", 10_000);
    let delay = Duration::from_millis(env("OPENING_DELAY_MS", 0));
    let service = PushServiceStandIn::start_with_delay(delay).await;
    let app = crate::helpers::spawn_with(
        telepathy_store::Backend::Postgres,
        &[("TELEPATHY_PUSH_SERVICES", &service.origin)],
    )
    .await;
    let store = &app.state.store;
    let now = app.state.clock.now_ms();
    let names: Vec<(String, String, String)> = (0..devices.div_ceil(10))
        .map(|i| {
            (
                format!("bell{i:06}"),
                format!("0109{i:07}"),
                format!("hash{i}"),
            )
        })
        .collect();
    let seeds: Vec<SeedUser> = names
        .iter()
        .map(|(u, p, h)| SeedUser {
            username: u,
            phone: p,
            nickname: u,
            token_hash: h,
        })
        .collect();
    let users = store
        .seed_load_users(&seeds, now, now + 3_600_000)
        .await
        .unwrap()
        .users;
    for (i, user) in users.iter().enumerate() {
        let id = user.as_ref().unwrap().id;
        store
            .set_alarm_consent(id, true, "2026-12-01", now)
            .await
            .unwrap();
        for j in 0..10 {
            let n = i as u64 * 10 + j;
            if n >= devices {
                break;
            }
            let device = match n % 200 {
                0 | 1 => service.subscribe_answering(StatusCode::GONE),
                2 => service.subscribe_answering(StatusCode::INTERNAL_SERVER_ERROR),
                _ => service.subscribe(),
            };
            store
                .save_push_subscription(
                    &NewPushSubscription {
                        user_id: id,
                        endpoint: &device.endpoint,
                        p256dh: &device.p256dh,
                        auth: &device.auth,
                        now,
                    },
                    10,
                )
                .await
                .unwrap();
        }
    }
    let cpu = || {
        let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
        let fields: Vec<&str> = stat
            .rsplit(')')
            .next()
            .unwrap()
            .split_whitespace()
            .collect();
        let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
        ticks / 100.0
    };
    let (cpu_before, started) = (cpu(), std::time::Instant::now());
    let rung = ring(&app.state, evening()).await.unwrap();
    let (seconds, cpu_s) = (started.elapsed().as_secs_f64(), cpu() - cpu_before);
    let Rung::Sent(counts) = rung else {
        panic!("{rung:?}")
    };
    println!(
        "opening run: {devices} devices, {seconds:.2} s, {:.0} pushes/s; sent {}, gone {} \
         (removed), failed {}; process CPU {cpu_s:.2} s ({:.0} µs per device, sender and \
         push service together); push service delay {} ms",
        devices as f64 / seconds,
        counts.sent,
        counts.gone,
        counts.failed,
        cpu_s * 1e6 / devices as f64,
        delay.as_millis(),
    );
    assert_eq!(
        counts.sent + counts.gone + counts.failed,
        i64::try_from(devices).unwrap()
    );
    assert_eq!(service.received().len() as i64, counts.sent);
    assert!(service.refused().is_empty());
}
