//! Password hashing: argon2id with the OWASP minimum (19 MiB, 2 passes, 1 lane).
//!
//! Hashing is slow and memory-hungry on purpose, so it runs on a small fixed pool of
//! threads (one per core) instead of the async runtime's blocking pool. A burst of logins
//! then waits in line rather than running hundreds of 19 MiB hashes at once, and each
//! worker keeps reusing its own memory: measured with `loadtest`, the server's resident
//! memory grew to 7 GB under 60 logins/s without the pool (see loadtest/RESULTS.md).

use std::sync::mpsc;
use std::sync::{Arc, Mutex, OnceLock};

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use tokio::sync::oneshot;

type Job = Box<dyn FnOnce() + Send>;

fn argon2() -> Argon2<'static> {
    let params = Params::new(19 * 1024, 2, 1, None).unwrap_or_default();
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// The hashing workers, started on first use.
fn pool() -> &'static mpsc::Sender<Job> {
    static POOL: OnceLock<mpsc::Sender<Job>> = OnceLock::new();
    POOL.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<Job>();
        let rx = Arc::new(Mutex::new(rx));
        let workers = std::thread::available_parallelism()
            .map_or(2, |n| n.get())
            .clamp(1, 8);
        for i in 0..workers {
            let rx = Arc::clone(&rx);
            let spawned = std::thread::Builder::new()
                .name(format!("argon2-{i}"))
                .spawn(move || loop {
                    let job = {
                        let guard = rx.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                        guard.recv()
                    };
                    match job {
                        Ok(job) => job(),
                        Err(_) => break,
                    }
                });
            if let Err(e) = spawned {
                tracing::error!(error = %e, "starting a hashing thread");
            }
        }
        tx
    })
}

/// Runs `work` on a hashing thread and waits for its result.
async fn on_pool<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> anyhow::Result<T> {
    let (tx, rx) = oneshot::channel();
    pool()
        .send(Box::new(move || {
            let _ = tx.send(work());
        }))
        .map_err(|_| anyhow::anyhow!("the hashing threads are gone"))?;
    Ok(rx.await?)
}

/// Hashes a password into its PHC string.
pub async fn hash(password: String) -> anyhow::Result<String> {
    on_pool(move || {
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
    on_pool(move || {
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
    static DUMMY: OnceLock<String> = OnceLock::new();
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

    #[tokio::test]
    async fn many_hashes_at_once_all_finish() {
        let tasks: Vec<_> = (0..12)
            .map(|i| tokio::spawn(super::hash(format!("pass{i}word"))))
            .collect();
        for t in tasks {
            assert!(t.await.unwrap().unwrap().starts_with("$argon2id$"));
        }
    }
}
