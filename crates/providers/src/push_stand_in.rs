//! A local push service (RFC 8030) for tests of the opening bell (the `stand-in` feature;
//! never in a release build). It hands out subscriptions like a browser's, and for each
//! push it receives checks what a real push service and browser would: the VAPID token
//! (RFC 8292: ES256 over the audience of this service, not expired, at most 24 h ahead,
//! with a contact), the `TTL` header, and the `aes128gcm` body, which it decrypts with
//! its own implementation of RFC 8291 (not the sender's library), keeping the plaintext.
//! Chosen devices answer 404 or 410 (gone) or 500, to test the cleanup and the counts.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use aes_gcm::aead::{Aead, KeyInit};
use aes_gcm::{Aes128Gcm, Nonce};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use hkdf::Hkdf;
use poem::http::{HeaderMap, StatusCode};
use poem::web::{Data, Path};
use poem::{handler, post, Body, EndpointExt, Route};
use sha2::Sha256;
use web_push_native::jwt_simple::prelude::{
    ECDSAP256PublicKeyLike as _, ES256PublicKey, NoCustomClaims, VerificationOptions,
};
use web_push_native::p256::elliptic_curve::sec1::ToEncodedPoint as _;
use web_push_native::p256::{PublicKey, SecretKey};

use crate::stand_in::serve_locally;

/// A subscription as a browser hands it to the application (`PushSubscription.toJSON()`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StandInDevice {
    pub id: u64,
    pub endpoint: String,
    pub p256dh: String,
    pub auth: String,
}

/// A push the stand-in accepted, decrypted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceivedPush {
    pub device: u64,
    pub payload: Vec<u8>,
    pub ttl: u64,
    pub topic: Option<String>,
    pub urgency: Option<String>,
    /// The VAPID public key the push was signed with, base64url.
    pub vapid_key: String,
    /// The VAPID contact.
    pub subject: String,
}

#[derive(Clone)]
struct Subscriber {
    secret: SecretKey,
    auth: [u8; 16],
    answer: StatusCode,
    /// Pushes answered `answer` before the service takes them (then 201).
    refusals: Option<u32>,
}

#[derive(Default)]
struct State {
    subscribers: HashMap<u64, Subscriber>,
    next: u64,
    received: Vec<ReceivedPush>,
    refused: Vec<String>,
    /// Authorization headers verified already (a sender reuses its token), with what they
    /// said: the signature is checked once per token, its expiry every time.
    verified: HashMap<String, Vapid>,
}

#[derive(Clone)]
struct Vapid {
    subject: String,
    key: String,
    expires: u64,
}

/// A running stand-in; it stops with the test's runtime.
#[derive(Clone)]
pub struct PushServiceStandIn {
    /// Its origin, e.g. `http://127.0.0.1:40123`: what the application must allow.
    pub origin: String,
    state: Arc<Mutex<State>>,
}

impl PushServiceStandIn {
    pub async fn start() -> Self {
        Self::start_with_delay(Duration::ZERO).await
    }

