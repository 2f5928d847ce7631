//! Local HTTP stand-ins for Solapi and PortOne that answer in the shapes their
//! API references document, and record every request they receive.

use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};
use hmac::{Hmac, Mac};
use poem::http::StatusCode;
use poem::listener::{Acceptor, Listener, TcpListener};
use poem::web::{Data, Path};
use poem::{get, handler, post, Body, EndpointExt, Request, Response, Route, Server};
use serde_json::{json, Value};
use sha2::Sha256;

/// One request as the stand-in saw it.
#[derive(Debug, Clone)]
pub struct Captured {
    pub method: String,
    /// Path and query exactly as sent (still percent-encoded).
    pub raw_path_and_query: String,
    pub authorization: Option<String>,
    pub content_type: Option<String>,
    pub body: Vec<u8>,
    /// For PortOne: the id after percent-decoding by the router.
    pub decoded_id: Option<String>,
    /// For Solapi: what the stand-in concluded about the signature.
    pub auth_check: Option<Result<ParsedAuth, String>>,
}

/// Parsed Solapi `Authorization` header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedAuth {
    pub api_key: String,
    pub date: String,
    pub salt: String,
    pub signature: String,
}

pub type Log = Arc<Mutex<Vec<Captured>>>;

/// Serves `ep` on an ephemeral loopback port; returns its base URL.
pub async fn serve<E>(ep: E) -> String
where
    E: poem::Endpoint + 'static,
{
    let acceptor = TcpListener::bind("127.0.0.1:0")
        .into_acceptor()
        .await
        .expect("bind stand-in");
    let addr = *acceptor
        .local_addr()
        .first()
        .and_then(|a| a.as_socket_addr())
        .expect("stand-in has a socket address");
    tokio::spawn(async move {
        let _ = Server::new_with_acceptor(acceptor).run(ep).await;
    });
    format!("http://{addr}")
}

/// A base URL on which nothing listens.
pub fn closed_port_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    drop(listener);
    format!("http://{addr}")
}

fn json_response(status: StatusCode, body: Value) -> Response {
    Response::builder()
        .status(status)
        .content_type("application/json; charset=utf-8")
        .body(body.to_string())
}

