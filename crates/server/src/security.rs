//! Request guards shared by the API: the Origin check of state changes, client addresses,
//! and rate limits over the shared engine.

use std::net::{IpAddr, Ipv6Addr};
use std::time::Duration;

use poem::error::ReadBodyError;
use poem::http::{header, HeaderValue, Method};
use poem::{Body, Endpoint, IntoResponse, Request, Response};
use prometheus_client::metrics::counter::Counter;
use sha2::{Digest, Sha256};
use telepathy_domain::limits::{
    LOGINS_PER_ACCOUNT, LOGIN_ACCOUNT_BACKOFF, LOGIN_BACKOFF, LOGIN_PER_IP, LOGIN_TRIES_PER_IP,
    LOGIN_WINDOW, LOOKUPS_PER_IP, LOOKUP_WINDOW,
};
use telepathy_domain::ErrorCode;
use telepathy_engine::Hit;
use telepathy_providers::Secret;

use crate::config::Config;
use crate::devices::Device;
use crate::error::{ApiError, OrInternal};
use crate::state::AppState;

/// The client's address behind `trusted` proxies: see [`client_of`]. An entry that is not
/// valid text keeps its place in the list (a client may write anything to the left of what
/// our proxies append), so the proxy's own entry still counts from the right.
pub fn client_ip(req: &Request, trusted: usize) -> String {
    let forwarded: Vec<String> = if trusted == 0 {
        Vec::new()
    } else {
        req.headers()
            .get_all("x-forwarded-for")
            .iter()
            .flat_map(|v| v.as_bytes().split(|b| *b == b','))
            .map(|entry| String::from_utf8_lossy(entry).into_owned())
            .collect()
    };
    let forwarded: Vec<&str> = forwarded.iter().map(String::as_str).collect();
    client_of(&forwarded, &peer_ip(req), trusted)
}

/// The neighbourhood of the client behind `trusted` proxies: what every per-address limit
/// counts (see [`neighbourhood`]).
pub fn client_net(req: &Request, trusted: usize) -> String {
    neighbourhood(&client_ip(req, trusted))
}

/// The unit a per-address limit counts: an IPv4 address alone (an IPv4-mapped IPv6 address
/// as its IPv4 address), an IPv6 address by its /56. One customer of an ISP holds a whole
/// prefix, not one address: a /64 at the least (one link; every phone on a mobile network
/// gets its own), usually a /56 (what residential ISPs delegate, as RIPE-690 recommends) and
/// at most a /48 (businesses). Counted by /64, one home would hold 256 neighbours' worth of
/// limits; by /48, 256 households of one ISP would share one. The /56 is the common
/// delegation: one customer is one neighbour, and mobile phones sharing a /56 of their
/// carrier's pool share limits that are meant to be generous.
pub fn neighbourhood(ip: &str) -> String {
    match ip.parse::<IpAddr>() {
        Ok(IpAddr::V6(v6)) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => {
                let prefix = u128::from(v6) & !((1u128 << (128 - 56)) - 1);
                format!("{}/56", Ipv6Addr::from(prefix))
            }
        },
        Ok(IpAddr::V4(v4)) => v4.to_string(),
        Err(_) => ip.to_owned(),
    }
}

/// The address of the connection's other end (the last proxy, if any).
pub fn peer_ip(req: &Request) -> String {
    req.remote_addr()
        .as_socket_addr()
        .map(|a| a.ip().to_string())
        .unwrap_or_else(|| "unknown".to_owned())
}

/// Which address is the client's. Each proxy appends the address it received the request
/// from to X-Forwarded-For, so of the list `forwarded` followed by `peer`, the last
/// `trusted` addresses are our proxies and the one before them is the client; anything
/// further left was written by the client and proves nothing. When the list is shorter,
/// the leftmost address.
pub fn client_of(forwarded: &[&str], peer: &str, trusted: usize) -> String {
    let chain: Vec<&str> = forwarded
        .iter()
        .map(|a| a.trim())
        .filter(|a| !a.is_empty())
        .chain(std::iter::once(peer))
        .collect();
    let at = chain.len().saturating_sub(1).saturating_sub(trusted);
    // What our proxies write is an address; anything else was written by the client.
    chain
        .get(at)
        .copied()
        .filter(|a| a.parse::<IpAddr>().is_ok())
        .unwrap_or(peer)
        .to_owned()
}

