//! Password hashing: argon2id with the OWASP minimum (19 MiB, 2 passes, 1 lane).
//!
//! Hashing is slow and memory-hungry on purpose, so it runs on a small fixed pool of
//! threads (one per core) instead of the async runtime's blocking pool. A burst of logins
//! then waits in line rather than running hundreds of 19 MiB hashes at once, and each
//! worker keeps reusing its own memory: measured with `loadtest`, the server's resident
//! memory grew to 7 GB under 60 logins/s without the pool (see loadtest/RESULTS.md).
//!
//! The line has two lanes. [`Lane::Known`] is for a hash its account's owner asks for as
//! far as a stranger cannot fake it (a login from a browser that logged in to the account
//! before, a logged-in user's change, a sign-up or reset once its phone code is proven,
//! the command line): the workers always take it first, and it waits for nobody else.
//! [`Lane::Other`] is for everything else (logins from new browsers, operators' logins,
//! whose names are not proven by anything before the password) and holds at most
//! [`OTHER_WAITING_PER_WORKER`] waiting hashes per worker; past that a hash is refused at
//! once as [`Busy`] (the client is told to try again shortly) instead of making every
//! later one wait. So a storm of logins from many addresses costs its own lane, and the
//! owners who log in from their own browsers never queue behind it.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use telepathy_domain::ErrorCode;
use tokio::sync::oneshot;

type Job = Box<dyn FnOnce() + Send>;

/// Hashes of the other lane that may wait per worker: at about 25 ms a hash (the release
/// build on one core), a quarter of a second of waiting at most.
pub const OTHER_WAITING_PER_WORKER: usize = 10;

/// Whose hash it is, for its place in line (see the module's doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lane {
    /// The account's owner, as far as a stranger cannot fake it.
    Known,
    /// Anyone else.
    Other,
}

/// The other lane is full: try again shortly.
#[derive(Debug, thiserror::Error)]
#[error("too many password hashes are waiting")]
pub struct Busy;

/// Why a hash was not made.
#[derive(Debug, thiserror::Error)]
pub enum HashError {
    #[error(transparent)]
    Busy(#[from] Busy),
    #[error("hashing a password: {0}")]
    Failed(String),
}

impl From<Busy> for crate::error::ApiError {
    fn from(_: Busy) -> Self {
        ErrorCode::RateLimited.into()
    }
}

impl From<HashError> for crate::error::ApiError {
    fn from(e: HashError) -> Self {
        match e {
            HashError::Busy(busy) => busy.into(),
            HashError::Failed(e) => crate::error::internal("hashing a password", e),
        }
    }
}

fn argon2() -> Argon2<'static> {
    let params = Params::new(19 * 1024, 2, 1, None).unwrap_or_default();
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// The jobs waiting, by lane.
#[derive(Default)]
struct Waiting {
    known: VecDeque<Job>,
    other: VecDeque<Job>,
}

/// The hashing workers and their line.
struct Pool {
    waiting: Mutex<Waiting>,
    ready: Condvar,
    other_max: usize,
}

impl Pool {
    /// Puts `job` in line, or refuses it when its lane is full.
    fn push(&self, lane: Lane, job: Job) -> Result<(), Busy> {
        let mut waiting = self.waiting.lock().unwrap_or_else(PoisonError::into_inner);
        match lane {
            Lane::Known => waiting.known.push_back(job),
            Lane::Other if waiting.other.len() >= self.other_max => return Err(Busy),
            Lane::Other => waiting.other.push_back(job),
        }
        drop(waiting);
        self.ready.notify_one();
        Ok(())
    }

