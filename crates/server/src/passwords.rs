//! Password hashing: argon2id with the OWASP minimum (19 MiB, 2 passes, 1 lane), run off
//! the async threads because it is slow on purpose.

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};

fn argon2() -> Argon2<'static> {
    let params = Params::new(19 * 1024, 2, 1, None).unwrap_or_default();
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// Hashes a password into its PHC string.
pub async fn hash(password: String) -> anyhow::Result<String> {
    tokio::task::spawn_blocking(move || {
        let salt = SaltString::generate(&mut OsRng);
        argon2()
            .hash_password(password.as_bytes(), &salt)
            .map(|h| h.to_string())
            .map_err(|e| anyhow::anyhow!("hashing a password: {e}"))
    })
    .await?
}

/// Whether `password` matches `phc`. With no stored hash a dummy one is checked, so that
/// an unknown username takes as long as a wrong password.
pub async fn verify(password: String, phc: Option<String>) -> bool {
    tokio::task::spawn_blocking(move || {
        let known = phc.is_some();
        let phc = match phc {
            Some(phc) => phc,
            None => dummy_hash().to_owned(),
        };
        match PasswordHash::new(&phc) {
            Ok(parsed) => {
                argon2()
                    .verify_password(password.as_bytes(), &parsed)
                    .is_ok()
                    && known
            }
            Err(_) => false,
        }
    })
    .await
    .unwrap_or(false)
}

/// The hash of a random string nobody knows, made once.
fn dummy_hash() -> &'static str {
    static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DUMMY.get_or_init(|| {
        let salt = SaltString::generate(&mut OsRng);
        let secret = SaltString::generate(&mut OsRng);
        argon2()
            .hash_password(secret.as_str().as_bytes(), &salt)
            .map(|h| h.to_string())
            .unwrap_or_default()
    })
}

#[cfg(test)]
mod tests {
    #[tokio::test]
    async fn hashes_verify() {
        let h = super::hash("abcdefg1".into()).await.unwrap();
        assert!(h.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"));
        assert!(super::verify("abcdefg1".into(), Some(h.clone())).await);
        assert!(!super::verify("abcdefg2".into(), Some(h)).await);
        assert!(!super::verify("anything".into(), None).await);
    }
}