/// Whether a request comes from this machine (a loopback peer that came through no proxy)
/// or carries `Authorization: Bearer <token>` with the configured `token`. The guard of
/// what only operators may read: `/metrics` and the demo SMS outbox.
pub fn local_or_bearer(req: &Request, token: Option<&Secret>) -> bool {
    // A proxy on this machine connects from loopback too; the headers it adds tell.
    let proxied = ["x-forwarded-for", "forwarded", "x-real-ip"]
        .iter()
        .any(|h| req.headers().contains_key(*h));
    let local = !proxied
        && req
            .remote_addr()
            .as_socket_addr()
            .is_some_and(|a| a.ip().is_loopback());
    let bearer = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    let token_ok = match (token, bearer) {
        // Compared as digests, so the time taken says nothing about the token.
        (Some(token), Some(given)) => {
            Sha256::digest(token.expose().as_bytes()) == Sha256::digest(given.as_bytes())
        }
        _ => false,
    };
    local || token_ok
}

/// Whether a request's Origin, when it has one, is ours. Browsers send Origin on every
/// cross-site state change, so refusing foreign ones stops cross-site request forgery
/// together with the SameSite=Lax cookie.
pub fn origin_allowed(req: &Request, allowed: &[String]) -> bool {
    match req
        .headers()
        .get(header::ORIGIN)
        .and_then(|v| v.to_str().ok())
    {
        None => true,
        Some(origin) => allowed.iter().any(|a| a == origin.trim_end_matches('/')),
    }
}

/// Where the web app's pages may load scripts from: PortOne's V2 browser SDK (identity
/// verification) and the V1 iamport SDK (card payments). ARCHITECTURE.md lists why.
const SCRIPT_HOSTS: &str = "https://cdn.portone.io https://cdn.iamport.kr";

/// What the pages may call besides their own origin: PortOne's APIs, which the V2 SDK and
/// the V1 payment window's script call.
const CONNECT_HOSTS: &str = "https://api.portone.io https://*.iamport.kr";

/// What the pages may frame: PortOne's and iamport's payment and verification windows, and
/// the windows of the payment gateways and identity services they open.
const FRAME_HOSTS: &str = "https://*.portone.io https://service.iamport.kr https://*.iamport.kr \
     https://*.inicis.com https://*.kcp.co.kr https://*.nicepay.co.kr https://*.danal.co.kr \
     https://*.tosspayments.com https://*.kakaopay.com";

/// The Content-Security-Policy of every answer. Scripts and styles come only from files
/// (no inline code); sockets go to our own origins; nothing may frame the app.
pub fn content_security_policy(public_origins: &[String]) -> String {
    let mut sockets: Vec<String> = Vec::new();
    for origin in public_origins {
        let socket = origin
            .strip_prefix("https://")
            .map(|host| format!("wss://{host}"))
            .or_else(|| {
                origin
                    .strip_prefix("http://")
                    .map(|host| format!("ws://{host}"))
            });
        if let Some(socket) = socket.filter(|s| !sockets.contains(s)) {
            sockets.push(socket);
        }
    }
    [
        "default-src 'self'".to_owned(),
        format!("script-src 'self' {SCRIPT_HOSTS}"),
        "style-src 'self'".to_owned(),
        "img-src 'self' data:".to_owned(),
        "font-src 'self'".to_owned(),
        format!("connect-src 'self' {} {CONNECT_HOSTS}", sockets.join(" ")),
        format!("frame-src {FRAME_HOSTS}"),
        "form-action 'self' https://*.portone.io https://*.iamport.kr".to_owned(),
        "object-src 'none'".to_owned(),
        "base-uri 'self'".to_owned(),
        "frame-ancestors 'none'".to_owned(),
    ]
    .join("; ")
}

