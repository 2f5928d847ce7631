//! What every handler shares: configuration, store, engine, providers, clock, and the
//! node's real-time machinery.

use std::sync::Arc;

use telepathy_engine::{Engine, MemoryEngine, RedisEngine};
use telepathy_providers::{
    CardPayments, DemoCardPayments, DemoIdentity, DemoSms, IdentityVerifier, PortOneIdentity,
    PortOneV1Payments, SmsSender, SolapiSms, VapidKeys, WebPush,
};
use telepathy_store::Store;

use crate::accounts::codes::Codes;
use crate::accounts::safety::Safety;
use crate::accounts::sessions::Sessions;
use crate::clock::{Clock, SharedClock, ShiftedClock, SystemClock};
use crate::config::Config;
use crate::metrics::Metrics;
use crate::payments::Payments;
use crate::realtime::{self, Realtime};
use crate::security::devices::Devices;
use crate::security::limits::Limits;

/// The name of the demo's VAPID private key among the shared keys.
const DEMO_VAPID_KEY: &str = "demo-vapid-private-key";

/// The shared state of one node.
#[derive(Clone)]
pub struct AppState(Arc<Inner>);

pub struct Inner {
    pub config: Config,
    pub store: Store,
    pub engine: Arc<dyn Engine>,
    pub sms: Arc<dyn SmsSender>,
    /// The demo SMS outbox; present only in demo mode.
    pub demo_sms: Option<Arc<DemoSms>>,
    pub identity: Arc<dyn IdentityVerifier>,
    /// Megaphones and word sets.
    pub payments: Payments,
    /// Sends the opening bell's pushes.
    pub push: WebPush,
    pub clock: Arc<dyn Clock>,
    /// The demo's movable clock (the same as `clock`); absent outside demo mode and when
    /// a test brings its own clock.
    pub demo_clock: Option<Arc<ShiftedClock>>,
    /// The time the nodes agree on (`clock` corrected by its skew from the engine's).
    pub shared_clock: Arc<SharedClock>,
    pub metrics: Arc<Metrics>,
    /// Rate limits shared by all nodes.
    pub limits: Limits,
    /// Users' and operators' sessions.
    pub sessions: Sessions,
    /// The device cookies of browsers that logged in before.
    pub devices: Devices,
    /// SMS codes.
    pub codes: Codes,
    /// Reports and sanctions.
    pub safety: Safety,
    /// This node's real time: the rules of matching and chat, its sockets, the round.
    pub realtime: Realtime,
}

impl std::ops::Deref for AppState {
    type Target = Inner;

    fn deref(&self) -> &Inner {
        &self.0
    }
}

/// Parts that tests may replace.
pub struct Overrides {
    pub clock: Option<Arc<dyn Clock>>,
    pub engine: Option<Arc<dyn Engine>>,
    pub sms: Option<Arc<dyn SmsSender>>,
    pub identity: Option<Arc<dyn IdentityVerifier>>,
    pub payments: Option<Arc<dyn CardPayments>>,
}

impl AppState {
    /// Connects to the store and the engine named by `config` and picks the providers.
    pub async fn build(config: Config) -> anyhow::Result<Self> {
        Self::build_with(
            config,
            Overrides {
                clock: None,
                engine: None,
                sms: None,
                identity: None,
                payments: None,
            },
        )
        .await
    }

