//! A local stand-in of the PortOne V1 REST API, for tests of the card-payment path (the
//! `stand-in` feature; never in a release build). It answers `POST /users/getToken`,
//! `POST /payments/prepare` and `GET /payments/{imp_uid}` in the documented shapes, keeps
//! the payments the tests make, and counts what it was asked.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};

use poem::http::StatusCode;
use poem::listener::{Acceptor, Listener, TcpListener};
use poem::web::{Data, Json, Path};
use poem::{get, handler, post, EndpointExt, Request, Response, Route, Server};
use serde_json::{json, Value};

/// The REST key the stand-in accepts.
pub const V1_API_KEY: &str = "test-imp-key";
/// The REST secret the stand-in accepts.
pub const V1_API_SECRET: &str = "test-imp-secret";

#[derive(Debug, Clone)]
struct Payment {
    merchant_uid: String,
    amount: i64,
    status: &'static str,
}

#[derive(Debug, Default)]
struct State {
    tokens: HashSet<String>,
    prepared: HashMap<String, i64>,
    payments: HashMap<String, Payment>,
    next: u64,
    token_requests: usize,
    lookups: usize,
}

/// A running stand-in; it stops with the test's runtime.
#[derive(Debug, Clone)]
pub struct PortOneV1StandIn {
    pub base_url: String,
    state: Arc<Mutex<State>>,
}

/// Serves the endpoint `app` makes (given its own origin) on a free loopback port, for as
/// long as the test's runtime lives; answers that origin, `http://127.0.0.1:<port>`.
pub(crate) async fn serve_locally<E>(what: &str, app: impl FnOnce(&str) -> E) -> String
where
    E: poem::IntoEndpoint + Send + 'static,
    E::Endpoint: 'static,
{
    let acceptor = TcpListener::bind("127.0.0.1:0")
        .into_acceptor()
        .await
        .unwrap_or_else(|e| panic!("bind {what}: {e}"));
    let addr = acceptor
        .local_addr()
        .first()
        .and_then(|a| a.as_socket_addr().copied())
        .unwrap_or_else(|| panic!("{what} has no address"));
    let origin = format!("http://{addr}");
    let app = app(&origin);
    tokio::spawn(async move {
        let _ = Server::new_with_acceptor(acceptor).run(app).await;
    });
    origin
}