/// Browser features the pages do not use are off; payment only for the app and iamport's
/// payment window.
pub const PERMISSIONS_POLICY: &str =
    "camera=(), microphone=(), geolocation=(), payment=(self \"https://service.iamport.kr\")";

/// HSTS, for a node whose public origin is https.
pub const STRICT_TRANSPORT_SECURITY: &str = "max-age=31536000; includeSubDomains";

/// The headers every answer of the node carries, whoever writes it (the app, or hyper
/// itself: see `listener`).
pub fn answer_headers(config: &Config) -> Vec<(&'static str, String)> {
    let mut headers = vec![
        ("x-content-type-options", "nosniff".to_owned()),
        ("x-frame-options", "DENY".to_owned()),
        ("referrer-policy", "same-origin".to_owned()),
        (
            "content-security-policy",
            content_security_policy(&config.public_origins),
        ),
        ("permissions-policy", PERMISSIONS_POLICY.to_owned()),
    ];
    // Only over https: a browser told so by a plain-http origin would refuse it later.
    if config.secure_cookies() {
        headers.push((
            "strict-transport-security",
            STRICT_TRANSPORT_SECURITY.to_owned(),
        ));
    }
    headers
}

/// The largest request body the API reads.
pub const BODY_MAX: usize = 64 * 1024;

/// The longest path and query a node reads.
pub const URI_MAX: usize = 8 * 1024;

/// Reads a request's body before its handler runs: refuses one larger than [`BODY_MAX`]
/// (at once when its declared length says so) and one that does not arrive within the
/// `timeout` (a client sending slowly to hold a connection).
pub async fn limit_body<E: Endpoint>(
    next: E,
    mut req: Request,
    timeout: Duration,
    cut: Counter,
) -> poem::Result<Response> {
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    match declared {
        Some(n) if n > BODY_MAX as u64 => {
            return Ok(ApiError::from(ErrorCode::PayloadTooLarge).into_response());
        }
        Some(0) => {}
        // A declared length, or none (a body in chunks, or no body).
        Some(_) | None => {
            let read = req.take_body().into_bytes_limit(BODY_MAX);
            match tokio::time::timeout(timeout, read).await {
                Ok(Ok(bytes)) => req.set_body(Body::from_bytes(bytes)),
                Ok(Err(ReadBodyError::PayloadTooLarge)) => {
                    return Ok(ApiError::from(ErrorCode::PayloadTooLarge).into_response());
                }
                Ok(Err(_)) => return Ok(ApiError::from(ErrorCode::InvalidRequest).into_response()),
                Err(_) => {
                    cut.inc();
                    let mut answer = ApiError::from(ErrorCode::RequestTimeout).into_response();
                    // The rest of the body may still come: the connection is not reused.
                    answer
                        .headers_mut()
                        .insert(header::CONNECTION, HeaderValue::from_static("close"));
                    return Ok(answer);
                }
            }
        }
    }
    next.call(req).await.map(IntoResponse::into_response)
}

/// Refuses a path and query longer than [`URI_MAX`] before anything reads them.
pub async fn limit_uri<E: Endpoint>(next: E, req: Request) -> poem::Result<Response> {
    let length = req.uri().path_and_query().map_or(0, |p| p.as_str().len());
    if length > URI_MAX {
        return Ok(ApiError::from(ErrorCode::UriTooLong).into_response());
    }
    next.call(req).await.map(IntoResponse::into_response)
}

/// Refuses state changes from foreign origins, before any handler runs.
pub async fn check_origin<E: Endpoint>(next: E, req: Request) -> poem::Result<Response> {
    let safe = matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    if !safe {
        let allowed = req
            .data::<AppState>()
            .map(|s| s.config.public_origins.clone())
            .unwrap_or_default();
        if !origin_allowed(&req, &allowed) {
            return Ok(ApiError::from(ErrorCode::ForbiddenOrigin).into_response());
        }
    }
    next.call(req).await.map(IntoResponse::into_response)
}

/// A counter's name, limit and window.
type Counted = (String, u32, Duration);

