//! Personal data kept sealed at rest: AES-256-GCM under the deployment's data key
//! (`TELEPATHY_DATA_KEY`), a fresh random 96-bit nonce per value stored beside its
//! ciphertext. Whoever reads the database without the key learns nothing of the value.

use aes_gcm::aead::{Aead, KeyInit, OsRng};
use aes_gcm::{AeadCore, Aes256Gcm, Key, Nonce};
use base64::Engine as _;
use sha2::{Digest, Sha256};

/// The version mark of the sealed format: `v1:` and base64 of nonce and ciphertext.
const PREFIX: &str = "v1:";
const NONCE_LEN: usize = 12;

/// The data key. Never printed.
#[derive(Clone)]
pub struct DataKey(Key<Aes256Gcm>);

impl std::fmt::Debug for DataKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DataKey(***)")
    }
}

/// A value that could not be sealed, or a sealed value that cannot be opened (another
/// key, or damaged).
#[derive(Debug, thiserror::Error)]
#[error("sealing or opening a value failed (another data key, or damaged)")]
pub struct Unsealable;

impl DataKey {
    /// A key given as base64 of 32 bytes.
    pub fn from_base64(text: &str) -> Result<Self, String> {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(text.trim())
            .map_err(|_| "is not base64".to_owned())?;
        if bytes.len() != 32 {
            return Err(format!("is {} bytes, not 32", bytes.len()));
        }
        Ok(Self(*Key::<Aes256Gcm>::from_slice(&bytes)))
    }

    /// The fixed key of demo mode, which holds no real person's data.
    pub fn demo() -> Self {
        let bytes = Sha256::digest(b"telepathy demo data key");
        Self(*Key::<Aes256Gcm>::from_slice(&bytes))
    }

    /// A key for another `purpose` (signing, say) derived from this one: whoever holds one
    /// derived key learns nothing of the data key.
    pub fn derive(&self, purpose: &str) -> [u8; 32] {
        let mut hasher = Sha256::new();
        hasher.update(purpose.as_bytes());
        hasher.update([0]);
        hasher.update(self.0.as_slice());
        hasher.finalize().into()
    }

    /// `plain`, sealed. (Encryption fails only past GCM's length limit, gigabytes.)
    pub fn seal(&self, plain: &str) -> Result<String, Unsealable> {
        let cipher = Aes256Gcm::new(&self.0);
        let nonce = Aes256Gcm::generate_nonce(&mut OsRng);
        let sealed = cipher
            .encrypt(&nonce, plain.as_bytes())
            .map_err(|_| Unsealable)?;
        let mut bytes = nonce.to_vec();
        bytes.extend_from_slice(&sealed);
        Ok(format!(
            "{PREFIX}{}",
            base64::engine::general_purpose::STANDARD.encode(bytes)
        ))
    }

    /// Whether `text` is in the sealed format (it may still not open with this key).
    pub fn is_sealed(text: &str) -> bool {
        text.starts_with(PREFIX)
    }

    /// The value `sealed` holds.
    pub fn open(&self, sealed: &str) -> Result<String, Unsealable> {
        let body = sealed.strip_prefix(PREFIX).ok_or(Unsealable)?;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(body)
            .map_err(|_| Unsealable)?;
        if bytes.len() <= NONCE_LEN {
            return Err(Unsealable);
        }
        let (nonce, ciphertext) = bytes.split_at(NONCE_LEN);
        let plain = Aes256Gcm::new(&self.0)
            .decrypt(Nonce::from_slice(nonce), ciphertext)
            .map_err(|_| Unsealable)?;
        String::from_utf8(plain).map_err(|_| Unsealable)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_values_open_only_with_their_key_and_never_repeat() {
        let key = DataKey::demo();
        let a = key.seal("110123456789").unwrap();
        let b = key.seal("110123456789").unwrap();
        assert_ne!(a, b, "a fresh nonce each time");
        assert!(!a.contains("110123456789"));
        assert_eq!(key.open(&a).unwrap(), "110123456789");
        let other =
            DataKey::from_base64(&base64::engine::general_purpose::STANDARD.encode([7u8; 32]))
                .unwrap();
        assert!(other.open(&a).is_err());
        let mut damaged = a.clone();
        damaged.replace_range(10..11, if &a[10..11] == "A" { "B" } else { "A" });
        assert!(key.open(&damaged).is_err());
        assert!(key.open("110123456789").is_err());
        assert_eq!(format!("{key:?}"), "DataKey(***)");
    }

    #[test]
    fn keys_are_32_bytes_of_base64() {
        assert!(DataKey::from_base64("not base64!").is_err());
        assert!(DataKey::from_base64("AAAA").is_err());
        let ok = base64::engine::general_purpose::STANDARD.encode([1u8; 32]);
        assert!(DataKey::from_base64(&ok).is_ok());
    }
}
