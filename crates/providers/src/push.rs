//! Web Push (RFC 8030) with message encryption (RFC 8291, `aes128gcm`) by
//! `web-push-native` (RustCrypto, no OpenSSL) and VAPID (RFC 8292) tokens by `jwt-simple`,
//! sent with our HTTP client.
//!
//! A push service is an outside service like any other: only the push services
//! [`PushServices`] names are ever called, whatever endpoint a browser hands in.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use web_push_native::jwt_simple::algorithms::{ECDSAP256KeyPairLike as _, ES256KeyPair};
use web_push_native::jwt_simple::claims::Claims;
use web_push_native::p256::PublicKey;
use web_push_native::{Auth, WebPushBuilder};

use crate::http;
use crate::ProviderError;

/// The push services of the browsers people use: Chrome, Edge and Samsung Internet (FCM),
/// Firefox (Mozilla), Safari (Apple), and Windows' own.
pub const BROWSER_PUSH_SERVICES: &str =
    "fcm.googleapis.com,updates.push.services.mozilla.com,push.apple.com,notify.windows.com";

/// Which push services we send to. An entry is a host (`push.apple.com`: that host or any
/// host under it, over HTTPS), or an exact origin (`http://127.0.0.1:9000`, for a local
/// push service in tests).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushServices {
    hosts: Vec<String>,
    origins: Vec<String>,
}

impl PushServices {
    /// Reads a comma-separated list.
    pub fn parse(list: &str) -> Result<Self, String> {
        let (mut hosts, mut origins) = (Vec::new(), Vec::new());
        for entry in list.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            if entry.contains("://") {
                let url = reqwest::Url::parse(entry).map_err(|e| format!("`{entry}`: {e}"))?;
                origins.push(url.origin().ascii_serialization());
            } else if entry.contains(['/', ':', '@']) {
                return Err(format!("`{entry}` is neither a host nor an origin"));
            } else {
                hosts.push(entry.to_ascii_lowercase());
            }
        }
        if hosts.is_empty() && origins.is_empty() {
            return Err("names no push service".into());
        }
        Ok(Self { hosts, origins })
    }

    /// The browsers' own push services ([`BROWSER_PUSH_SERVICES`]).
    pub fn browsers() -> Self {
        Self {
            hosts: BROWSER_PUSH_SERVICES
                .split(',')
                .map(str::to_owned)
                .collect(),
            origins: Vec::new(),
        }
    }

    /// Whether `endpoint` is a URL of one of these services.
    pub fn allows(&self, endpoint: &str) -> bool {
        let Ok(url) = reqwest::Url::parse(endpoint) else {
            return false;
        };
        if !url.username().is_empty() || url.password().is_some() {
            return false;
        }
        if self.origins.contains(&url.origin().ascii_serialization()) {
            return true;
        }
        if url.scheme() != "https" || url.port().is_some() {
            return false;
        }
        // `domain` is None for an IP address: no push service is reached by one.
        let Some(host) = url.domain() else {
            return false;
        };
        let host = host.to_ascii_lowercase();
        self.hosts.iter().any(|allowed| {
            host == *allowed
                || host
                    .strip_suffix(allowed.as_str())
                    .is_some_and(|head| head.ends_with('.'))
        })
    }
}

/// The application server's VAPID key pair (P-256). The public half is what browsers
/// subscribe with (`applicationServerKey`).
#[derive(Clone)]
pub struct VapidKeys {
    pair: std::sync::Arc<ES256KeyPair>,
    public: String,
}

impl std::fmt::Debug for VapidKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VapidKeys")
            .field("public", &self.public)
            .finish_non_exhaustive()
    }
}

impl VapidKeys {
    /// A new random pair.
    pub fn generate() -> Self {
        Self::of(ES256KeyPair::generate())
    }