/// The counters of a back-off: one per step, `<scope>:fail:<window>s:<subject>`.
fn backoff(scope: &str, subject: &str, steps: &[(u32, Duration)]) -> Vec<Counted> {
    steps
        .iter()
        .map(|&(limit, window)| {
            let key = format!("{scope}:fail:{}s:{subject}", window.as_secs());
            (key, limit, window)
        })
        .collect()
}

/// `counted` as the engine's limits take them.
fn as_limits(counted: &[Counted]) -> impl Iterator<Item = (&str, u32, Duration)> {
    counted
        .iter()
        .map(|(key, limit, window)| (key.as_str(), *limit, *window))
}

/// The counts of one try of a secret (a password, a one-time code), taken before it is
/// checked so that tries at once on several nodes cannot pass together. A try that
/// succeeds hands them to [`AppState::tries_succeeded`].
#[derive(Debug)]
pub struct Tries {
    /// Counts a success takes back (the address's own count of failures).
    refund: Vec<String>,
    /// Back-offs a success starts over.
    clear: Vec<String>,
}

impl AppState {
    /// Counts a password try for `username` from address `ip`: per address (`LOGIN_PER_IP`
    /// in `LOGIN_WINDOW`), and per username from that address with the `LOGIN_BACKOFF`.
    /// A stranger who fails for a username holds back only their own address, never the
    /// owner's. `scope` keeps the counts of users' and operators' logins apart.
    pub async fn count_password_try(
        &self,
        scope: &str,
        ip: &str,
        username: &str,
    ) -> Result<Tries, ApiError> {
        let ip_key = format!("{scope}:ip:{ip}");
        let clear = backoff(scope, &format!("{username}:{ip}"), &LOGIN_BACKOFF);
        let mut limits = vec![(ip_key.as_str(), LOGIN_PER_IP, LOGIN_WINDOW)];
        limits.extend(as_limits(&clear));
        self.limit_all(&limits, ErrorCode::RateLimited).await?;
        Ok(Tries {
            refund: vec![ip_key],
            clear: clear.into_iter().map(|(key, _, _)| key).collect(),
        })
    }

    /// Counts a user's login try for `username` from the network `ip`, before its password
    /// is checked. From a device that logged in to the account before (`device`), only that
    /// device's own back-off counts. From any other, the network's failures
    /// (`LOGIN_PER_IP`), its back-off for the username (`LOGIN_BACKOFF`) and the username's
    /// back-off from all such devices (`LOGIN_ACCOUNT_BACKOFF`): a guesser spread over many
    /// networks is held back, and so is one behind the owner's address, but not the owner.
    /// Every try of the network is counted first as well (`LOGIN_TRIES_PER_IP`), whatever
    /// comes of it.
    pub async fn count_login_try(
        &self,
        ip: &str,
        username: &str,
        device: Option<&Device>,
    ) -> Result<Tries, ApiError> {
        let mine = |from: &str| backoff("login", &format!("{username}:{from}"), &LOGIN_BACKOFF);
        let (refund, clear): (Vec<Counted>, Vec<Counted>) = match device {
            Some(device) => (Vec::new(), mine(&format!("dev:{}", device.id))),
            None => {
                let mut refund = vec![(format!("login:ip:{ip}"), LOGIN_PER_IP, LOGIN_WINDOW)];
                refund.extend(LOGIN_ACCOUNT_BACKOFF.map(|(limit, window)| {
                    let key = format!("login-account:{}s:{username}", window.as_secs());
                    (key, limit, window)
                }));
                (refund, mine(ip))
            }
        };
        let every = format!("login-try:{ip}");
        let mut limits = vec![(every.as_str(), LOGIN_TRIES_PER_IP, LOGIN_WINDOW)];
        limits.extend(as_limits(&refund).chain(as_limits(&clear)));
        self.limit_all(&limits, ErrorCode::RateLimited).await?;
        Ok(Tries {
            refund: refund.into_iter().map(|(key, _, _)| key).collect(),
            clear: clear.into_iter().map(|(key, _, _)| key).collect(),
        })
    }