fn header(req: &Request, name: &str) -> Option<String> {
    req.headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

// ---------------------------------------------------------------- Solapi

/// How the Solapi stand-in answers a correctly signed request.
#[derive(Debug, Clone, Copy)]
pub enum SolapiMode {
    Accept,
    /// 400 `ValidationError`, as Solapi does for e.g. an unregistered caller number.
    RejectValidation,
    /// A proxy in front of Solapi failing with a non-JSON body.
    BadGateway,
}

#[derive(Clone)]
struct SolapiState {
    api_key: String,
    api_secret: String,
    mode: SolapiMode,
    log: Log,
}

pub async fn solapi(api_key: &str, api_secret: &str, mode: SolapiMode) -> (String, Log) {
    let log = Log::default();
    let state = SolapiState {
        api_key: api_key.to_owned(),
        api_secret: api_secret.to_owned(),
        mode,
        log: log.clone(),
    };
    let app = Route::new()
        .at("/messages/v4/send", post(solapi_send))
        .data(state);
    (serve(app).await, log)
}

pub fn parse_solapi_auth(value: &str) -> Result<ParsedAuth, String> {
    let rest = value
        .strip_prefix("HMAC-SHA256 ")
        .ok_or("scheme is not HMAC-SHA256")?;
    let mut api_key = None;
    let mut date = None;
    let mut salt = None;
    let mut signature = None;
    for part in rest.split(", ") {
        let (k, v) = part.split_once('=').ok_or("part without '='")?;
        let slot = match k {
            "apiKey" => &mut api_key,
            "date" => &mut date,
            "salt" => &mut salt,
            "signature" => &mut signature,
            other => return Err(format!("unknown part {other}")),
        };
        if slot.replace(v.to_owned()).is_some() {
            return Err(format!("duplicate {k}"));
        }
    }
    Ok(ParsedAuth {
        api_key: api_key.ok_or("no apiKey")?,
        date: date.ok_or("no date")?,
        salt: salt.ok_or("no salt")?,
        signature: signature.ok_or("no signature")?,
    })
}

pub fn hmac_hex(secret: &str, data: &str) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("any key length");
    mac.update(data.as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

/// Checks the header the way Solapi documents it: HMAC-SHA256 over date+salt
/// keyed by the API secret, date within 15 minutes, salt 12 to 64 characters.
fn check_solapi_auth(
    state: &SolapiState,
    value: Option<&str>,
) -> Result<ParsedAuth, (u16, &'static str)> {
    let parsed = parse_solapi_auth(value.ok_or((401, "InvalidAuthorization"))?)
        .map_err(|_| (401, "InvalidAuthorization"))?;
    if parsed.api_key != state.api_key {
        return Err((403, "InvalidAPIKey"));
    }
    if !(12..=64).contains(&parsed.salt.len()) {
        return Err((403, "InvalidSalt"));
    }
    let date: DateTime<Utc> = DateTime::parse_from_rfc3339(&parsed.date)
        .map_err(|_| (403, "InvalidDate"))?
        .with_timezone(&Utc);
    if (Utc::now() - date).num_minutes().abs() >= 15 {
        return Err((403, "RequestTimeTooSkewed"));
    }
    let expected = hmac_hex(
        &state.api_secret,
        &format!("{}{}", parsed.date, parsed.salt),
    );
    if expected != parsed.signature {
        return Err((403, "SignatureDoesNotMatch"));
    }
    Ok(parsed)
}

#[handler]
async fn solapi_send(req: &Request, body: Body, state: Data<&SolapiState>) -> Response {
    let body = body.into_vec().await.unwrap_or_default();
    let authorization = header(req, "authorization");
    let check = check_solapi_auth(&state, authorization.as_deref());
    state.log.lock().expect("log").push(Captured {
        method: req.method().to_string(),
        raw_path_and_query: req.uri().to_string(),
        authorization: authorization.clone(),
        content_type: header(req, "content-type"),
        body: body.clone(),
        decoded_id: None,
        auth_check: Some(check.clone().map_err(|(_, code)| code.to_owned())),
    });
    if let Err((status, code)) = check {
        return json_response(
            StatusCode::from_u16(status).expect("status"),
            json!({"errorCode": code, "errorMessage": format!("{code} (stand-in)")}),
        );
    }
    let Ok(parsed) = serde_json::from_slice::<Value>(&body) else {
        return json_response(
            StatusCode::BAD_REQUEST,
            json!({"errorCode": "ValidationError", "errorMessage": "body is not JSON"}),
        );
    };
    match state.mode {
        SolapiMode::RejectValidation => json_response(
            StatusCode::BAD_REQUEST,
            json!({
                "errorCode": "ValidationError",
                "errorMessage": "발신번호 01099998888 은(는) 등록되지 않은 번호입니다."
            }),
        ),
        SolapiMode::BadGateway => Response::builder()
            .status(StatusCode::BAD_GATEWAY)
            .content_type("text/html")
            .body("<html><body>502 Bad Gateway</body></html>"),
        SolapiMode::Accept => {
            let message = &parsed["message"];
            json_response(
                StatusCode::OK,
                json!({
                    "groupId": "G4V20240101000000STANDINGROUP01",
                    "to": message["to"],
                    "from": message["from"],
                    "type": "SMS",
                    "statusMessage": "정상 접수(이통사로 접수 예정) ",
                    "country": "82",
                    "messageId": "M4V20240101000000STANDINMESSAGE",
                    "statusCode": "2000",
                    "accountId": "12925149"
                }),
            )
        }
    }
}

// ---------------------------------------------------------------- PortOne

pub const PORTONE_SECRET: &str = "test-portone-v2-secret";

pub async fn portone() -> (String, Log) {
    let log = Log::default();
    let app = Route::new()
        .at("/identity-verifications/:id", get(portone_get))
        .data(log.clone());
    (serve(app).await, log)
}

fn portone_error(status: StatusCode, kind: &str, message: &str) -> Response {
    json_response(status, json!({"type": kind, "message": message}))
}

fn verification(id: &str, status: &str) -> Value {
    json!({
        "status": status,
        "id": id,
        "channel": {
            "type": "LIVE",
            "id": "channel-id-1",
            "key": "channel-key-test",
            "name": "본인인증",
            "pgProvider": "DANAL",
            "pgMerchantId": "B010008888"
        },
        "requestedCustomer": {},
        "requestedAt": "2024-05-01T01:02:03.000Z",
        "updatedAt": "2024-05-01T01:03:03.000Z",
        "statusChangedAt": "2024-05-01T01:03:03.000Z",
        "version": "V2"
    })
}

#[handler]
async fn portone_get(req: &Request, Path(id): Path<String>, log: Data<&Log>) -> Response {
    let authorization = header(req, "authorization");
    log.lock().expect("log").push(Captured {
        method: req.method().to_string(),
        raw_path_and_query: req
            .uri()
            .path_and_query()
            .map(|p| p.as_str().to_owned())
            .unwrap_or_default(),
        authorization: authorization.clone(),
        content_type: header(req, "content-type"),
        body: Vec::new(),
        decoded_id: Some(id.clone()),
        auth_check: None,
    });
    if authorization.as_deref() != Some(&format!("PortOne {PORTONE_SECRET}")) {
        return portone_error(
            StatusCode::UNAUTHORIZED,
            "UNAUTHORIZED",
            "인증 정보가 올바르지 않습니다.",
        );
    }
    match id.as_str() {
        "iv-verified" | "a/b c?d" => {
            let mut body = verification(&id, "VERIFIED");
            body["verifiedCustomer"] = json!({
                "id": "customer-1",
                "name": "홍길동",
                "operator": "SKT",
                "phoneNumber": "01012345678",
                "birthDate": "1995-03-04",
                "gender": "MALE",
                "isForeigner": false,
                "ci": "ci-value",
                "di": "di-value"
            });
            body["verifiedAt"] = json!("2024-05-01T01:03:03.000Z");
            body["pgTxId"] = json!("pg-tx-1");
            body["pgRawResponse"] = json!("{}");
            json_response(StatusCode::OK, body)
        }
        "iv-verified-minimal" => {
            let mut body = verification(&id, "VERIFIED");
            body["verifiedCustomer"] = json!({"name": "김철수", "birthDate": "2000-01-01"});
            json_response(StatusCode::OK, body)
        }
        "iv-verified-no-customer" => json_response(StatusCode::OK, verification(&id, "VERIFIED")),
        "iv-failed" => {
            let mut body = verification(&id, "FAILED");
            body["failure"] = json!({
                "reason": "본인인증 실패",
                "pgCode": "TARGET_NOT_FOUND",
                "pgMessage": "가입자 정보가 없습니다."
            });
            json_response(StatusCode::OK, body)
        }
        "iv-ready" => json_response(StatusCode::OK, verification(&id, "READY")),
        "iv-forbidden" => {
            portone_error(StatusCode::FORBIDDEN, "FORBIDDEN", "요청이 거절되었습니다.")
        }
        _ => portone_error(
            StatusCode::NOT_FOUND,
            "IDENTITY_VERIFICATION_NOT_FOUND",
            "요청된 본인인증 건이 존재하지 않는 경우",
        ),
    }
}