    /// The pair of a private key: 32 bytes, base64url (what [`Self::private_base64`] gives).
    pub fn from_private_base64(text: &str) -> Result<Self, String> {
        let raw = URL_SAFE_NO_PAD
            .decode(text.trim().trim_end_matches('='))
            .map_err(|_| "not base64url".to_owned())?;
        if raw.len() != 32 {
            return Err(format!(
                "{} bytes, not the 32 of a P-256 private key",
                raw.len()
            ));
        }
        ES256KeyPair::from_bytes(&raw)
            .map(Self::of)
            .map_err(|_| "not a P-256 private key".to_owned())
    }

    fn of(pair: ES256KeyPair) -> Self {
        let public = URL_SAFE_NO_PAD.encode(pair.key_pair().public_key().to_bytes_uncompressed());
        Self {
            pair: std::sync::Arc::new(pair),
            public,
        }
    }

    /// The private key, base64url: for configuration only, never for a log.
    pub fn private_base64(&self) -> String {
        URL_SAFE_NO_PAD.encode(self.pair.to_bytes())
    }

    /// The public key (uncompressed point), base64url: the browsers' `applicationServerKey`.
    pub fn public_base64(&self) -> &str {
        &self.public
    }
}

/// A browser's subscription: where to push, and the keys to encrypt for it.
#[derive(Debug, Clone, Copy)]
pub struct PushDevice<'a> {
    pub endpoint: &'a str,
    /// The browser's P-256 public key, base64url.
    pub p256dh: &'a str,
    /// The browser's authentication secret, base64url.
    pub auth: &'a str,
}

impl PushDevice<'_> {
    /// Whether the keys are usable (a 65-byte point on the curve, a 16-byte secret).
    pub fn keys_valid(&self) -> bool {
        self.keys().is_ok()
    }

    fn keys(&self) -> Result<(PublicKey, Auth), String> {
        let decode = |text: &str| {
            URL_SAFE_NO_PAD
                .decode(text.trim_end_matches('='))
                .map_err(|_| "a key is not base64url".to_owned())
        };
        let public = PublicKey::from_sec1_bytes(&decode(self.p256dh)?)
            .map_err(|_| "p256dh is not a P-256 public key".to_owned())?;
        let auth = decode(self.auth)?;
        if auth.len() != 16 {
            return Err("auth is not 16 bytes".into());
        }
        Ok((public, Auth::clone_from_slice(&auth)))
    }
}

/// How urgent a push is (RFC 8030 §5.3): a phone on battery may hold back low ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Urgency {
    Normal,
    High,
}

/// What to push.
#[derive(Debug, Clone, Copy)]
pub struct PushMessage<'a> {
    /// The plaintext; encrypted for each device.
    pub payload: &'a [u8],
    /// How long the push service keeps it for a device that is away.
    pub ttl: Duration,
    /// A newer message of the same topic replaces one not yet delivered.
    pub topic: &'a str,
    pub urgency: Urgency,
}

/// What the push service said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PushOutcome {
    /// Accepted (201).
    Accepted,
    /// The subscription is gone (404, 410): forget it.
    Gone,
}

/// Sends Web Push messages signed with one VAPID key pair.
#[derive(Debug, Clone)]
pub struct WebPush {
    client: reqwest::Client,
    keys: VapidKeys,
    /// The VAPID contact (`mailto:` or `https:`), for the push services' operators.
    subject: String,
    /// The last token signed for each push service (origin, validity): a run of thousands
    /// of pushes to a few services signs a few tokens, not one per push.
    tokens: std::sync::Arc<std::sync::Mutex<HashMap<(String, Duration), VapidToken>>>,
}

#[derive(Debug, Clone)]
struct VapidToken {
    header: reqwest::header::HeaderValue,
    signed_at: Instant,
}

/// A token is used again for at most this share of its validity (and at most 10
/// minutes), so it never reaches a push service close to its expiry.
const TOKEN_REUSE: Duration = Duration::from_secs(10 * 60);

/// Upper bound for one push; a slow push service must not hold the evening's run.
const PUSH_TIMEOUT: Duration = Duration::from_secs(10);