impl PortOneV1StandIn {
    pub async fn start() -> Self {
        let state = Arc::new(Mutex::new(State::default()));
        let base_url = serve_locally("the PortOne stand-in", |_| {
            Route::new()
                .at("/users/getToken", post(get_token))
                .at("/payments/prepare", post(prepare))
                .at("/payments/:imp_uid", get(payment))
                .data(state.clone())
        })
        .await;
        Self { base_url, state }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What the payment window does when the user pays order `merchant_uid`: a paid
    /// payment of the amount registered for it, or `None` when none was (the window
    /// refuses to open).
    pub fn pay(&self, merchant_uid: &str) -> Option<String> {
        let amount = *self.state().prepared.get(merchant_uid)?;
        Some(self.payment_of(merchant_uid, amount, "paid"))
    }

    /// A payment in any state and of any amount, such as no window would make: what a
    /// forger hopes the server believes.
    pub fn payment_of(&self, merchant_uid: &str, amount: i64, status: &'static str) -> String {
        let mut state = self.state();
        state.next += 1;
        let imp_uid = format!("imp_{:012}", state.next);
        state.payments.insert(
            imp_uid.clone(),
            Payment {
                merchant_uid: merchant_uid.to_owned(),
                amount,
                status,
            },
        );
        imp_uid
    }

    /// The user cancels (or the card company voids) a payment.
    pub fn cancel(&self, imp_uid: &str) {
        if let Some(p) = self.state().payments.get_mut(imp_uid) {
            p.status = "cancelled";
        }
    }

    /// The amount registered for `merchant_uid`.
    pub fn prepared(&self, merchant_uid: &str) -> Option<i64> {
        self.state().prepared.get(merchant_uid).copied()
    }

    /// Every token issued stops working, as after their 30 minutes.
    pub fn expire_tokens(&self) {
        self.state().tokens.clear();
    }

    /// How many tokens were asked for.
    pub fn token_requests(&self) -> usize {
        self.state().token_requests
    }

    /// How many payments were looked up.
    pub fn lookups(&self) -> usize {
        self.state().lookups
    }
}

fn answer(status: StatusCode, code: i64, message: Option<&str>, response: Value) -> Response {
    Response::builder()
        .status(status)
        .content_type("application/json; charset=utf-8")
        .body(json!({"code": code, "message": message, "response": response}).to_string())
}

fn unauthorized() -> Response {
    answer(
        StatusCode::UNAUTHORIZED,
        -1,
        Some("Unauthorized"),
        Value::Null,
    )
}

/// Whether the request carries a token the stand-in issued (PortOne takes it bare or
/// after `Bearer `).
fn authorized(req: &Request, state: &State) -> bool {
    req.headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(|v| v.strip_prefix("Bearer ").unwrap_or(v))
        .is_some_and(|t| state.tokens.contains(t))
}

#[handler]
fn get_token(Json(body): Json<Value>, state: Data<&Arc<Mutex<State>>>) -> Response {
    let mut state = state.lock().unwrap_or_else(|e| e.into_inner());
    state.token_requests += 1;
    if body["imp_key"] != V1_API_KEY || body["imp_secret"] != V1_API_SECRET {
        return answer(
            StatusCode::UNAUTHORIZED,
            -1,
            Some("imp_key, imp_secret 인증에 실패하였습니다."),
            Value::Null,
        );
    }
    state.next += 1;
    let token = format!("token-{:08}", state.next);
    state.tokens.insert(token.clone());
    let now = chrono::Utc::now().timestamp();
    answer(
        StatusCode::OK,
        0,
        None,
        json!({"access_token": token, "now": now, "expired_at": now + 1800}),
    )
}

#[handler]
fn prepare(req: &Request, Json(body): Json<Value>, state: Data<&Arc<Mutex<State>>>) -> Response {
    let mut state = state.lock().unwrap_or_else(|e| e.into_inner());
    if !authorized(req, &state) {
        return unauthorized();
    }
    let (Some(merchant_uid), Some(amount)) =
        (body["merchant_uid"].as_str(), body["amount"].as_i64())
    else {
        return answer(
            StatusCode::BAD_REQUEST,
            1,
            Some("잘못된 요청입니다."),
            Value::Null,
        );
    };
    if state.prepared.contains_key(merchant_uid) {
        return answer(
            StatusCode::OK,
            1,
            Some("이미 등록된 merchant_uid입니다."),
            Value::Null,
        );
    }
    state.prepared.insert(merchant_uid.to_owned(), amount);
    answer(
        StatusCode::OK,
        0,
        None,
        json!({"merchant_uid": merchant_uid, "amount": amount}),
    )
}

#[handler]
fn payment(
    req: &Request,
    Path(imp_uid): Path<String>,
    state: Data<&Arc<Mutex<State>>>,
) -> Response {
    let mut state = state.lock().unwrap_or_else(|e| e.into_inner());
    if !authorized(req, &state) {
        return unauthorized();
    }
    state.lookups += 1;
    let Some(p) = state.payments.get(&imp_uid) else {
        return answer(
            StatusCode::NOT_FOUND,
            -1,
            Some("존재하지 않는 결제정보입니다."),
            Value::Null,
        );
    };
    answer(
        StatusCode::OK,
        0,
        None,
        json!({
            "imp_uid": imp_uid,
            "merchant_uid": p.merchant_uid,
            "amount": p.amount,
            "status": p.status,
            "pay_method": "card",
            "currency": "KRW",
            "pg_provider": "html5_inicis",
            "paid_at": if p.status == "paid" { chrono::Utc::now().timestamp() } else { 0 },
        }),
    )
}