    /// Counts one new session of `user_id`, refused past `LOGINS_PER_ACCOUNT` in
    /// `LOGIN_WINDOW`.
    pub async fn count_login(&self, user_id: i64) -> Result<(), ApiError> {
        self.limit(
            &format!("login-ok:{user_id}"),
            LOGINS_PER_ACCOUNT,
            LOGIN_WINDOW,
            ErrorCode::RateLimited,
        )
        .await
    }

    /// Counts a try of `subject`'s one-time code against `backoff`: at most so many wrong
    /// codes in each window (`backoff_steps`), whatever the address.
    pub async fn count_code_try(
        &self,
        scope: &str,
        subject: &str,
        backoff_steps: &[(u32, Duration)],
    ) -> Result<Tries, ApiError> {
        let clear = backoff(scope, subject, backoff_steps);
        let limits: Vec<_> = as_limits(&clear).collect();
        self.limit_all(&limits, ErrorCode::RateLimited).await?;
        Ok(Tries {
            refund: Vec::new(),
            clear: clear.into_iter().map(|(key, _, _)| key).collect(),
        })
    }

    /// The secret was right: the address's count takes the try back, and the back-offs
    /// start over.
    pub async fn tries_succeeded(&self, tries: &Tries) -> Result<(), ApiError> {
        let refund: Vec<&str> = tries.refund.iter().map(String::as_str).collect();
        self.refund(&refund).await;
        for key in &tries.clear {
            self.engine
                .clear(key)
                .await
                .or_internal("clearing a failure counter")?;
        }
        Ok(())
    }

    /// Counts one account look-up (username check, find password, whether a phone or
    /// username is taken at sign-up) of the request's client address, so that usernames and
    /// phone numbers cannot be enumerated quickly.
    pub async fn limit_lookups(&self, req: &Request) -> Result<(), ApiError> {
        let net = client_net(req, self.config.trusted_proxies);
        self.limit(
            &format!("lookup:ip:{net}"),
            LOOKUPS_PER_IP,
            LOOKUP_WINDOW,
            ErrorCode::RateLimited,
        )
        .await
    }

    /// Counts one event under each `(key, limit, window)`, all shared by all nodes. When
    /// any is past its limit the event is refused with `code` and every count taken back:
    /// a refused event counts nowhere. When the engine does not answer, the call fails at
    /// once as unavailable, within the engine's one timeout: taking counts back from an
    /// engine that is away would only wait for it again.
    pub async fn limit_all(
        &self,
        limits: &[(&str, u32, Duration)],
        code: ErrorCode,
    ) -> Result<(), ApiError> {
        for (i, (key, limit, window)) in limits.iter().enumerate() {
            match self.limit_code(key, *limit, *window, code).await {
                Ok(()) => {}
                Err(ErrorCode::Unavailable) => return Err(ErrorCode::Unavailable.into()),
                Err(e) => {
                    let counted: Vec<&str> = limits[..=i].iter().map(|(k, _, _)| *k).collect();
                    self.refund(&counted).await;
                    return Err(e.into());
                }
            }
        }
        Ok(())
    }

    /// Takes back one count of each of `keys`, for an event that did not happen. A failure
    /// is only logged: the count then errs on the safe side until its window ends.
    pub async fn refund(&self, keys: &[&str]) {
        for key in keys {
            if let Err(e) = self.engine.refund(key).await {
                tracing::warn!(key, error = %e, "a rate-limit count could not be taken back");
            }
        }
    }

    /// Counts one event against a limit shared by all nodes; refuses with `code` beyond it.
    pub async fn limit(
        &self,
        key: &str,
        limit: u32,
        window: Duration,
        code: ErrorCode,
    ) -> Result<(), ApiError> {
        Ok(self.limit_code(key, limit, window, code).await?)
    }

    /// [`AppState::limit`] for callers that answer with a bare code (the socket).
    pub async fn limit_code(
        &self,
        key: &str,
        limit: u32,
        window: Duration,
        code: ErrorCode,
    ) -> Result<(), ErrorCode> {
        if self.hit(key, limit, window).await?.allowed {
            Ok(())
        } else {
            Err(code)
        }
    }