impl WebPush {
    pub fn new(keys: VapidKeys, subject: &str) -> Result<Self, ProviderError> {
        if !(subject.starts_with("mailto:") || subject.starts_with("https://")) {
            return Err(ProviderError::Config(
                "the VAPID subject must be a mailto: or https: URL".into(),
            ));
        }
        let client = http::build(
            reqwest::Client::builder()
                .timeout(PUSH_TIMEOUT)
                .connect_timeout(Duration::from_secs(5))
                .pool_max_idle_per_host(256),
        )?;
        Ok(Self {
            client,
            keys,
            subject: subject.to_owned(),
            tokens: std::sync::Arc::default(),
        })
    }

    pub fn keys(&self) -> &VapidKeys {
        &self.keys
    }

    /// RFC 8292's `vapid t=…, k=…`: a token for the push service's origin, valid as long as
    /// the message (at most the 24 hours the RFC allows). Signed here rather than by
    /// `web-push-native`, whose audience leaves out the port of an origin that has one.
    fn vapid_authorization(
        &self,
        endpoint: &reqwest::Url,
        ttl: Duration,
    ) -> Result<reqwest::header::HeaderValue, ProviderError> {
        let valid = ttl.clamp(Duration::from_secs(60), Duration::from_secs(24 * 60 * 60));
        let audience = endpoint.origin().ascii_serialization();
        let reuse = (valid / 4).min(TOKEN_REUSE);
        let key = (audience, valid);
        let mut tokens = self
            .tokens
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(token) = tokens.get(&key) {
            if token.signed_at.elapsed() < reuse {
                return Ok(token.header.clone());
            }
        }
        let claims = Claims::create(valid.into())
            .with_audience(&key.0)
            .with_subject(&self.subject);
        let token = self
            .keys
            .pair
            .sign(claims)
            .map_err(|e| ProviderError::Config(format!("signing the VAPID token: {e}")))?;
        let header: reqwest::header::HeaderValue =
            format!("vapid t={token}, k={}", self.keys.public)
                .parse()
                .map_err(|_| ProviderError::Config("the VAPID header is no header value".into()))?;
        tokens.insert(
            key,
            VapidToken {
                header: header.clone(),
                signed_at: Instant::now(),
            },
        );
        Ok(header)
    }

