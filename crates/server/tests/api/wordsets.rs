//! The paid custom word set: real name, bank transfer, deposit notification, demo and
//! operator confirmation, the words with their sealed refund account, review, refund and
//! the rounds that show approved sets.

use std::time::Duration;

use clap::Parser;
use hmac::{Hmac, Mac};
use serde_json::{json, Value};
use sha2::Sha256;
use telepathy_domain::round::{RoundAt, ROUND_MS};
use telepathy_server::cli::wordset::execute;
use telepathy_server::cli::{Cli, Command};
use telepathy_server::clock::Clock;
use telepathy_server::state::{AppState, Overrides};

use crate::helpers::TestApp;
use crate::realtime::user;

crate::both!(
    another_users_id_is_refused_on_every_call,
    the_real_name_is_checked_and_saved,
    a_transfer_needs_a_real_name_and_the_price_and_stays_one,
    demo_mode_confirms_a_transfer_by_itself,
    a_bad_signature_changes_nothing,
    a_mismatching_deposit_leaves_the_transfer_pending,
    a_late_deposit_still_pays,
    an_operator_confirms_a_late_transfer_on_the_command_line,
    the_word_set_needs_a_paid_unused_transfer_and_valid_input,
    the_refund_account_is_sealed_at_rest,
    the_console_reviews_and_records_the_refund,
    approved_sets_join_the_rotation_on_every_node_and_match,
);

const SECRET: &str = "deposit-secret";

/// An app whose transfers only a deposit or an operator confirms.
async fn manual(app: TestApp) -> TestApp {
    app.with_vars(&[
        ("TELEPATHY_DEMO_TRANSFER_SECONDS", "0"),
        ("TELEPATHY_DEPOSIT_WEBHOOK_SECRET", SECRET),
    ])
    .await
}

/// Signs up `name` with a nickname and the real name 김민준; answers the user's id.
async fn member(app: &mut TestApp, name: &str, phone: &str) -> i64 {
    app.cookie = None;
    app.sign_up(name, "abcdefg1", phone).await;
    let id = app.get("/api/nickname/profile").await.assert_ok()["id"]
        .as_i64()
        .unwrap();
    app.post(
        "/api/user/update-realname",
        json!({ "user_id": id, "real_name": "김민준" }),
    )
    .await
    .assert_ok();
    id
}

async fn open_transfer(app: &mut TestApp) -> Value {
    let a = app
        .post(
            "/api/sp_payments/create",
            json!({ "name": "김민준", "amount": 1000 }),
        )
        .await;
    a.assert_ok().clone()
}