    /// The next job, the known lane's first.
    fn next(&self) -> Job {
        let mut waiting = self.waiting.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(job) = waiting
                .known
                .pop_front()
                .or_else(|| waiting.other.pop_front())
            {
                return job;
            }
            waiting = self
                .ready
                .wait(waiting)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// The hashing workers, started on first use.
fn pool() -> &'static Arc<Pool> {
    static POOL: OnceLock<Arc<Pool>> = OnceLock::new();
    POOL.get_or_init(|| {
        let workers = std::thread::available_parallelism()
            .map_or(2, |n| n.get())
            .clamp(1, 8);
        let pool = Arc::new(Pool {
            waiting: Mutex::default(),
            ready: Condvar::new(),
            other_max: OTHER_WAITING_PER_WORKER * workers,
        });
        for i in 0..workers {
            let pool = Arc::clone(&pool);
            let spawned = std::thread::Builder::new()
                .name(format!("argon2-{i}"))
                .spawn(move || loop {
                    (pool.next())();
                });
            if let Err(e) = spawned {
                tracing::error!(error = %e, "starting a hashing thread");
            }
        }
        pool
    })
}

/// Runs `work` on a hashing thread in `lane` and waits for its result.
async fn on_pool<T: Send + 'static>(
    lane: Lane,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, HashError> {
    let (tx, rx) = oneshot::channel();
    pool().push(
        lane,
        Box::new(move || {
            let _ = tx.send(work());
        }),
    )?;
    rx.await
        .map_err(|_| HashError::Failed("the hashing threads are gone".to_owned()))
}

/// Hashes a password into its PHC string.
pub async fn hash(password: String, lane: Lane) -> Result<String, HashError> {
    on_pool(lane, move || {
        let salt = SaltString::generate(&mut OsRng);
        argon2()
            .hash_password(password.as_bytes(), &salt)
            .map(|h| h.to_string())
            .map_err(|e| HashError::Failed(e.to_string()))
    })
    .await?
}

/// Whether `password` matches `phc`. With no stored hash a dummy one is checked, so that
/// an unknown name takes as long as a wrong password (the operators' login, whose names
/// are not public).
pub async fn verify(password: String, phc: Option<String>, lane: Lane) -> Result<bool, Busy> {
    let checked = on_pool(lane, move || {
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
    .await;
    match checked {
        Ok(right) => Ok(right),
        Err(HashError::Busy(busy)) => Err(busy),
        Err(HashError::Failed(e)) => {
            tracing::error!(error = %e, "checking a password");
            Ok(false)
        }
    }
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
    use super::{Lane, Pool, Waiting};
    use std::sync::{Condvar, Mutex};

    #[tokio::test]
    async fn hashes_verify() {
        let h = super::hash("abcdefg1".into(), Lane::Other).await.unwrap();
        assert!(h.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"));
        let verify = |p: &str, h: Option<String>| super::verify(p.into(), h, Lane::Known);
        assert!(verify("abcdefg1", Some(h.clone())).await.unwrap());
        assert!(!verify("abcdefg2", Some(h)).await.unwrap());
        assert!(!verify("anything", None).await.unwrap());
    }

    #[tokio::test]
    async fn many_hashes_at_once_all_finish() {
        let tasks: Vec<_> = (0..12)
            .map(|i| tokio::spawn(super::hash(format!("pass{i}word"), Lane::Known)))
            .collect();
        for t in tasks {
            assert!(t.await.unwrap().unwrap().starts_with("$argon2id$"));
        }
    }

    /// The known lane goes first and is never refused; the other lane waits up to its
    /// bound and is refused past it.
    #[test]
    fn the_known_lane_goes_first_and_the_other_is_bounded() {
        let pool = Pool {
            waiting: Mutex::new(Waiting::default()),
            ready: Condvar::new(),
            other_max: 2,
        };
        let order = std::sync::Arc::new(Mutex::new(Vec::new()));
        let job = |name: &'static str| -> super::Job {
            let order = std::sync::Arc::clone(&order);
            Box::new(move || order.lock().unwrap().push(name))
        };
        pool.push(Lane::Other, job("other 1")).unwrap();
        pool.push(Lane::Other, job("other 2")).unwrap();
        assert!(pool.push(Lane::Other, job("other 3")).is_err(), "full");
        for _ in 0..3 {
            pool.push(Lane::Known, job("known")).unwrap();
        }
        for _ in 0..5 {
            (pool.next())();
        }
        assert_eq!(
            *order.lock().unwrap(),
            ["known", "known", "known", "other 1", "other 2"]
        );
        pool.push(Lane::Other, job("other 3")).unwrap();
    }
}
