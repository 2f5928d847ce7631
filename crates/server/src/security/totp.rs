//! The operators' second factor: RFC 6238 time-based one-time codes (HMAC-SHA-1, 6
//! digits, 30-second steps, one step of clock drift either way), the codes every
//! authenticator app makes. Which step a code belongs to is returned, so that the caller
//! can accept each step once. The secrets are kept sealed with the deployment's data key
//! (`sealing`): a copy of the database alone cannot make codes.

use anyhow::Context;
use rand::RngCore;
use telepathy_store::Store;
use totp_rs::{Algorithm, Secret, TOTP};

use crate::security::sealing::DataKey;

/// The issuer authenticator apps show beside the operator's username.
pub const ISSUER: &str = "Telepathy";
const DIGITS: usize = 6;
const STEP_SECS: u64 = 30;
const SKEW_STEPS: u8 = 1;
/// 160 bits, the length RFC 4226 recommends.
const SECRET_BYTES: usize = 20;

/// A fresh secret from the OS's generator, in base32 (what apps and the database take).
pub fn new_secret() -> String {
    let mut bytes = [0u8; SECRET_BYTES];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    Secret::Raw(bytes.to_vec()).to_encoded().to_string()
}

/// A secret as the database keeps it.
pub fn seal(key: &DataKey, secret: &str) -> anyhow::Result<String> {
    key.seal(secret).context("sealing a TOTP secret")
}

/// The secret a stored value holds.
pub fn open(key: &DataKey, stored: &str) -> anyhow::Result<String> {
    key.open(stored)
        .context("opening a TOTP secret (was TELEPATHY_DATA_KEY changed?)")
}

/// Seals the secrets stored in the clear (kept so before they were sealed); answers how
/// many. Every node does it at start; two at once seal each secret once.
pub async fn seal_stored_secrets(store: &Store, key: &DataKey) -> anyhow::Result<usize> {
    let mut sealed = 0;
    for (operator_id, stored) in store.totp_secrets().await? {
        if DataKey::is_sealed(&stored) {
            continue;
        }
        if store
            .replace_totp_secret(operator_id, &stored, &seal(key, &stored)?)
            .await?
        {
            sealed += 1;
        }
    }
    Ok(sealed)
}

fn totp(secret: &str, account: &str) -> anyhow::Result<TOTP> {
    let bytes = Secret::Encoded(secret.to_owned())
        .to_bytes()
        .map_err(|e| anyhow::anyhow!("a stored TOTP secret is not base32: {e:?}"))?;
    TOTP::new(
        Algorithm::SHA1,
        DIGITS,
        SKEW_STEPS,
        STEP_SECS,
        bytes,
        Some(ISSUER.to_owned()),
        account.to_owned(),
    )
    .context("making a TOTP")
}

/// The time step (Unix seconds / 30) whose code `code` is, among the step of `now_secs`
/// and the one before and after it; `None` for any other code. Spaces are ignored.
pub fn matching_step(
    secret: &str,
    account: &str,
    code: &str,
    now_secs: u64,
) -> anyhow::Result<Option<u64>> {
    let code: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    if code.len() != DIGITS || !code.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(None);
    }
    let totp = totp(secret, account)?;
    let now = now_secs / STEP_SECS;
    let skew = u64::from(SKEW_STEPS);
    Ok((now.saturating_sub(skew)..=now.saturating_add(skew))
        .find(|step| same(totp.generate(step * STEP_SECS).as_bytes(), code.as_bytes())))
}

/// Compares without stopping at the first difference.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// What an operator needs to add the secret to an authenticator app.
#[derive(Debug, Clone)]
pub struct Enrollment {
    /// Base32, for typing in.
    pub secret: String,
    /// `otpauth://totp/Telepathy:<account>?secret=…&issuer=Telepathy`.
    pub uri: String,
    /// The URI as a QR code, an SVG document.
    pub qr_svg: String,
}

pub fn enrollment(secret: &str, account: &str) -> anyhow::Result<Enrollment> {
    let uri = totp(secret, account)?.get_url();
    let qr_svg = qrcode::QrCode::new(uri.as_bytes())
        .context("drawing the enrolment QR code")?
        .render::<qrcode::render::svg::Color>()
        .min_dimensions(200, 200)
        .quiet_zone(true)
        .build();
    Ok(Enrollment {
        secret: secret.to_owned(),
        uri,
        qr_svg,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6238 appendix B's SHA-1 key, "12345678901234567890", in base32.
    const RFC_SECRET: &str = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";

    #[test]
    fn codes_are_rfc_6238_and_drift_one_step() {
        // Appendix B: at T = 59 the 8-digit code is 94287082; six digits keep the last six.
        assert_eq!(
            matching_step(RFC_SECRET, "mina", "287082", 59).unwrap(),
            Some(1)
        );
        // At 1111111109 the code is 07081804: its step, and one step either side of it.
        let step = 1_111_111_109 / 30;
        for now in [1_111_111_109, 1_111_111_109 - 30, 1_111_111_109 + 30] {
            assert_eq!(
                matching_step(RFC_SECRET, "mina", "081804", now).unwrap(),
                Some(step),
                "at {now}"
            );
        }
        for now in [1_111_111_109 - 60, 1_111_111_109 + 60] {
            assert_eq!(
                matching_step(RFC_SECRET, "mina", "081804", now).unwrap(),
                None
            );
        }
        assert_eq!(
            matching_step(RFC_SECRET, "mina", " 081 804 ", 1_111_111_109).unwrap(),
            Some(step)
        );
        for wrong in ["081805", "08180", "0818044", "o81804", ""] {
            assert_eq!(
                matching_step(RFC_SECRET, "mina", wrong, 1_111_111_109).unwrap(),
                None,
                "{wrong:?}"
            );
        }
    }

    #[test]
    fn secrets_are_fresh_and_enrol_by_uri_and_qr() {
        let a = new_secret();
        assert_eq!(a.len(), 32, "160 bits in base32");
        assert_ne!(a, new_secret());
        let e = enrollment(&a, "mina").unwrap();
        assert_eq!(
            e.uri,
            format!("otpauth://totp/Telepathy:mina?secret={a}&issuer=Telepathy")
        );
        assert!(e.qr_svg.contains("<svg"), "{}", e.qr_svg);
        assert!(matching_step("not base32!", "mina", "123456", 0).is_err());
    }
}