async fn status(app: &mut TestApp, id: i64) -> String {
    app.get(&format!("/api/sp_payments/status/{id}"))
        .await
        .assert_ok()["status"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn sign(body: &str, secret: &str) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(body.as_bytes());
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

/// Posts a deposit notification as the bank would: no cookie, no Origin.
async fn deposit(
    app: &mut TestApp,
    body: Value,
    signature: Option<&str>,
) -> crate::helpers::Answer {
    let text = body.to_string();
    let signature = signature.map_or_else(|| sign(&text, SECRET), str::to_owned);
    let cookie = app.cookie.take();
    let resp = app
        .client
        .post("/api/sp_payments/deposit-webhook")
        .header("content-type", "application/json")
        .header("x-signature", signature)
        .body(text)
        .send()
        .await;
    let status = resp.0.status();
    let text = resp.0.into_body().into_string().await.unwrap();
    app.cookie = cookie;
    crate::helpers::Answer {
        status,
        body: serde_json::from_str(&text).unwrap_or(Value::String(text)),
        set_cookie: None,
    }
}

const WORDS: [&str; 4] = ["바다", "노을", "한강", "아이스크림"];

fn refund_body(words: &[&str]) -> Value {
    json!({
        "refund_bank": "카카오뱅크",
        "refund_account": "3333-01-2345678",
        "wordset": words,
    })
}

/// Runs `telepathy transfer|wordset <args>` on the app's store.
async fn cli(app: &TestApp, wordset: bool, args: &[&str]) -> anyhow::Result<String> {
    let group = if wordset { "wordset" } else { "transfer" };
    let command = match Cli::try_parse_from(["telepathy", group].iter().chain(args))?.into_command()
    {
        Command::Transfer(command) => command.into(),
        Command::Wordset(command) => command.try_into()?,
        _ => anyhow::bail!("not a {group} command: {args:?}"),
    };
    execute(
        &app.state.store,
        &app.state.config.data_key,
        &command,
        app.clock.now_ms(),
    )
    .await
}

/// A member whose transfer was paid by a deposit; answers (user id, transfer id).
async fn paid_member(app: &mut TestApp, name: &str, phone: &str) -> (i64, i64) {
    let id = member(app, name, phone).await;
    let t = open_transfer(app).await;
    let depositor = t["depositor"].as_str().unwrap().to_owned();
    deposit(
        app,
        json!({ "amount": 1000, "depositor": depositor, "depositedAt": "2026-11-22T21:01:00+09:00" }),
        None,
    )
    .await
    .assert_ok();
    let transfer = t["id"].as_i64().unwrap();
    assert_eq!(status(app, transfer).await, "paid");
    (id, transfer)
}

async fn another_users_id_is_refused_on_every_call(app: TestApp) {
    let mut app = manual(app).await;
    for path in [
        "/api/user/1",
        "/api/sp_payments/status/1",
        "/api/sp_payments/mine",
        "/api/wordsets/mine/1",
    ] {
        app.get(path).await.assert_error(401, "UNAUTHORIZED");
    }
    let (bob, bob_transfer) = paid_member(&mut app, "bobby", "01033334444").await;
    let alice = member(&mut app, "alice", "01011112222").await;
    app.get(&format!("/api/user/{alice}")).await.assert_ok();
    app.get(&format!("/api/user/{bob}"))
        .await
        .assert_error(403, "NOT_OWNER");
    app.get(&format!("/api/wordsets/mine/{bob}"))
        .await
        .assert_error(403, "NOT_OWNER");
    app.get(&format!("/api/sp_payments/status/{bob_transfer}"))
        .await
        .assert_error(403, "NOT_OWNER");
    app.post(
        "/api/user/update-realname",
        json!({ "user_id": bob, "real_name": "이서연" }),
    )
    .await
    .assert_error(403, "NOT_OWNER");
    app.post(
        "/api/sp_payments/create",
        json!({ "user_id": bob, "name": "김민준", "amount": 1000 }),
    )
    .await
    .assert_error(403, "NOT_OWNER");
    let mut body = refund_body(&WORDS);
    body["user_id"] = json!(bob);
    app.post("/api/sp_payments/update-refund", body)
        .await
        .assert_error(403, "NOT_OWNER");
    // Bob's paid transfer cannot buy Alice a set, and is still Bob's to use.
    let mut body = refund_body(&WORDS);
    body["payment_id"] = json!(bob_transfer);
    app.post("/api/sp_payments/update-refund", body)
        .await
        .assert_error(403, "NOT_OWNER");
    let bob_user = app.state.store.user_by_id(bob).await.unwrap().unwrap();
    assert_eq!(bob_user.real_name.as_deref(), Some("김민준"));
    app.get("/api/sp_payments/mine").await.assert_ok();
    let mine = app.get("/api/sp_payments/mine").await;
    assert_eq!(mine.body["payments"], json!([]), "only one's own");
    app.get("/api/sp_payments/status/999999")
        .await
        .assert_error(404, "NOT_FOUND");
}

async fn the_real_name_is_checked_and_saved(mut app: TestApp) {
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    let id = app.get("/api/nickname/profile").await.assert_ok()["id"]
        .as_i64()
        .unwrap();
    let record = app.get(&format!("/api/user/{id}")).await;
    assert_eq!(record.assert_ok()["real_name"], Value::Null);
    for (name, code) in [
        ("  ", "REAL_NAME_REQUIRED"),
        ("김민준1", "REAL_NAME_INVALID"),
    ] {
        app.post("/api/user/update-realname", json!({ "real_name": name }))
            .await
            .assert_error(400, code);
    }
    let long = "가".repeat(21);
    app.post("/api/user/update-realname", json!({ "real_name": long }))
        .await
        .assert_error(400, "REAL_NAME_INVALID");
    let saved = app
        .post(
            "/api/user/update-realname",
            json!({ "user_id": id, "real_name": "  남궁  민수 " }),
        )
        .await;
    assert_eq!(saved.assert_ok()["message"], json!("이름이 저장되었어요."));
    let record = app.get(&format!("/api/user/{id}")).await;
    assert_eq!(record.assert_ok()["real_name"], json!("남궁 민수"));
    // A foreign page cannot change it.
    app.post_with(
        "/api/user/update-realname",
        json!({ "real_name": "이서연" }),
        &[("origin", "https://evil.example")],
    )
    .await
    .assert_error(403, "FORBIDDEN_ORIGIN");
}

async fn a_transfer_needs_a_real_name_and_the_price_and_stays_one(mut app: TestApp) {
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    app.post(
        "/api/sp_payments/create",
        json!({ "name": "김민준", "amount": 1000 }),
    )
    .await
    .assert_error(400, "REAL_NAME_NEEDED");
    app.post(
        "/api/user/update-realname",
        json!({ "real_name": "김민준" }),
    )
    .await
    .assert_ok();
    for amount in [0, 500, 2000] {
        app.post("/api/sp_payments/create", json!({ "amount": amount }))
            .await
            .assert_error(400, "PAYMENT_AMOUNT_INVALID");
    }
    let first = open_transfer(&mut app).await;
    let depositor = first["depositor"].as_str().unwrap();
    assert!(depositor.starts_with("김민준"), "{depositor}");
    assert_eq!(depositor.chars().count(), 7);
    assert!(depositor.chars().skip(3).all(|c| c.is_ascii_digit()));
    assert_eq!(first["amount"], json!(1000));
    assert_eq!(first["status"], json!("pending"));
    assert_eq!(first["checkSeconds"], json!(60));
    assert_eq!(first["destination"]["bank"], json!("데모은행"));
    assert!(first["expiresAt"].as_str().is_some());
    let again = open_transfer(&mut app).await;
    assert_eq!(again["id"], first["id"], "one open transfer per user");
    assert_eq!(again["depositor"], first["depositor"]);
    // After a day without its deposit it expires, and a new one opens.
    app.clock.advance(Duration::from_secs(24 * 60 * 60));
    let id = first["id"].as_i64().unwrap();
    assert_eq!(status(&mut app, id).await, "expired");
    let next = open_transfer(&mut app).await;
    assert_ne!(next["id"], first["id"]);
}

async fn demo_mode_confirms_a_transfer_by_itself(mut app: TestApp) {
    member(&mut app, "alice", "01011112222").await;
    let t = open_transfer(&mut app).await;
    let id = t["id"].as_i64().unwrap();
    assert_eq!(status(&mut app, id).await, "pending");
    app.clock.advance(Duration::from_secs(4));
    assert_eq!(status(&mut app, id).await, "pending");
    app.clock.advance(Duration::from_secs(2));
    assert_eq!(status(&mut app, id).await, "paid");
    let mine = app.get("/api/sp_payments/mine").await;
    let item = &mine.assert_ok()["payments"][0];
    assert_eq!(item["status"], json!("paid"));
    assert_eq!(item["used"], json!(false));
}

async fn a_bad_signature_changes_nothing(app: TestApp) {
    let mut app = manual(app).await;
    member(&mut app, "alice", "01011112222").await;
    let t = open_transfer(&mut app).await;
    let body = json!({ "amount": 1000, "depositor": t["depositor"], "depositedAt": "now" });
    for signature in [
        sign(&body.to_string(), "wrong-secret"),
        "sha256=00".to_owned(),
        String::new(),
        sign(&body.to_string(), SECRET).replace("sha256=", "sha1="),
    ] {
        deposit(&mut app, body.clone(), Some(&signature))
            .await
            .assert_error(401, "SIGNATURE_INVALID");
    }
    // A body changed after signing.
    let signed = sign(&body.to_string(), SECRET);
    let mut forged = body.clone();
    forged["amount"] = json!(1000);
    forged["depositor"] = json!(format!("{} ", t["depositor"].as_str().unwrap()));
    deposit(&mut app, forged, Some(&signed))
        .await
        .assert_error(401, "SIGNATURE_INVALID");
    assert_eq!(status(&mut app, t["id"].as_i64().unwrap()).await, "pending");
    assert!(app
        .state
        .store
        .unsettled_deposits(10)
        .await
        .unwrap()
        .is_empty());
    // Without a configured secret, nothing is accepted at all.
    let mut plain = app
        .with_vars(&[("TELEPATHY_DEMO_TRANSFER_SECONDS", "0")])
        .await;
    deposit(&mut plain, body, None)
        .await
        .assert_error(401, "SIGNATURE_INVALID");
}

async fn a_mismatching_deposit_leaves_the_transfer_pending(app: TestApp) {
    let mut app = manual(app).await;
    member(&mut app, "alice", "01011112222").await;
    let t = open_transfer(&mut app).await;
    let depositor = t["depositor"].as_str().unwrap().to_owned();
    let other = format!(
        "{}{}",
        &depositor[..depositor.len() - 1],
        if depositor.ends_with('0') { '1' } else { '0' }
    );
    for (amount, memo) in [
        (999, depositor.as_str()),
        (1000, other.as_str()),
        (10_000, depositor.as_str()),
    ] {
        let a = deposit(
            &mut app,
            json!({ "amount": amount, "depositor": memo, "depositedAt": "2026-11-22T21:01:00+09:00" }),
            None,
        )
        .await;
        assert_eq!(a.assert_ok()["outcome"], json!("unmatched"));
    }
    assert_eq!(status(&mut app, t["id"].as_i64().unwrap()).await, "pending");
    let kept = app.state.store.unsettled_deposits(10).await.unwrap();
    assert_eq!(kept.len(), 3, "kept for an operator");
    // An unreadable body, signed, is refused and stores nothing.
    let text = "{\"amount\": \"a lot\"}";
    let resp = app
        .client
        .post("/api/sp_payments/deposit-webhook")
        .header("content-type", "application/json")
        .header("x-signature", sign(text, SECRET))
        .body(text)
        .send()
        .await;
    assert_eq!(resp.0.status().as_u16(), 400);
    assert_eq!(
        app.state.store.unsettled_deposits(10).await.unwrap().len(),
        3
    );
}

async fn a_late_deposit_still_pays(app: TestApp) {
    let mut app = manual(app).await;
    member(&mut app, "alice", "01011112222").await;
    let t = open_transfer(&mut app).await;
    let id = t["id"].as_i64().unwrap();
    // The page stops checking after 60 s; the transfer stays open.
    app.clock.advance(Duration::from_secs(10 * 60));
    assert_eq!(status(&mut app, id).await, "pending");
    // The bank may space or lowercase the memo.
    let memo = t["depositor"].as_str().unwrap().to_owned();
    let spaced = format!(" {} {} ", &memo[..9], &memo[9..]);
    let body = json!({
        "amount": 1000,
        "depositor": spaced,
        "depositedAt": "2026-11-22T21:10:00+09:00",
        "transactionId": "tx-1",
    });
    let a = deposit(&mut app, body.clone(), None).await;
    assert_eq!(a.assert_ok()["outcome"], json!("matched"));
    assert_eq!(status(&mut app, id).await, "paid");
    let again = deposit(&mut app, body, None).await;
    assert_eq!(again.assert_ok()["outcome"], json!("duplicate"));
    let mine = app.get("/api/sp_payments/mine").await;
    assert_eq!(mine.assert_ok()["payments"][0]["status"], json!("paid"));
    assert!(app
        .state
        .store
        .unsettled_deposits(10)
        .await
        .unwrap()
        .is_empty());
}

async fn an_operator_confirms_a_late_transfer_on_the_command_line(app: TestApp) {
    let mut app = manual(app).await;
    member(&mut app, "alice", "01011112222").await;
    let t = open_transfer(&mut app).await;
    let id = t["id"].as_i64().unwrap();
    // Past its day: a deposit no longer pays it by itself…
    app.clock.advance(Duration::from_secs(25 * 60 * 60));
    assert_eq!(status(&mut app, id).await, "expired");
    let a = deposit(
        &mut app,
        json!({ "amount": 1000, "depositor": t["depositor"], "depositedAt": "late" }),
        None,
    )
    .await;
    assert_eq!(a.assert_ok()["outcome"], json!("unmatched"));
    // …but an operator who sees the money confirms it.
    let listed = cli(&app, false, &["list"]).await.unwrap();
    assert!(
        listed.contains(t["depositor"].as_str().unwrap()),
        "{listed}"
    );
    let out = cli(&app, false, &["confirm", &id.to_string()])
        .await
        .unwrap();
    assert!(out.contains("확인했어요"), "{out}");
    assert_eq!(status(&mut app, id).await, "paid");
    let err = cli(&app, false, &["confirm", &id.to_string()])
        .await
        .unwrap_err();
    assert_eq!(err.to_string(), "이미 입금이 확인된 결제예요.");
    let lines = app.state.store.audit_page(None, 100).await.unwrap();
    let confirm: Vec<_> = lines
        .iter()
        .filter(|l| l.action == "transfer.confirm")
        .collect();
    assert_eq!(confirm.len(), 1);
    assert_eq!(confirm[0].ip, "cli");
    assert!(confirm[0].operator.is_none());
    // A new transfer may be opened now.
    let next = open_transfer(&mut app).await;
    assert_ne!(next["id"], json!(id));
}

async fn the_word_set_needs_a_paid_unused_transfer_and_valid_input(app: TestApp) {
    let mut app = manual(app).await;
    let alice = member(&mut app, "alice", "01011112222").await;
    app.post("/api/sp_payments/update-refund", refund_body(&WORDS))
        .await
        .assert_error(409, "PAYMENT_NOT_PAID");
    let t = open_transfer(&mut app).await;
    let id = t["id"].as_i64().unwrap();
    let mut named = refund_body(&WORDS);
    named["payment_id"] = json!(id);
    app.post("/api/sp_payments/update-refund", named.clone())
        .await
        .assert_error(409, "PAYMENT_NOT_PAID");
    deposit(
        &mut app,
        json!({ "amount": 1000, "depositor": t["depositor"], "depositedAt": "now" }),
        None,
    )
    .await
    .assert_ok();
    let cases: &[(Value, &str)] = &[
        (
            refund_body(&["바다", "노을", "한강"]),
            "WORDSET_WORDS_REQUIRED",
        ),
        (
            refund_body(&["바다", "노을", "한강", ""]),
            "WORDSET_WORDS_REQUIRED",
        ),
        (
            refund_body(&["바다", "노을", "한강", "바다"]),
            "WORDSET_WORDS_DUPLICATE",
        ),
        (
            refund_body(&["바다", "노을", "한강", "sea"]),
            "WORDSET_WORD_INVALID",
        ),
        (
            refund_body(&["바다", "노을", "한강", "일곱글자의단어"]),
            "WORDSET_WORD_INVALID",
        ),
        (
            refund_body(&["바다", "노을", "한강", "시발"]),
            "CONTENT_NOT_ALLOWED",
        ),
        (
            json!({ "refund_bank": "국", "refund_account": "1234", "wordset": WORDS }),
            "REFUND_BANK_INVALID",
        ),
        (
            json!({ "refund_bank": "국민", "refund_account": "12a4", "wordset": WORDS }),
            "REFUND_ACCOUNT_INVALID",
        ),
        (
            json!({ "refund_bank": "국민", "refund_account": "123", "wordset": WORDS }),
            "REFUND_ACCOUNT_INVALID",
        ),
    ];
    for (body, code) in cases {
        app.post("/api/sp_payments/update-refund", body.clone())
            .await
            .assert_error(400, code);
    }
    let saved = app
        .post("/api/sp_payments/update-refund", named.clone())
        .await;
    let body = saved.assert_ok();
    assert_eq!(body["ok"], json!(true));
    assert_eq!(
        body["message"],
        json!("소중한 단어를 보내주셔서 고마워요! 검토를 거쳐 24시간 이내에 반영될 거예요.")
    );
    app.post("/api/sp_payments/update-refund", named)
        .await
        .assert_error(409, "PAYMENT_USED");
    app.post("/api/sp_payments/update-refund", refund_body(&WORDS))
        .await
        .assert_error(409, "PAYMENT_USED");
    let sets = app.get(&format!("/api/wordsets/mine/{alice}")).await;
    let sets = sets.assert_ok()["wordsets"].as_array().unwrap().clone();
    assert_eq!(sets.len(), 1);
    assert_eq!(sets[0]["words"], json!(WORDS));
    assert_eq!(sets[0]["status"], json!("pending"));
    let status = app.get(&format!("/api/sp_payments/status/{id}")).await;
    assert_eq!(status.assert_ok()["used"], json!(true));

    // A second payment does not buy the same four words again, in any order; it stays
    // unspent for other words.
    let second = open_transfer(&mut app).await;
    deposit(
        &mut app,
        json!({ "amount": 1000, "depositor": second["depositor"], "depositedAt": "now" }),
        None,
    )
    .await
    .assert_ok();
    let mut reordered: Vec<&str> = WORDS.to_vec();
    reordered.reverse();
    let again = app
        .post("/api/sp_payments/update-refund", refund_body(&reordered))
        .await;
    again.assert_error(409, "WORDSET_REPEATED");
    assert_eq!(
        again.message(),
        "이미 신청한 단어 세트예요. 다른 단어로 만들어주세요."
    );
    let second = second["id"].as_i64().unwrap();
    let status = app.get(&format!("/api/sp_payments/status/{second}")).await;
    assert_eq!(status.assert_ok()["used"], json!(false));
    app.post(
        "/api/sp_payments/update-refund",
        refund_body(&["바다", "노을", "한강", "별빛"]),
    )
    .await
    .assert_ok();
}

async fn the_refund_account_is_sealed_at_rest(app: TestApp) {
    let mut app = manual(app).await;
    paid_member(&mut app, "alice", "01011112222").await;
    app.post("/api/sp_payments/update-refund", refund_body(&WORDS))
        .await
        .assert_ok();
    let sets = app
        .state
        .store
        .wordsets_by_status("pending", 10)
        .await
        .unwrap();
    let sealed = sets[0].wordset.refund_account.clone().unwrap();
    assert!(!sealed.contains("33330123"), "{sealed}");
    assert!(!sealed.contains("3333-01"), "{sealed}");
    assert_eq!(
        app.state.config.data_key.open(&sealed).unwrap(),
        "3333012345678"
    );
    assert_eq!(sets[0].wordset.refund_bank.as_deref(), Some("카카오뱅크"));
}

async fn the_console_reviews_and_records_the_refund(app: TestApp) {
    let mut app = manual(app).await;
    let (alice, _) = paid_member(&mut app, "alice", "01011112222").await;
    app.post("/api/sp_payments/update-refund", refund_body(&WORDS))
        .await
        .assert_ok();
    let (_, _) = paid_member(&mut app, "bobby", "01033334444").await;
    app.post(
        "/api/sp_payments/update-refund",
        refund_body(&["사과", "배", "포도", "귤"]),
    )
    .await
    .assert_ok();
    // A user's session is no operator's.
    for path in [
        "/api/admin/wordsets",
        "/api/admin/wordsets/1",
        "/api/admin/transfers",
    ] {
        app.get(path).await.assert_error(401, "OPERATOR_ONLY");
    }
    app.post("/api/admin/wordsets/1/approve", json!({}))
        .await
        .assert_error(401, "OPERATOR_ONLY");
    crate::admin::operator(&mut app, "mina").await;
    let list = app.get("/api/admin/wordsets").await;
    let list = list.assert_ok()["wordsets"].as_array().unwrap().clone();
    assert_eq!(list.len(), 2);
    assert_eq!(list[0]["words"], json!(WORDS), "oldest first");
    assert_eq!(list[0]["amount"], json!(1000));
    assert!(list[0].get("refund").is_none());
    let first = list[0]["id"].as_i64().unwrap();
    let second = list[1]["id"].as_i64().unwrap();
    let before = app.state.store.audit_page(None, 1000).await.unwrap().len();
    let detail = app.get(&format!("/api/admin/wordsets/{first}")).await;
    let refund = &detail.assert_ok()["refund"];
    assert_eq!(refund["account"], json!("3333012345678"));
    assert_eq!(refund["bank"], json!("카카오뱅크"));
    assert_eq!(refund["holder"], json!("김민준"));
    let lines = app.state.store.audit_page(None, 1000).await.unwrap();
    assert_eq!(lines.len(), before + 1);
    assert_eq!(lines[0].action, "wordset.view");
    // Refunds are recorded only for rejected sets.
    app.post(&format!("/api/admin/wordsets/{first}/refunded"), json!({}))
        .await
        .assert_error(409, "REFUND_SETTLED");
    app.post(
        &format!("/api/admin/wordsets/{first}/reject"),
        json!({ "reason": " " }),
    )
    .await
    .assert_error(400, "SANCTION_REASON_REQUIRED");
    app.post(
        &format!("/api/admin/wordsets/{first}/reject"),
        json!({ "reason": "이미 있는 단어와 겹쳐요" }),
    )
    .await
    .assert_ok();
    app.post(&format!("/api/admin/wordsets/{first}/approve"), json!({}))
        .await
        .assert_error(409, "WORDSET_REVIEWED");
    app.post(&format!("/api/admin/wordsets/{second}/approve"), json!({}))
        .await
        .assert_ok();
    let rejected = app.get("/api/admin/wordsets?status=rejected").await;
    assert_eq!(
        rejected.assert_ok()["wordsets"][0]["refundDue"],
        json!(true)
    );
    app.post(&format!("/api/admin/wordsets/{first}/refunded"), json!({}))
        .await
        .assert_ok();
    app.post(&format!("/api/admin/wordsets/{first}/refunded"), json!({}))
        .await
        .assert_error(409, "REFUND_SETTLED");
    // The account is gone once refunded (and once approved).
    let detail = app.get(&format!("/api/admin/wordsets/{first}")).await;
    assert!(detail.assert_ok().get("refund").is_none());
    let approved = app.get(&format!("/api/admin/wordsets/{second}")).await;
    assert!(approved.assert_ok().get("refund").is_none());
    let actions: Vec<String> = app
        .state
        .store
        .audit_page(None, 1000)
        .await
        .unwrap()
        .iter()
        .map(|l| l.action.clone())
        .collect();
    for action in ["wordset.reject", "wordset.approve", "wordset.refund"] {
        assert_eq!(
            actions.iter().filter(|a| *a == action).count(),
            1,
            "{action}"
        );
    }
    let refund_line = app
        .state
        .store
        .audit_page(None, 1000)
        .await
        .unwrap()
        .into_iter()
        .find(|l| l.action == "wordset.refund")
        .unwrap();
    assert!(
        refund_line.detail.contains("*********5678"),
        "{}",
        refund_line.detail
    );
    // The user reads the decision.
    app.cookie = None;
    app.login("alice", "abcdefg1").await.assert_ok();
    let mine = app.get(&format!("/api/wordsets/mine/{alice}")).await;
    let set = &mine.assert_ok()["wordsets"][0];
    assert_eq!(set["status"], json!("rejected"));
    assert_eq!(set["reason"], json!("이미 있는 단어와 겹쳐요"));
    assert!(set["refundedAt"].as_str().is_some());
    // The console's transfer queue.
    crate::admin::operator(&mut app, "jina").await;
    let queue = app.get("/api/admin/transfers").await;
    assert_eq!(queue.assert_ok()["transfers"], json!([]));
}

/// The start of the first round at or after `from` that shows a custom set (a multiple of
/// 5), in Unix milliseconds.
fn custom_round_start(from: i64) -> (i64, i64) {
    let round = (from..).find(|r| r % 5 == 0).unwrap();
    (
        round,
        telepathy_domain::round::ROUND_EPOCH_MS + round * ROUND_MS,
    )
}

async fn approved_sets_join_the_rotation_on_every_node_and_match(app: TestApp) {
    let mut app = manual(app).await;
    paid_member(&mut app, "carol", "01055556666").await;
    app.post("/api/sp_payments/update-refund", refund_body(&WORDS))
        .await
        .assert_ok();
    let set = app
        .state
        .store
        .wordsets_by_status("pending", 1)
        .await
        .unwrap()[0]
        .wordset
        .id;
    cli(&app, true, &["approve", &set.to_string()])
        .await
        .unwrap();
    let approved = app.state.store.wordset(set).await.unwrap().unwrap().wordset;
    let first = approved.active_from_round.unwrap();
    let now_round = RoundAt::of(app.clock.now()).number;
    assert!(first >= now_round + 2, "{first} vs {now_round}");
    app.state.realtime.refresh_wordsets().await;
    // Until its first round, the built-in topics only.
    for round in now_round..first {
        let at = telepathy_domain::round::ROUND_EPOCH_MS + round * ROUND_MS + 1_000;
        let offset = at - app.clock.now_ms();
        if offset > 0 {
            app.clock
                .advance(Duration::from_millis(offset.unsigned_abs()));
        }
        assert!(app
            .state
            .realtime
            .round_state()
            .words
            .iter()
            .all(|w| !w.custom));
    }
    let (round, start) = custom_round_start(first);
    app.clock.advance(Duration::from_millis(
        (start + 1_000 - app.clock.now_ms()).unsigned_abs(),
    ));
    let state = app.state.realtime.round_state();
    assert_eq!(state.round, round);
    let words: Vec<&str> = state.words.iter().map(|w| w.word.as_str()).collect();
    assert_eq!(words, WORDS);
    assert!(state.words.iter().all(|w| w.custom && !w.paid));
    let next = app.get("/api/match/current-round").await;
    assert_eq!(next.assert_ok()["round"], json!(round));
    let time = app.get("/api/server-time").await;
    assert_eq!(time.assert_ok()["words"][0]["custom"], json!(true));

    // Another node on the same database computes the same words.
    let other = AppState::build_with(
        app.state.config.clone(),
        Overrides {
            clock: Some(app.clock.clone()),
            engine: None,
            sms: None,
            identity: None,
            payments: None,
        },
    )
    .await
    .unwrap();
    assert!(
        other.realtime.round_state().words.iter().all(|w| !w.custom),
        "not read yet"
    );
    other.realtime.refresh_wordsets().await;
    let theirs = other.realtime.round_state();
    assert_eq!(theirs.round, state.round);
    assert_eq!(
        theirs.words.iter().map(|w| &w.word).collect::<Vec<_>>(),
        state.words.iter().map(|w| &w.word).collect::<Vec<_>>()
    );
    // The next round is a built-in topic again.
    app.clock.advance(Duration::from_millis(30_000));
    assert!(app
        .state
        .realtime
        .round_state()
        .words
        .iter()
        .all(|w| !w.custom));
    app.clock.advance(Duration::from_millis(4 * 30_000));
    let again = app.state.realtime.round_state();
    assert_eq!(again.round % 5, 0);
    assert!(
        again.words.iter().all(|w| w.custom),
        "one set: every fifth round"
    );

    // Two users who pick a custom word are matched on it.
    let (mut a, _) = user(&mut app, "alice", "01011112222").await;
    let (mut b, _) = user(&mut app, "bobby", "01033334444").await;
    a.send(
        "join_match",
        json!({ "word": "아이스크림", "round": again.round }),
    )
    .await;
    a.expect("matchWaiting").await;
    b.send(
        "join_match",
        json!({ "word": "아이스크림", "round": again.round }),
    )
    .await;
    let matched = b.expect("matched").await;
    assert_eq!(matched["word"], json!("아이스크림"));
    a.expect("matched").await;
}