    pub async fn build_with(config: Config, overrides: Overrides) -> anyhow::Result<Self> {
        use anyhow::Context;
        let store = Store::connect(&config.database_url)
            .await
            .with_context(|| format!("opening the database ({:?})", config.backend))?;
        let engine: Arc<dyn Engine> = match (overrides.engine, &config.redis_url) {
            (Some(engine), _) => engine,
            (None, Some(url)) => Arc::new(
                RedisEngine::connect(url, &config.redis_prefix)
                    .await
                    .context("connecting to Redis")?,
            ),
            (None, None) => Arc::new(MemoryEngine::new()),
        };
        let demo_sms = config.demo.then(|| Arc::new(DemoSms::new()));
        let sms: Arc<dyn SmsSender> = match (overrides.sms, &demo_sms, &config.solapi) {
            (Some(sms), _, _) => sms,
            (None, Some(demo), _) => demo.clone(),
            (None, None, Some(solapi)) => Arc::new(SolapiSms::new(solapi.clone())?),
            (None, None, None) => anyhow::bail!("no SMS provider is configured"),
        };
        let identity: Arc<dyn IdentityVerifier> =
            match (overrides.identity, &config.portone, config.demo) {
                (Some(identity), _, _) => identity,
                (None, _, true) => Arc::new(DemoIdentity::new()),
                (None, Some(portone), false) => Arc::new(PortOneIdentity::new(portone.clone())?),
                (None, None, false) => anyhow::bail!("no identity provider is configured"),
            };
        let payments: Arc<dyn CardPayments> =
            match (overrides.payments, &config.card_payments, config.demo) {
                (Some(payments), _, _) => payments,
                (None, _, true) => Arc::new(DemoCardPayments::new()),
                (None, Some(v1), false) => Arc::new(PortOneV1Payments::new(v1.clone())?),
                (None, None, false) => anyhow::bail!("no card payment provider is configured"),
            };
        let vapid = match &config.vapid {
            Some(keys) => keys.clone(),
            // Demo mode: the first node makes a pair and the database keeps it, so
            // browsers' subscriptions outlive restarts and every node signs alike.
            None => {
                let now = chrono::Utc::now().timestamp_millis();
                let private = store
                    .shared_key(
                        DEMO_VAPID_KEY,
                        || VapidKeys::generate().private_base64(),
                        now,
                    )
                    .await
                    .context("reading the demo VAPID key")?;
                VapidKeys::from_private_base64(&private)
                    .map_err(|e| anyhow::anyhow!("the stored demo VAPID key: {e}"))?
            }
        };
        let push = WebPush::new(vapid, &config.vapid_subject)?;
        let (clock, demo_clock): (Arc<dyn Clock>, _) = match overrides.clock {
            Some(clock) => (clock, None),
            None if config.demo => {
                let demo = Arc::new(ShiftedClock::default());
                (demo.clone(), Some(demo))
            }
            None => (Arc::new(SystemClock), None),
        };
        let metrics = Arc::new(Metrics::new());
        let shared_clock = Arc::new(SharedClock::new(Arc::clone(&clock)));
        let realtime = Realtime::new(realtime::Parts {
            node_id: config.node_id.clone(),
            engine: Arc::clone(&engine),
            store: store.clone(),
            metrics: Arc::clone(&metrics),
            clock: Arc::clone(&shared_clock),
            window: config.service_window,
            demo_clock: demo_clock.clone(),
            grace: config.grace,
        });
        let limits = Limits {
            engine: Arc::clone(&engine),
            metrics: Arc::clone(&metrics),
            trusted_proxies: config.trusted_proxies,
        };
        let devices = Devices::new(
            &config.data_key,
            Arc::clone(&clock),
            config.secure_cookies(),
        );
        let sessions = Sessions {
            store: store.clone(),
            clock: Arc::clone(&clock),
            devices: devices.clone(),
            trusted_proxies: config.trusted_proxies,
            secure_cookies: config.secure_cookies(),
        };
        let codes = Codes {
            sms: Arc::clone(&sms),
            store: store.clone(),
            clock: Arc::clone(&clock),
            limits: limits.clone(),
            secure_cookies: config.secure_cookies(),
        };
        let safety = Safety {
            store: store.clone(),
            engine: Arc::clone(&engine),
            realtime: realtime.clone(),
            limits: limits.clone(),
            metrics: Arc::clone(&metrics),
            clock: Arc::clone(&clock),
            shared_clock: Arc::clone(&shared_clock),
        };
        let payments = Payments {
            card: payments,
            store: store.clone(),
            engine: Arc::clone(&engine),
            realtime: realtime.clone(),
            metrics: Arc::clone(&metrics),
            clock: Arc::clone(&clock),
            shared_clock: Arc::clone(&shared_clock),
            demo_transfer_paid_after: config.demo_transfer_paid_after,
        };
        Ok(Self(Arc::new(Inner {
            config,
            store,
            engine,
            sms,
            demo_sms,
            identity,
            payments,
            push,
            clock,
            demo_clock,
            shared_clock,
            metrics,
            limits,
            sessions,
            devices,
            codes,
            safety,
            realtime,
        })))
    }
}