    /// Counts one event against a limit shared by all nodes, for callers that need the
    /// count; an event past the limit is logged and counted in the metrics.
    pub async fn hit(&self, key: &str, limit: u32, window: Duration) -> Result<Hit, ErrorCode> {
        let hit = self
            .engine
            .hit(key, limit, window)
            .await
            .map_err(|e| crate::error::internal_code("counting a rate limit", e))?;
        if !hit.allowed {
            tracing::info!(key, count = hit.count, "rate limit reached");
            self.count_limited(key);
        }
        Ok(hit)
    }

    /// Counts one event refused by the limit counted under `key`.
    pub fn count_limited(&self, key: &str) {
        let limit = key.split(':').next().unwrap_or(key).to_owned();
        self.metrics
            .rate_limited
            .get_or_create(&crate::metrics::Limit { limit })
            .inc();
    }
}

#[cfg(test)]
mod tests {
    use poem::http::HeaderValue;
    use poem::Request;

    use super::{client_ip, client_of, content_security_policy, neighbourhood};

    #[test]
    fn an_ipv6_client_is_counted_by_its_56() {
        let cases = [
            ("2001:db8:77:1::5", "2001:db8:77::/56"),
            ("2001:db8:77:ff:1:2:3:4", "2001:db8:77::/56"),
            ("2001:db8:77:100::1", "2001:db8:77:100::/56"),
            ("::ffff:203.0.113.5", "203.0.113.5"),
            ("203.0.113.5", "203.0.113.5"),
            ("unknown", "unknown"),
        ];
        for (ip, net) in cases {
            assert_eq!(neighbourhood(ip), net, "{ip}");
        }
    }

    #[test]
    fn a_forwarded_entry_that_is_not_text_keeps_its_place() {
        let req = Request::builder()
            .header(
                "x-forwarded-for",
                HeaderValue::from_bytes(b"\xff\xfe garbage, 203.0.113.5").unwrap(),
            )
            .finish();
        assert_eq!(client_ip(&req, 1), "203.0.113.5");
        // What the proxy appended is always an address; a client's word never is taken for it.
        let req = Request::builder()
            .header("x-forwarded-for", "203.0.113.5, not-an-address")
            .finish();
        assert_eq!(client_ip(&req, 1), "unknown");
    }

    #[test]
    fn sockets_go_to_our_own_origins_in_kind() {
        let csp = content_security_policy(&[
            "https://telepathy.example".to_owned(),
            "http://localhost:5173".to_owned(),
            "https://telepathy.example".to_owned(),
        ]);
        assert!(
            csp.contains("connect-src 'self' wss://telepathy.example ws://localhost:5173 "),
            "{csp}"
        );
        assert!(!csp.contains('\n') && !csp.contains("  "), "{csp}");
    }

    #[test]
    fn the_client_is_counted_from_the_right() {
        let peer = "10.0.0.9";
        // (X-Forwarded-For entries, trusted proxies, client)
        let cases: &[(&[&str], usize, &str)] = &[
            (&[], 0, peer),
            (&["203.0.113.5"], 0, peer),
            (&[], 1, peer),
            (&["203.0.113.5"], 1, "203.0.113.5"),
            (&["6.6.6.6", "203.0.113.5"], 1, "203.0.113.5"),
            (&["6.6.6.6", " 203.0.113.5 "], 1, "203.0.113.5"),
            (&["6.6.6.6", "203.0.113.5", "10.0.0.2"], 2, "203.0.113.5"),
            (&["203.0.113.5", "10.0.0.2"], 2, "203.0.113.5"),
            (&["203.0.113.5"], 2, "203.0.113.5"),
            (&["203.0.113.5"], 5, "203.0.113.5"),
            (&[], 3, peer),
            (&["6.6.6.6", "", "203.0.113.5"], 1, "203.0.113.5"),
            (&["6.6.6.6", "203.0.113.5", " "], 1, "203.0.113.5"),
        ];
        for (forwarded, trusted, client) in cases {
            assert_eq!(
                client_of(forwarded, peer, *trusted),
                *client,
                "{forwarded:?} behind {trusted}"
            );
        }
    }
}
