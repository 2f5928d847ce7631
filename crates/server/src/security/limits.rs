//! Rate limits over the shared engine: every count is shared by all nodes, so a limit
//! holds however the load balancer spreads the requests. Password and code tries, logins,
//! account look-ups, and the counts other areas keep under their own keys.

use std::sync::Arc;
use std::time::Duration;

use poem::Request;
use telepathy_domain::limits::{
    LOGINS_PER_ACCOUNT, LOGIN_ACCOUNT_BACKOFF, LOGIN_BACKOFF, LOGIN_PER_IP, LOGIN_TRIES_PER_IP,
    LOGIN_WINDOW, LOOKUPS_PER_IP, LOOKUP_WINDOW,
};
use telepathy_domain::ErrorCode;
use telepathy_engine::{Engine, Hit};

use super::client_net;
use super::devices::Device;
use crate::error::{ApiError, OrInternal};
use crate::metrics::Metrics;

/// The rate limits of a node, with the handles they need.
#[derive(Clone)]
pub struct Limits {
    pub engine: Arc<dyn Engine>,
    pub metrics: Arc<Metrics>,
    /// How many proxies in front of the nodes append to X-Forwarded-For (see
    /// `security::client_of`).
    pub trusted_proxies: usize,
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
/// succeeds hands them to [`Limits::tries_succeeded`].
#[derive(Debug)]
pub struct Tries {
    /// Counts a success takes back (the address's own count of failures).
    refund: Vec<String>,
    /// Back-offs a success starts over.
    clear: Vec<String>,
}

impl Limits {
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

    /// Takes back the count of a login `count_login` counted that did not happen.
    pub async fn uncount_login(&self, user_id: i64) {
        self.refund(&[&format!("login-ok:{user_id}")]).await;
    }

    /// Takes back what a try counted when its secret was never checked (the hashing line
    /// was full): the try did not happen.
    pub async fn tries_not_checked(&self, tries: &Tries) {
        let keys: Vec<&str> = tries
            .refund
            .iter()
            .chain(&tries.clear)
            .map(String::as_str)
            .collect();
        self.refund(&keys).await;
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
        let net = client_net(req, self.trusted_proxies);
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

    /// [`Limits::limit`] for callers that answer with a bare code (the socket).
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