    /// Encrypts `message` for `device` and hands it to the device's push service.
    pub async fn push(
        &self,
        device: PushDevice<'_>,
        message: PushMessage<'_>,
    ) -> Result<PushOutcome, ProviderError> {
        let (public, auth) = device.keys().map_err(ProviderError::InvalidResponse)?;
        let endpoint = device
            .endpoint
            .parse()
            .map_err(|e| ProviderError::Config(format!("endpoint: {e}")))?;
        let request = WebPushBuilder::new(endpoint, public, auth)
            .build(message.payload)
            .map_err(|e| ProviderError::Config(format!("building the push: {e}")))?;
        let mut request = reqwest::Request::try_from(request)
            .map_err(|e| ProviderError::Config(format!("building the push: {e}")))?;
        let authorization = self.vapid_authorization(request.url(), message.ttl)?;
        let headers = request.headers_mut();
        headers.insert(reqwest::header::AUTHORIZATION, authorization);
        headers.insert("TTL", message.ttl.as_secs().into());
        headers.insert(
            "Topic",
            message
                .topic
                .parse()
                .map_err(|_| ProviderError::Config("the topic is no header value".into()))?,
        );
        let urgency = match message.urgency {
            Urgency::Normal => "normal",
            Urgency::High => "high",
        };
        headers.insert(
            "Urgency",
            reqwest::header::HeaderValue::from_static(urgency),
        );
        let answer = http::send(self.client.execute(request)).await?;
        let status = answer.status();
        match status.as_u16() {
            200..=299 => Ok(PushOutcome::Accepted),
            404 | 410 => Ok(PushOutcome::Gone),
            _ => {
                // Best effort: the status alone tells whether to try again.
                let body = answer.text().await.unwrap_or_default();
                Err(http::refused(status, &body, None, None))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_named_push_services_are_called() {
        let services = PushServices::parse(BROWSER_PUSH_SERVICES).unwrap();
        assert_eq!(services, PushServices::browsers());
        assert!(services.allows("https://fcm.googleapis.com/fcm/send/abc:def"));
        assert!(services.allows("https://web.push.apple.com/QGuQyavX"));
        assert!(services.allows("https://wns2-par02p.notify.windows.com/w/?token=x"));
        for refused in [
            "http://fcm.googleapis.com/fcm/send/x",
            "https://fcm.googleapis.com:8443/x",
            "https://evilpush.apple.com/x",
            "https://push.apple.com.evil.example/x",
            "https://127.0.0.1/x",
            "https://[::1]/x",
            "https://user@fcm.googleapis.com/x",
            "https://intranet/x",
            "not a url",
        ] {
            assert!(!services.allows(refused), "{refused}");
        }
        let local = PushServices::parse("http://127.0.0.1:9000").unwrap();
        assert!(local.allows("http://127.0.0.1:9000/push/1"));
        assert!(!local.allows("http://127.0.0.1:9001/push/1"));
        assert!(PushServices::parse("").is_err());
        assert!(PushServices::parse("fcm.googleapis.com/x").is_err());
    }

    #[test]
    fn a_private_key_gives_back_its_pair() {
        let keys = VapidKeys::generate();
        let again = VapidKeys::from_private_base64(&keys.private_base64()).unwrap();
        assert_eq!(again.public_base64(), keys.public_base64());
        assert_eq!(
            URL_SAFE_NO_PAD.decode(keys.public_base64()).unwrap().len(),
            65
        );
        assert!(VapidKeys::from_private_base64("c2hvcnQ").is_err());
        assert!(VapidKeys::from_private_base64("!!").is_err());
    }

    #[test]
    fn a_run_signs_one_token_per_push_service() {
        let push = WebPush::new(VapidKeys::generate(), "mailto:ops@example.com").unwrap();
        let url = |u: &str| reqwest::Url::parse(u).unwrap();
        let hour = Duration::from_secs(3600);
        let fcm = push
            .vapid_authorization(&url("https://fcm.googleapis.com/fcm/send/a"), hour)
            .unwrap();
        let again = push
            .vapid_authorization(&url("https://fcm.googleapis.com/fcm/send/b"), hour)
            .unwrap();
        assert_eq!(fcm, again);
        let apple = push
            .vapid_authorization(&url("https://web.push.apple.com/x"), hour)
            .unwrap();
        assert_ne!(fcm, apple);
        assert!(apple.to_str().unwrap().starts_with("vapid t="));
        assert!(apple
            .to_str()
            .unwrap()
            .ends_with(&format!(", k={}", push.keys().public_base64())));
    }

    #[test]
    fn device_keys_are_checked() {
        let browser = web_push_native::p256::SecretKey::random(&mut rand::thread_rng());
        let p256dh = URL_SAFE_NO_PAD.encode(
            web_push_native::p256::elliptic_curve::sec1::ToEncodedPoint::to_encoded_point(
                &browser.public_key(),
                false,
            )
            .as_bytes(),
        );
        let auth = URL_SAFE_NO_PAD.encode([7u8; 16]);
        let device = |p256dh: &str, auth: &str| {
            PushDevice {
                endpoint: "https://fcm.googleapis.com/x",
                p256dh,
                auth,
            }
            .keys_valid()
        };
        assert!(device(&p256dh, &auth));
        assert!(!device(&p256dh, &URL_SAFE_NO_PAD.encode([7u8; 15])));
        assert!(!device(&URL_SAFE_NO_PAD.encode([4u8; 65]), &auth));
        assert!(!device("%%", &auth));
    }
}