    /// A push service that takes `delay` to answer each push (a slow one, or a long run).
    pub async fn start_with_delay(delay: Duration) -> Self {
        let state = Arc::new(Mutex::new(State::default()));
        let origin = serve_locally("the push stand-in", |origin| {
            Route::new()
                .at("/push/:id", post(receive))
                .data(state.clone())
                .data(Origin(origin.to_owned()))
                .data(Delay(delay))
        })
        .await;
        Self { origin, state }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A new browser subscription that accepts pushes.
    pub fn subscribe(&self) -> StandInDevice {
        self.subscribe_answering(StatusCode::CREATED)
    }

    /// A new subscription whose pushes are answered with `answer` (404 or 410: the browser
    /// unsubscribed; 500: the service fails). Anything but 2xx is not kept.
    pub fn subscribe_answering(&self, answer: StatusCode) -> StandInDevice {
        self.subscriber(answer, None)
    }

    /// A new subscription whose first `times` pushes are answered with `answer` (a push
    /// service overloaded for a moment), and the next ones taken.
    pub fn subscribe_refusing(&self, answer: StatusCode, times: u32) -> StandInDevice {
        self.subscriber(answer, Some(times))
    }

    fn subscriber(&self, answer: StatusCode, refusals: Option<u32>) -> StandInDevice {
        let secret = SecretKey::random(&mut rand::thread_rng());
        let auth: [u8; 16] = rand::random();
        let p256dh = URL_SAFE_NO_PAD.encode(secret.public_key().to_encoded_point(false).as_bytes());
        let mut state = self.state();
        state.next += 1;
        let id = state.next;
        state.subscribers.insert(
            id,
            Subscriber {
                secret,
                auth,
                answer,
                refusals,
            },
        );
        StandInDevice {
            id,
            endpoint: format!("{}/push/{id}", self.origin),
            p256dh,
            auth: URL_SAFE_NO_PAD.encode(auth),
        }
    }

    /// Every push accepted so far, in order.
    pub fn received(&self) -> Vec<ReceivedPush> {
        self.state().received.clone()
    }

    /// Why pushes were refused (bad VAPID, missing TTL, undecryptable body), in order.
    pub fn refused(&self) -> Vec<String> {
        self.state().refused.clone()
    }

    /// Forgets what was received and refused.
    pub fn clear(&self) {
        let mut state = self.state();
        state.received.clear();
        state.refused.clear();
    }
}

#[derive(Clone)]
struct Origin(String);

#[derive(Clone, Copy)]
struct Delay(Duration);

#[handler]
async fn receive(
    Path(id): Path<u64>,
    headers: &HeaderMap,
    body: Body,
    state: Data<&Arc<Mutex<State>>>,
    origin: Data<&Origin>,
    delay: Data<&Delay>,
) -> StatusCode {
    let body = body.into_vec().await.unwrap_or_default();
    if !delay.0 .0.is_zero() {
        tokio::time::sleep(delay.0 .0).await;
    }
    let lock = || {
        state
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    };
    let authorization = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    // The keys and what is known, then the crypto without the lock.
    let (subscriber, known) = {
        let state = lock();
        let Some(subscriber) = state.subscribers.get(&id) else {
            return StatusCode::NOT_FOUND;
        };
        (
            subscriber.clone(),
            state.verified.get(&authorization).cloned(),
        )
    };
    let checked = known
        .map_or_else(|| check_vapid(&authorization, &origin.0 .0), Ok)
        .and_then(|vapid| check(headers, &body, &subscriber, &vapid));
    let mut state = lock();
    match checked {
        Err(why) => {
            state.refused.push(format!("device {id}: {why}"));
            StatusCode::BAD_REQUEST
        }
        Ok((mut push, vapid)) => {
            state.verified.insert(authorization, vapid);
            if let Some(left) = state
                .subscribers
                .get_mut(&id)
                .and_then(|s| s.refusals.as_mut())
            {
                if *left > 0 {
                    *left -= 1;
                    return subscriber.answer;
                }
            } else if !subscriber.answer.is_success() {
                return subscriber.answer;
            }
            push.device = id;
            state.received.push(push);
            StatusCode::CREATED
        }
    }
}

fn check(
    headers: &HeaderMap,
    body: &[u8],
    subscriber: &Subscriber,
    vapid: &Vapid,
) -> Result<(ReceivedPush, Vapid), String> {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let ttl = header("ttl")
        .ok_or("no TTL header")?
        .parse::<u64>()
        .map_err(|_| "TTL is no number")?;
    if header("content-encoding") != Some("aes128gcm") {
        return Err("Content-Encoding is not aes128gcm".into());
    }
    let now = web_push_native::jwt_simple::prelude::Clock::now_since_epoch().as_secs();
    if vapid.expires <= now {
        return Err("the VAPID token has expired".into());
    }
    let payload = decrypt(body, &subscriber.secret, &subscriber.auth)?;
    let push = ReceivedPush {
        device: 0,
        payload,
        ttl,
        topic: header("topic").map(str::to_owned),
        urgency: header("urgency").map(str::to_owned),
        vapid_key: vapid.key.clone(),
        subject: vapid.subject.clone(),
    };
    Ok((push, vapid.clone()))
}

/// RFC 8292: `vapid t=<JWT>, k=<public key>`; the token signed by that key, for this
/// push service's origin, not expired and not valid beyond 24 hours, with a contact.
fn check_vapid(authorization: &str, origin: &str) -> Result<Vapid, String> {
    let rest = authorization
        .strip_prefix("vapid ")
        .ok_or("no VAPID authorization")?;
    let (mut token, mut key) = (None, None);
    for part in rest.split(',').map(str::trim) {
        if let Some(t) = part.strip_prefix("t=") {
            token = Some(t);
        } else if let Some(k) = part.strip_prefix("k=") {
            key = Some(k);
        }
    }
    let (token, key) = (token.ok_or("no t=")?, key.ok_or("no k=")?);
    let public = URL_SAFE_NO_PAD
        .decode(key)
        .map_err(|_| "k is not base64url")?;
    let public = ES256PublicKey::from_bytes(&public).map_err(|_| "k is not a P-256 key")?;
    let options = VerificationOptions {
        allowed_audiences: Some([origin.to_owned()].into_iter().collect()),
        ..VerificationOptions::default()
    };
    let claims = public
        .verify_token::<NoCustomClaims>(token, Some(options))
        .map_err(|e| format!("VAPID token refused: {e}"))?;
    let expires = claims.expires_at.ok_or("the VAPID token never expires")?;
    let now = web_push_native::jwt_simple::prelude::Clock::now_since_epoch();
    if expires.as_secs() > now.as_secs() + 24 * 60 * 60 {
        return Err("the VAPID token is valid for more than 24 hours".into());
    }
    let subject = claims.subject.ok_or("the VAPID token has no contact")?;
    if !(subject.starts_with("mailto:") || subject.starts_with("https://")) {
        return Err(format!(
            "the VAPID contact {subject:?} is no mailto: or https: URL"
        ));
    }
    Ok(Vapid {
        subject,
        key: key.to_owned(),
        expires: expires.as_secs(),
    })
}

/// RFC 8291 §3.4 and RFC 8188 §2, one record: `salt(16) | rs(4) | idlen(1) | keyid |
/// ciphertext`, the keyid being the sender's ephemeral public key.
fn decrypt(body: &[u8], secret: &SecretKey, auth: &[u8; 16]) -> Result<Vec<u8>, String> {
    if body.len() < 21 {
        return Err("the body is shorter than its header".into());
    }
    let salt = &body[..16];
    let record_size = u32::from_be_bytes([body[16], body[17], body[18], body[19]]) as usize;
    let id_len = usize::from(body[20]);
    let key_id = body
        .get(21..21 + id_len)
        .ok_or("the body is shorter than its key id")?;
    let ciphertext = &body[21 + id_len..];
    if ciphertext.len() > record_size || ciphertext.len() < 17 {
        return Err("the body is not one record".into());
    }
    let sender = PublicKey::from_sec1_bytes(key_id).map_err(|_| "the key id is no P-256 key")?;
    let shared =
        web_push_native::p256::ecdh::diffie_hellman(secret.to_nonzero_scalar(), sender.as_affine());
    let ua_public = secret.public_key().to_encoded_point(false);
    let mut key_info = b"WebPush: info\0".to_vec();
    key_info.extend_from_slice(ua_public.as_bytes());
    key_info.extend_from_slice(key_id);
    let mut ikm = [0u8; 32];
    Hkdf::<Sha256>::new(Some(auth), shared.raw_secret_bytes())
        .expand(&key_info, &mut ikm)
        .map_err(|_| "HKDF")?;
    let prk = Hkdf::<Sha256>::new(Some(salt), &ikm);
    let (mut cek, mut nonce) = ([0u8; 16], [0u8; 12]);
    prk.expand(b"Content-Encoding: aes128gcm\0", &mut cek)
        .map_err(|_| "HKDF")?;
    prk.expand(b"Content-Encoding: nonce\0", &mut nonce)
        .map_err(|_| "HKDF")?;
    let mut plain = Aes128Gcm::new_from_slice(&cek)
        .map_err(|_| "AES key")?
        .decrypt(Nonce::from_slice(&nonce), ciphertext)
        .map_err(|_| "the body does not decrypt")?;
    // The last record ends with the delimiter 2, then any zero padding.
    let end = plain
        .iter()
        .rposition(|&b| b != 0)
        .ok_or("no record delimiter")?;
    if plain[end] != 2 {
        return Err("the record is not marked last".into());
    }
    plain.truncate(end);
    Ok(plain)
}
