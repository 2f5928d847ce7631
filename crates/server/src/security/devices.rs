//! Devices that logged in before: a signed cookie that a login or sign-up leaves in the
//! browser (OWASP's "device cookie"). A device that holds one for an account is not held
//! back by the limits a stranger trips for that account or shares with the device's
//! address, so neither a guesser spread over many addresses nor a neighbour behind the
//! same address locks the owner out. The cookie names the account and a random device id,
//! signed with a key derived from the data key, so any node checks it without a look-up.

use base64::Engine as _;
use hmac::{Hmac, Mac};
use poem::web::cookie::{Cookie, CookieJar, SameSite};
use poem::Request;
use rand::RngCore;
use sha2::Sha256;
use telepathy_domain::limits::DEVICE_TRUST;

use std::sync::Arc;

use crate::clock::Clock;
use crate::security::sealing::DataKey;

/// Name of the device cookie.
pub const COOKIE: &str = "tp_device";

/// What the device key is derived for.
const PURPOSE: &str = "telepathy device cookie v1";

/// A device that logged in to an account before.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Device {
    pub user_id: i64,
    /// Random, one per cookie issued: what the device's own counts are kept under.
    pub id: String,
}

/// The device cookies of a node: their signing key, cut from the data key.
#[derive(Clone)]
pub struct Devices {
    key: [u8; 32],
    clock: Arc<dyn Clock>,
    secure_cookies: bool,
}

impl Devices {
    pub fn new(data_key: &DataKey, clock: Arc<dyn Clock>, secure_cookies: bool) -> Self {
        Self {
            key: data_key.derive(PURPOSE),
            clock,
            secure_cookies,
        }
    }

    /// The device of the request, if it carries a valid, unexpired device cookie for
    /// `user_id`.
    pub fn trusted_device(&self, req: &Request, user_id: i64) -> Option<Device> {
        let cookie = req.cookie().get(COOKIE)?;
        let device = self.open_device(cookie.value_str())?;
        (device.user_id == user_id).then_some(device)
    }

    /// Leaves a fresh device cookie for `user_id` in the browser.
    pub fn mark_device(&self, cookies: &CookieJar, user_id: i64) {
        let mut nonce = [0u8; 12];
        rand::rngs::OsRng.fill_bytes(&mut nonce);
        let body = format!("{user_id}.{}.{}", hex::encode(nonce), self.clock.now_ms());
        let Some(mut mac) = self.device_mac() else {
            return;
        };
        mac.update(body.as_bytes());
        let tag =
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes());
        let mut cookie = Cookie::new_with_str(COOKIE, format!("{body}.{tag}"));
        cookie.set_http_only(true);
        cookie.set_same_site(SameSite::Lax);
        cookie.set_secure(self.secure_cookies);
        cookie.set_path("/api/");
        cookie.set_max_age(DEVICE_TRUST);
        cookies.add(cookie);
    }

    /// The signer of device cookies. (An HMAC takes a key of any length: never `None`.)
    fn device_mac(&self) -> Option<Hmac<Sha256>> {
        Hmac::<Sha256>::new_from_slice(&self.key).ok()
    }

    fn open_device(&self, value: &str) -> Option<Device> {
        let (body, tag) = value.rsplit_once('.')?;
        let mut mac = self.device_mac()?;
        mac.update(body.as_bytes());
        let tag = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(tag)
            .ok()?;
        // Compared in constant time.
        mac.verify_slice(&tag).ok()?;
        let mut parts = body.split('.');
        let (user_id, id, issued) = (parts.next()?, parts.next()?, parts.next()?);
        let issued: i64 = issued.parse().ok()?;
        let life = i64::try_from(DEVICE_TRUST.as_millis()).unwrap_or(i64::MAX);
        if self.clock.now_ms() > issued.saturating_add(life) {
            return None;
        }
        Some(Device {
            user_id: user_id.parse().ok()?,
            id: id.to_owned(),
        })
    }
}
