//! The WebSocket client of the socket scenarios: `/ws` with the session cookie and an
//! Origin, opened from one of several loopback source addresses so that a run is not held
//! to the ephemeral ports of one address; small buffers, no compression; JSON text frames
//! `{"event": NAME, "data": {...}}`.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use anyhow::{bail, Context};
use reqwest::Url;
use serde::Deserialize;
use serde_json::Value;
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::WebSocketStream;

pub type Ws = WebSocketStream<TcpStream>;

/// TCP connect and upgrade together.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(20);

/// Where one url's sockets go.
#[derive(Debug, Clone)]
pub struct Target {
    pub addr: SocketAddr,
    /// `ws://host:port/ws`.
    pub ws_url: String,
    /// `http://host:port`, the Origin header by default.
    pub origin: String,
}

impl Target {
    /// Resolves `url` (already checked to be on this machine).
    pub async fn resolve(url: &Url) -> anyhow::Result<Self> {
        let host = url.host_str().context("the url has no host")?;
        let port = url.port_or_known_default().context("the url has no port")?;
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        let addr = match bare.parse::<IpAddr>() {
            Ok(ip) => SocketAddr::new(ip, port),
            Err(_) => tokio::net::lookup_host((bare, port))
                .await
                .with_context(|| format!("resolving {host}"))?
                .find(|a| a.ip().is_loopback())
                .with_context(|| format!("{host} resolves to no loopback address"))?,
        };
        if !addr.ip().is_loopback() {
            bail!("{url} is not on this machine");
        }
        if url.scheme() != "http" {
            bail!("{url}: the socket scenarios speak plain ws://, so the url must be http://");
        }
        let origin = url.origin().ascii_serialization();
        Ok(Self {
            addr,
            ws_url: format!("ws://{}/ws", url.authority()),
            origin,
        })
    }
}

/// Client source addresses 127.0.0.(offset + 2) onwards, `count` of them, up to 127.0.0.251.
pub fn source_addrs(offset: usize, count: usize) -> Vec<Ipv4Addr> {
    (offset.min(250)..(offset + count).min(250))
        .map(|k| Ipv4Addr::new(127, 0, 0, 2 + k as u8))
        .collect()
}

/// Ephemeral ports one source address offers (`ip_local_port_range`), less a margin.
pub fn ports_per_address() -> usize {
    let range = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|s| {
            let mut it = s.split_whitespace().map(|x| x.parse::<usize>().ok());
            Some((it.next()??, it.next()??))
        })
        .unwrap_or((32768, 60999));
    (range.1.saturating_sub(range.0) + 1)
        .saturating_sub(2000)
        .max(1000)
}

/// Source addresses a run of `sockets` needs: each address gives its ephemeral ports.
pub fn default_source_addrs(sockets: usize) -> usize {
    sockets.div_ceil(ports_per_address()).clamp(1, 250)
}

/// Raises the open-file limit to fit `sockets` (as root the hard limit too); the limit now.
pub fn raise_nofile(sockets: usize) -> u64 {
    let want = sockets as u64 + 4096;
    let (soft, hard) = rlimit::Resource::NOFILE.get().unwrap_or((1024, 1024));
    if soft >= want {
        return soft;
    }
    if rlimit::Resource::NOFILE.set(want, hard.max(want)).is_err() {
        let _ = rlimit::increase_nofile_limit(want);
    }
    rlimit::Resource::NOFILE.get().map(|l| l.0).unwrap_or(soft)
}

/// Opens `/ws` from `source` (none: the kernel chooses), within [`CONNECT_TIMEOUT`]. The
/// error is a short kind for the report: `HTTP 401`, `connect: Connection refused`, …
pub async fn connect(
    target: &Target,
    source: Option<Ipv4Addr>,
    origin: &str,
    cookie: &str,
) -> Result<Ws, String> {
    tokio::time::timeout(CONNECT_TIMEOUT, open(target, source, origin, cookie))
        .await
        .unwrap_or_else(|_| Err("timeout".to_owned()))
}

