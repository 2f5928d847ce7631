//! What guards the service and its users: client addresses, the Origin rule and the
//! operators-only guard, here; the rate limits over the shared engine (`limits`), the
//! device cookie (`devices`), password hashing (`passwords`), sealing of personal data at
//! rest (`sealing`) and the operators' second factor (`totp`).

pub mod devices;
pub mod limits;
pub mod passwords;
pub mod sealing;
pub mod totp;

use std::net::{IpAddr, Ipv6Addr, SocketAddr};

use poem::http::header;
use poem::Request;
use sha2::{Digest, Sha256};
use telepathy_providers::Secret;

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
        .and_then(|a| address_of(a))
        .map_or_else(|| peer.to_owned(), |ip| ip.to_string())
}

/// The address of one X-Forwarded-For entry: an address alone, or with the port some
/// proxies add (`203.0.113.14:5555`, `[2001:db8::14]:443`), which names the same client.
fn address_of(entry: &str) -> Option<IpAddr> {
    entry
        .parse::<IpAddr>()
        .ok()
        .or_else(|| entry.parse::<SocketAddr>().ok().map(|a| a.ip()))
        .or_else(|| {
            let bracketed = entry.strip_prefix('[')?.strip_suffix(']')?;
            bracketed.parse::<Ipv6Addr>().ok().map(IpAddr::V6)
        })
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

#[cfg(test)]
mod tests {
    use poem::http::HeaderValue;
    use poem::Request;

    use super::{client_ip, client_of, neighbourhood};

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
            // A proxy that adds the client's port names the same client.
            (&["203.0.113.14:5555"], 1, "203.0.113.14"),
            (&["6.6.6.6", "[2001:db8::14]:443"], 1, "2001:db8::14"),
            (&["[2001:db8::14]"], 1, "2001:db8::14"),
            (&["203.0.113.14:notaport"], 1, peer),
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