async fn open(
    target: &Target,
    source: Option<Ipv4Addr>,
    origin: &str,
    cookie: &str,
) -> Result<Ws, String> {
    let socket = match target.addr {
        SocketAddr::V4(_) => TcpSocket::new_v4(),
        SocketAddr::V6(_) => TcpSocket::new_v6(),
    }
    .map_err(|e| format!("socket: {}", io_kind(&e)))?;
    if let (Some(ip), SocketAddr::V4(_)) = (source, target.addr) {
        // Ports in TIME_WAIT from an earlier run may be taken again.
        let _ = socket.set_reuseaddr(true);
        socket
            .bind(SocketAddr::new(IpAddr::V4(ip), 0))
            .map_err(|e| format!("bind {ip}: {}", io_kind(&e)))?;
    }
    let stream = socket
        .connect(target.addr)
        .await
        .map_err(|e| format!("connect: {}", io_kind(&e)))?;
    let _ = stream.set_nodelay(true);
    let mut request = target
        .ws_url
        .as_str()
        .into_client_request()
        .map_err(|e| format!("request: {e}"))?;
    let headers = request.headers_mut();
    headers.insert(
        "origin",
        HeaderValue::from_str(origin).map_err(|_| "bad origin".to_owned())?,
    );
    headers.insert(
        "cookie",
        HeaderValue::from_str(cookie).map_err(|_| "bad cookie".to_owned())?,
    );
    // Small buffers: a run holds up to 120,000 sockets; frames here are at most a few KiB.
    let config = WebSocketConfig::default()
        .read_buffer_size(4096)
        .write_buffer_size(0)
        .max_message_size(Some(1 << 20))
        .max_frame_size(Some(1 << 20));
    match tokio_tungstenite::client_async_with_config(request, stream, Some(config)).await {
        Ok((ws, _)) => Ok(ws),
        Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => {
            Err(format!("HTTP {}", resp.status().as_u16()))
        }
        Err(tokio_tungstenite::tungstenite::Error::Io(e)) => {
            Err(format!("upgrade: {}", io_kind(&e)))
        }
        Err(e) => Err(format!("upgrade: {e}")),
    }
}

fn io_kind(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        // EADDRNOTAVAIL and EMFILE say what to change.
        Some(99) => "no free port on this source address (more --source-addrs)".to_owned(),
        Some(24) => "too many open files (ulimit -n)".to_owned(),
        _ => e.kind().to_string(),
    }
}

/// A frame's text.
pub fn frame(event: &str, data: Value) -> String {
    serde_json::json!({ "event": event, "data": data }).to_string()
}

/// An incoming frame: its name, and data read later by kind.
#[derive(Debug, Deserialize)]
pub struct Incoming {
    pub event: String,
    #[serde(default)]
    pub data: Value,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HelloIn {
    pub user_id: i64,
    #[serde(default)]
    pub room_id: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct OnlineCountIn {
    pub count: u64,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MatchedIn {
    pub room_id: String,
    #[serde(default)]
    pub word: Option<String>,
    pub sender_id: i64,
    pub receiver_id: i64,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatIn {
    pub room_id: String,
    pub sender_id: i64,
    pub message: String,
    /// Unix milliseconds of the server.
    #[serde(default)]
    pub timestamp: Option<i64>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RoomRefIn {
    #[serde(default)]
    pub room_id: Option<String>,
    #[serde(default)]
    pub user_id: Option<i64>,
}

#[derive(Debug, Deserialize)]
pub struct ErrorIn {
    #[serde(default)]
    pub event: Option<String>,
    #[serde(default)]
    pub code: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_source_addresses() {
        assert_eq!(default_source_addrs(1), 1);
        let per = ports_per_address();
        assert_eq!(default_source_addrs(per), 1);
        assert_eq!(default_source_addrs(per + 1), 2);
        let addrs = source_addrs(0, 3);
        assert_eq!(addrs[0], Ipv4Addr::new(127, 0, 0, 2));
        assert_eq!(addrs[2], Ipv4Addr::new(127, 0, 0, 4));
        assert_eq!(source_addrs(0, 400).len(), 250);
        assert!(source_addrs(0, 250).iter().all(|a| a.is_loopback()));
        assert_eq!(
            source_addrs(5, 2),
            [Ipv4Addr::new(127, 0, 0, 7), Ipv4Addr::new(127, 0, 0, 8)]
        );
    }

    #[tokio::test]
    async fn resolves_loopback_targets() {
        let t = Target::resolve(&Url::parse("http://127.0.0.1:8081/").unwrap())
            .await
            .unwrap();
        assert_eq!(t.ws_url, "ws://127.0.0.1:8081/ws");
        assert_eq!(t.origin, "http://127.0.0.1:8081");
        assert!(Target::resolve(&Url::parse("https://127.0.0.1/").unwrap())
            .await
            .is_err());
    }

    #[test]
    fn frames_are_json_text() {
        let f = frame("join_match", serde_json::json!({"word": "봄", "round": 3}));
        let back: Incoming = serde_json::from_str(&f).unwrap();
        assert_eq!(back.event, "join_match");
        assert_eq!(back.data["word"], "봄");
    }

    #[test]
    fn raises_the_open_file_limit() {
        let limit = raise_nofile(100);
        assert!(limit >= 1024, "{limit}");
    }
}
