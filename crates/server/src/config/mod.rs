//! Configuration from environment variables (and an optional `.env`), all under the
//! `TELEPATHY_` prefix but for the two conventional URLs. Validated at start: every problem
//! is reported at once, naming the variable. `vars` describes every variable once (its
//! meaning, default and example); the reading below takes its defaults from there, section
//! by section, and `.env.example` is rendered from it.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;

use std::time::Duration;

use telepathy_domain::round::ServiceWindow;
use telepathy_providers::{
    PortOneConfig, PortOneV1Config, PushServices, Secret, SolapiConfig, VapidKeys,
};
use telepathy_store::Backend;

use crate::security::sealing::DataKey;

pub mod vars;

use vars::Var;

// The operator's facts the web app shows (footer, help page, terms), served as they are in
// `/app-config`: a field not set is `None`, and the app leaves its line out rather than show
// a placeholder. The doc comments are the API's descriptions.

/// The operator's facts (`TELEPATHY_BUSINESS_*` and the officers). A field that is not
/// configured is absent, and the app leaves its line out.
#[derive(Debug, Clone, Default, PartialEq, Eq, poem_openapi::Object)]
#[oai(rename_all = "camelCase", skip_serializing_if_is_none)]
pub struct Business {
    /// Trade name (상호).
    pub name: Option<String>,
    /// Representative (대표자).
    pub representative: Option<String>,
    /// Business registration number (사업자등록번호), `123-45-67890`.
    pub registration_number: Option<String>,
    /// Mail-order business report number (통신판매업 신고번호).
    pub mail_order_number: Option<String>,
    pub address: Option<String>,
    pub phone: Option<String>,
    /// Contact email for questions, appeals and withdrawal requests.
    pub email: Option<String>,
    /// Hosting provider (호스팅 제공자).
    pub hosting: Option<String>,
    /// Youth protection officer (청소년보호책임자).
    pub youth_officer: Option<BusinessOfficer>,
    /// Privacy officer (개인정보 보호책임자).
    pub privacy_officer: Option<BusinessOfficer>,
}

/// An officer the operator names, with how to reach them.
#[derive(Debug, Clone, PartialEq, Eq, poem_openapi::Object)]
#[oai(skip_serializing_if_is_none)]
pub struct BusinessOfficer {
    pub name: String,
    pub position: Option<String>,
    pub email: Option<String>,
}

/// Where custom word sets are paid to by bank transfer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransferAccount {
    pub bank: String,
    pub number: String,
    /// The holder (예금주).
    pub holder: String,
}

/// The validated configuration of a node.
#[derive(Debug, Clone)]
pub struct Config {
    pub listen: SocketAddr,
    pub database_url: String,
    pub backend: Backend,
    pub redis_url: Option<String>,
    pub redis_prefix: String,
    pub demo: bool,
    pub public_origins: Vec<String>,
    pub static_dir: PathBuf,
    /// Proxies of ours before a node: the client is this many X-Forwarded-For entries
    /// from the right.
    pub trusted_proxies: usize,
    pub json_logs: bool,
    pub solapi: Option<SolapiConfig>,
    pub portone: Option<PortOneConfig>,
    /// Card payments (megaphones) through PortOne V1.
    pub card_payments: Option<PortOneV1Config>,
    pub service_window: ServiceWindow,
    pub grace: Duration,
    /// On SIGTERM, how long requests in flight may take before the node exits.
    pub drain: Duration,
    /// How long a request's head, and then its body, may take to arrive.
    pub request_timeout: Duration,
    /// How long a connection may stay silent.
    pub idle_timeout: Duration,
    /// Threads of the node's runtime; `None`: one per CPU the process may use.
    pub worker_threads: Option<usize>,
    pub retention_days: i64,
    pub node_id: String,
    /// Lets scrapers from other hosts read `/metrics` (`Authorization: Bearer …`).
    pub metrics_token: Option<Secret>,
    /// Lets clients on other hosts read the demo SMS outbox (`Authorization: Bearer …`).
    pub outbox_token: Option<Secret>,
    /// The operator's facts the web app shows.
    pub business: Business,
    /// Where word sets are paid to.
    pub transfer_account: TransferAccount,
    /// The secret that signs deposit notifications; none refuses them all.
    pub deposit_webhook_secret: Option<Secret>,
    /// Seals personal data kept at rest (refund accounts).
    pub data_key: DataKey,
    /// Demo mode: a pending transfer counts as paid this long after it was opened.
    pub demo_transfer_paid_after: Option<Duration>,
    /// The key pair that signs the opening bell's pushes; `None` (demo mode only): the one
    /// the database keeps.
    pub vapid: Option<VapidKeys>,
    /// The VAPID contact.
    pub vapid_subject: String,
    /// The push services subscriptions may point at.
    pub push_services: PushServices,
    /// The operator's pages the app links to.
    pub links: ExternalLinks,
}

/// Pages of the operator's, outside the app, that it links to. One not set is `None`, and
/// the app does without it: it never links to a placeholder.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExternalLinks {
    /// The community gallery (bottom navigation).
    pub community: Option<String>,
    /// The payment inquiry form (My page).
    pub payment_inquiry: Option<String>,
    /// The operator's FAQ (My page).
    pub faq: Option<String>,
}

impl Config {
    /// Whether the session cookie must be `Secure` (anything but plain-http localhost).
    pub fn secure_cookies(&self) -> bool {
        self.public_origins
            .first()
            .is_some_and(|o| o.starts_with("https://"))
    }

    /// Reads the process environment.
    pub fn from_env() -> Result<Self, ConfigErrors> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads variables through `get`, so tests can pass their own.
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigErrors> {
        let mut env = Env {
            lookup: &get,
            errors: Vec::new(),
        };
        let listening = listening(&mut env);
        let storage = storage(&mut env);
        let demo = storage.demo;
        let node = node(&mut env, demo);
        let access = access(&env);
        let solapi = sms(&mut env, demo);
        let portone = identity(&mut env, demo);
        let card_payments = card_payments(&mut env, demo);
        let transfers = transfers(&mut env, demo);
        let push = push(&mut env, demo);
        let links = links(&mut env);
        let business = business_info(&mut env, demo);

        if !env.errors.is_empty() {
            return Err(ConfigErrors(env.errors));
        }
        Ok(Self {
            listen: listening.listen,
            database_url: storage.database_url,
            backend: storage.backend,
            redis_url: storage.redis_url,
            redis_prefix: storage.redis_prefix,
            demo,
            public_origins: listening.public_origins,
            static_dir: listening.static_dir,
            trusted_proxies: listening.trusted_proxies,
            json_logs: node.json_logs,
            solapi,
            portone,
            card_payments,
            service_window: node.service_window,
            grace: node.grace,
            drain: node.drain,
            request_timeout: node.request_timeout,
            idle_timeout: node.idle_timeout,
            worker_threads: node.worker_threads,
            retention_days: node.retention_days,
            node_id: node.node_id,
            metrics_token: access.metrics_token,
            outbox_token: access.outbox_token,
            business,
            transfer_account: transfers.account,
            deposit_webhook_secret: transfers.deposit_webhook_secret,
            data_key: storage.data_key,
            demo_transfer_paid_after: transfers.demo_paid_after,
            vapid: push.vapid,
            vapid_subject: push.subject,
            push_services: push.services,
            links,
        })
    }
}

/// The environment being read, and every problem found in it so far.
struct Env<'a> {
    lookup: &'a dyn Fn(&str) -> Option<String>,
    errors: Vec<String>,
}

impl Env<'_> {
    /// `var` as set: trimmed; set to nothing counts as unset.
    fn get(&self, var: &Var) -> Option<String> {
        (self.lookup)(var.name)
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
    }

    /// `var` as set, or else what unset stands for (in demo mode, where that differs).
    fn or_default(&self, var: &Var, demo: bool) -> Option<String> {
        self.get(var).or_else(|| var.unset(demo).map(str::to_owned))
    }

    fn problem(&mut self, text: impl Into<String>) {
        self.errors.push(text.into());
    }

    /// A provider's settings, named by `var` and described by `what` (with its verb), are
    /// missing where demo mode is off.
    fn required_outside_demo(&mut self, var: &Var, what: &str) {
        self.problem(format!(
            "{}: {what} required outside demo mode (or set {}=true)",
            var.name,
            vars::DEMO.name
        ));
    }

    /// A whole number of at least 0 (0 where the variable is unset and has no default).
    fn number(&mut self, var: &Var) -> i64 {
        let Some(text) = self.or_default(var, false) else {
            return 0;
        };
        match text.parse::<i64>() {
            Ok(n) if n >= 0 => n,
            _ => {
                self.problem(format!(
                    "{}: `{text}` is not a whole number of at least 0",
                    var.name
                ));
                0
            }
        }
    }

    /// A yes or no; `None` where the variable is unset and has no default, or is not one.
    fn flag(&mut self, var: &Var) -> Option<bool> {
        match self.or_default(var, false)?.as_str() {
            "1" | "true" | "yes" | "on" => Some(true),
            "0" | "false" | "no" | "off" => Some(false),
            other => {
                self.problem(format!("{}: `{other}` is not true or false", var.name));
                None
            }
        }
    }

    /// Three variables that are set all together or not at all: their values, if set.
    fn together(&mut self, vars: [&Var; 3]) -> Option<[String; 3]> {
        match vars.map(|var| self.get(var)) {
            [Some(a), Some(b), Some(c)] => Some([a, b, c]),
            [None, None, None] => None,
            _ => {
                let [a, b, c] = vars.map(|var| var.name);
                self.problem(format!("{a}, {b} and {c} go together: set all three"));
                None
            }
        }
    }

    /// A page's address the browser opens: absolute, https, with a host.
    fn https_page(&mut self, var: &Var) -> Option<String> {
        let value = self.get(var)?;
        match url::Url::parse(&value) {
            Ok(url) if url.scheme() == "https" && url.host_str().is_some() => Some(url.into()),
            _ => {
                self.problem(format!(
                    "{}: `{value}` is not a page address like https://example.com/page",
                    var.name
                ));
                None
            }
        }
    }

    /// An email address, checked loosely.
    fn email(&mut self, var: &Var) -> Option<String> {
        let value = self.get(var)?;
        if looks_like_email(&value) {
            Some(value)
        } else {
            self.problem(format!(
                "{}: `{value}` is not an email address like help@example.com",
                var.name
            ));
            None
        }
    }
}

/// Where a node listens and whom it answers.
struct Listening {
    listen: SocketAddr,
    public_origins: Vec<String>,
    trusted_proxies: usize,
    static_dir: PathBuf,
}

/// Read before the mode is known: none of these has a default of its own in demo mode.
fn listening(env: &mut Env) -> Listening {
    use vars::{LISTEN, PUBLIC_ORIGIN, STATIC_DIR, TRUSTED_PROXIES, TRUST_PROXY};
    let listen_raw = env.or_default(&LISTEN, false).unwrap_or_default();
    let listen = listen_raw.parse::<SocketAddr>().ok();
    if listen.is_none() {
        env.problem(format!(
            "{}: `{listen_raw}` is not an address like 127.0.0.1:8080",
            LISTEN.name
        ));
    }
    let public_origins = match (env.get(&PUBLIC_ORIGIN), listen) {
        (Some(list), _) => list
            .split(',')
            .map(|o| o.trim().trim_end_matches('/').to_owned())
            .filter(|o| !o.is_empty())
            .collect::<Vec<_>>(),
        (None, Some(listen)) => default_origins(listen),
        (None, None) => Vec::new(),
    };
    for origin in &public_origins {
        if !(origin.starts_with("http://") || origin.starts_with("https://")) {
            env.problem(format!(
                "{}: `{origin}` is not an origin like https://example.com",
                PUBLIC_ORIGIN.name
            ));
        }
    }
    let trusted_proxies = match (env.get(&TRUSTED_PROXIES), env.get(&TRUST_PROXY)) {
        (Some(_), Some(_)) => {
            env.problem(format!(
                "{}: replaced by {}; set only that one",
                TRUST_PROXY.name, TRUSTED_PROXIES.name
            ));
            0
        }
        (None, Some(_)) => i64::from(env.flag(&TRUST_PROXY).unwrap_or_default()),
        (_, None) => env.number(&TRUSTED_PROXIES),
    };
    Listening {
        // Only when the address was refused, and then no configuration is made.
        listen: listen.unwrap_or(SocketAddr::from((Ipv4Addr::UNSPECIFIED, 0))),
        public_origins,
        trusted_proxies: usize::try_from(trusted_proxies).unwrap_or(0),
        static_dir: PathBuf::from(env.or_default(&STATIC_DIR, false).unwrap_or_default()),
    }
}

/// The store, the engine, and the mode they make.
struct Storage {
    database_url: String,
    backend: Backend,
    redis_url: Option<String>,
    redis_prefix: String,
    demo: bool,
    data_key: DataKey,
}

/// The mode is made here: none of these has a default of its own in demo mode.
fn storage(env: &mut Env) -> Storage {
    use vars::{DATABASE_URL, DATA_KEY, DEMO, REDIS_PREFIX, REDIS_URL, SINGLE_NODE};
    let database_url = env.or_default(&DATABASE_URL, false).unwrap_or_default();
    let backend = Backend::of_url(&database_url).unwrap_or_else(|| {
        env.problem(format!(
            "{}: expected sqlite://… or postgres://…",
            DATABASE_URL.name
        ));
        Backend::Sqlite
    });
    let redis_url = env.get(&REDIS_URL);
    if let Some(url) = &redis_url {
        const SCHEMES: [&str; 4] = [
            "redis://",
            "rediss://",
            "redis-cluster://",
            "rediss-cluster://",
        ];
        if !SCHEMES.iter().any(|s| url.starts_with(s)) {
            env.problem(format!(
                "{}: expected redis://host:port, or redis-cluster://host:port?node=host:port&… for a Redis Cluster",
                REDIS_URL.name
            ));
        }
    }
    let single_node = env.flag(&SINGLE_NODE).unwrap_or_default();
    if redis_url.is_some() && backend == Backend::Sqlite && !single_node {
        env.problem(format!(
            "{}: a node-local SQLite file cannot be shared by the nodes that {} joins; use \
             postgres://…, or set {}=true if only one node runs",
            DATABASE_URL.name, REDIS_URL.name, SINGLE_NODE.name
        ));
    }
    let embedded = redis_url.is_none() && backend == Backend::Sqlite;
    let demo = env.flag(&DEMO).unwrap_or(embedded);
    let data_key = match env.get(&DATA_KEY) {
        Some(text) => DataKey::from_base64(&text).unwrap_or_else(|why| {
            env.problem(format!(
                "{}: {why}; expected base64 of 32 random bytes (openssl rand -base64 32)",
                DATA_KEY.name
            ));
            DataKey::demo()
        }),
        None if demo => DataKey::demo(),
        None => {
            env.problem(format!(
                "{}: the key that seals refund accounts and authenticator secrets is required \
                 outside demo mode (openssl rand -base64 32)",
                DATA_KEY.name
            ));
            DataKey::demo()
        }
    };
    Storage {
        database_url,
        backend,
        redis_url,
        redis_prefix: env.or_default(&REDIS_PREFIX, false).unwrap_or_default(),
        demo,
        data_key,
    }
}

/// How the node runs: its hours, its timings, its threads, its log.
struct Node {
    service_window: ServiceWindow,
    grace: Duration,
    drain: Duration,
    request_timeout: Duration,
    idle_timeout: Duration,
    worker_threads: Option<usize>,
    retention_days: i64,
    node_id: String,
    json_logs: bool,
}

fn node(env: &mut Env, demo: bool) -> Node {
    use vars::{
        CHAT_RETENTION_DAYS, DRAIN_SECONDS, GRACE_SECONDS, IDLE_TIMEOUT_SECONDS, LOG_FORMAT,
        NODE_ID, REQUEST_TIMEOUT_SECONDS, SERVICE_HOURS, WORKER_THREADS,
    };
    let service_window = match env.or_default(&SERVICE_HOURS, demo) {
        Some(text) => ServiceWindow::parse(&text).unwrap_or_else(|e| {
            env.problem(format!("{}: {e}", SERVICE_HOURS.name));
            ServiceWindow::default()
        }),
        None => ServiceWindow::default(),
    };
    let grace = env.number(&GRACE_SECONDS);
    let drain = env.number(&DRAIN_SECONDS);
    let mut seconds = |var: &Var| {
        let n = env.number(var);
        if n == 0 {
            env.problem(format!(
                "{}: a connection needs at least 1 second",
                var.name
            ));
        }
        Duration::from_secs(n.unsigned_abs().max(1))
    };
    let request_timeout = seconds(&REQUEST_TIMEOUT_SECONDS);
    let idle_timeout = seconds(&IDLE_TIMEOUT_SECONDS);
    let worker_threads = usize::try_from(env.number(&WORKER_THREADS))
        .ok()
        .filter(|n| *n > 0);
    let retention_days = env.number(&CHAT_RETENTION_DAYS);
    let json_logs = match env.or_default(&LOG_FORMAT, demo).as_deref() {
        None | Some("text") => false,
        Some("json") => true,
        Some(other) => {
            env.problem(format!(
                "{}: `{other}` is neither text nor json",
                LOG_FORMAT.name
            ));
            false
        }
    };
    Node {
        service_window,
        grace: Duration::from_secs(grace.unsigned_abs()),
        drain: Duration::from_secs(drain.unsigned_abs()),
        request_timeout,
        idle_timeout,
        worker_threads,
        retention_days,
        node_id: env
            .get(&NODE_ID)
            .unwrap_or_else(|| format!("node-{:016x}", rand::random::<u64>())),
        json_logs,
    }
}

/// Tokens that let other hosts read what only operators should.
struct Access {
    metrics_token: Option<Secret>,
    outbox_token: Option<Secret>,
}

fn access(env: &Env) -> Access {
    Access {
        metrics_token: env.get(&vars::METRICS_TOKEN).map(Secret::new),
        outbox_token: env.get(&vars::OUTBOX_TOKEN).map(Secret::new),
    }
}

/// Solapi, for SMS; required outside demo mode.
fn sms(env: &mut Env, demo: bool) -> Option<SolapiConfig> {
    use vars::{SOLAPI_API_KEY, SOLAPI_API_SECRET, SOLAPI_BASE_URL, SOLAPI_SENDER};
    let solapi = env
        .together([&SOLAPI_API_KEY, &SOLAPI_API_SECRET, &SOLAPI_SENDER])
        .map(|[api_key, secret, sender]| SolapiConfig {
            api_key,
            api_secret: Secret::new(secret),
            sender,
            base_url: env.or_default(&SOLAPI_BASE_URL, demo).unwrap_or_default(),
        });
    if !demo && solapi.is_none() {
        env.required_outside_demo(&SOLAPI_API_KEY, "SMS credentials are");
    }
    solapi
}

/// PortOne V2, for identity verification; required outside demo mode.
fn identity(env: &mut Env, demo: bool) -> Option<PortOneConfig> {
    use vars::{
        PORTONE_API_SECRET, PORTONE_BASE_URL, PORTONE_IDENTITY_CHANNEL_KEY, PORTONE_STORE_ID,
    };
    let portone = env
        .together([
            &PORTONE_API_SECRET,
            &PORTONE_STORE_ID,
            &PORTONE_IDENTITY_CHANNEL_KEY,
        ])
        .map(|[secret, store_id, channel_key]| PortOneConfig {
            api_secret: Secret::new(secret),
            store_id,
            channel_key,
            base_url: env.or_default(&PORTONE_BASE_URL, demo).unwrap_or_default(),
        });
    if !demo && portone.is_none() {
        env.required_outside_demo(&PORTONE_API_SECRET, "PortOne credentials are");
    }
    portone
}

/// PortOne V1, for the card payments of megaphones; required outside demo mode.
fn card_payments(env: &mut Env, demo: bool) -> Option<PortOneV1Config> {
    use vars::{
        PORTONE_V1_API_KEY, PORTONE_V1_API_SECRET, PORTONE_V1_BASE_URL, PORTONE_V1_IMP_CODE,
        PORTONE_V1_PG,
    };
    let payments = env
        .together([
            &PORTONE_V1_API_KEY,
            &PORTONE_V1_API_SECRET,
            &PORTONE_V1_IMP_CODE,
        ])
        .map(|[api_key, secret, imp_code]| PortOneV1Config {
            api_key,
            api_secret: Secret::new(secret),
            imp_code,
            pg: env.or_default(&PORTONE_V1_PG, demo).unwrap_or_default(),
            base_url: env
                .or_default(&PORTONE_V1_BASE_URL, demo)
                .unwrap_or_default(),
        });
    if !demo && payments.is_none() {
        env.required_outside_demo(
            &PORTONE_V1_API_KEY,
            "PortOne V1 credentials for card payments are",
        );
    }
    payments
}

/// Where word sets are paid to, and how a transfer is confirmed.
struct Transfers {
    account: TransferAccount,
    deposit_webhook_secret: Option<Secret>,
    demo_paid_after: Option<Duration>,
}

fn transfers(env: &mut Env, demo: bool) -> Transfers {
    use vars::{
        DEMO_TRANSFER_SECONDS, DEPOSIT_WEBHOOK_SECRET, TRANSFER_ACCOUNT, TRANSFER_BANK,
        TRANSFER_HOLDER,
    };
    let vars = [&TRANSFER_BANK, &TRANSFER_ACCOUNT, &TRANSFER_HOLDER];
    let all_unset = vars.iter().all(|var| env.get(var).is_none());
    let [bank, number, holder] = match env.together(vars) {
        Some(account) => account,
        None => {
            if all_unset && !demo {
                env.required_outside_demo(&TRANSFER_BANK, "the account word sets are paid to is");
            }
            // Demo mode names no real account: nobody can send money there by mistake.
            vars.map(|var| var.unset(true).unwrap_or_default().to_owned())
        }
    };
    let demo_seconds = env.number(&DEMO_TRANSFER_SECONDS);
    Transfers {
        account: TransferAccount {
            bank,
            number,
            holder,
        },
        deposit_webhook_secret: env.get(&DEPOSIT_WEBHOOK_SECRET).map(Secret::new),
        demo_paid_after: (demo && demo_seconds > 0)
            .then(|| Duration::from_secs(demo_seconds.unsigned_abs())),
    }
}

/// The opening bell's keys, contact and the push services it may call.
struct Push {
    vapid: Option<VapidKeys>,
    subject: String,
    services: PushServices,
}

fn push(env: &mut Env, demo: bool) -> Push {
    use vars::{PUSH_SERVICES, VAPID_PRIVATE_KEY, VAPID_SUBJECT};
    let vapid = match env.get(&VAPID_PRIVATE_KEY) {
        Some(text) => VapidKeys::from_private_base64(&text)
            .map_err(|why| {
                env.problem(format!(
                    "{}: {why}; `telepathy vapid` makes a pair",
                    VAPID_PRIVATE_KEY.name
                ));
            })
            .ok(),
        None => {
            if !demo {
                env.problem(format!(
                    "{}: the key of the opening bell's pushes is required outside demo mode \
                     (`telepathy vapid` makes a pair)",
                    VAPID_PRIVATE_KEY.name
                ));
            }
            None
        }
    };
    let subject = match env.or_default(&VAPID_SUBJECT, demo) {
        Some(s) if s.starts_with("mailto:") || s.starts_with("https://") => s,
        Some(s) => {
            env.problem(format!(
                "{}: `{s}` is neither a mailto: nor an https: URL",
                VAPID_SUBJECT.name
            ));
            s
        }
        None => {
            env.problem(format!(
                "{}: the contact for push services (mailto: or https:) is required outside \
                 demo mode",
                VAPID_SUBJECT.name
            ));
            String::new()
        }
    };
    let services = match env.get(&PUSH_SERVICES) {
        None => PushServices::browsers(),
        Some(list) => PushServices::parse(&list).unwrap_or_else(|why| {
            env.problem(format!("{}: {why}", PUSH_SERVICES.name));
            PushServices::browsers()
        }),
    };
    Push {
        vapid,
        subject,
        services,
    }
}

fn links(env: &mut Env) -> ExternalLinks {
    ExternalLinks {
        community: env.https_page(&vars::COMMUNITY_URL),
        payment_inquiry: env.https_page(&vars::PAYMENT_INQUIRY_URL),
        faq: env.https_page(&vars::FAQ_URL),
    }
}

/// The `TELEPATHY_BUSINESS_*` and officer variables. Demo mode names a demo operator and
/// email so its pages read whole; everything else is left out until set.
fn business_info(env: &mut Env, demo: bool) -> Business {
    use vars::{
        BUSINESS_ADDRESS, BUSINESS_EMAIL, BUSINESS_HOSTING, BUSINESS_MAIL_ORDER_NUMBER,
        BUSINESS_NAME, BUSINESS_PHONE, BUSINESS_REGISTRATION_NUMBER, BUSINESS_REPRESENTATIVE,
        PRIVACY_OFFICER, YOUTH_OFFICER,
    };
    let registration_number = env.get(&BUSINESS_REGISTRATION_NUMBER).and_then(|value| {
        let digits: String = value.chars().filter(|c| *c != '-').collect();
        if digits.len() == 10 && digits.chars().all(|c| c.is_ascii_digit()) {
            Some(format!(
                "{}-{}-{}",
                &digits[..3],
                &digits[3..5],
                &digits[5..]
            ))
        } else {
            env.problem(format!(
                "{}: `{value}` is not 10 digits like 123-45-67890",
                BUSINESS_REGISTRATION_NUMBER.name
            ));
            None
        }
    });
    let officer = |env: &mut Env, vars: vars::OfficerVars| {
        let position = env.get(&vars.position);
        let email = env.email(&vars.email);
        match env.get(&vars.name) {
            Some(name) => Some(BusinessOfficer {
                name,
                position,
                email,
            }),
            None => {
                if position.is_some() || email.is_some() {
                    env.problem(format!(
                        "{}: the officer's position or email is set without a name",
                        vars.name.name
                    ));
                }
                None
            }
        }
    };
    let youth_officer = officer(env, YOUTH_OFFICER);
    let privacy_officer = officer(env, PRIVACY_OFFICER);
    let email = env
        .email(&BUSINESS_EMAIL)
        .or_else(|| BUSINESS_EMAIL.unset(demo).map(str::to_owned));
    Business {
        name: env.or_default(&BUSINESS_NAME, demo),
        representative: env.get(&BUSINESS_REPRESENTATIVE),
        registration_number,
        mail_order_number: env.get(&BUSINESS_MAIL_ORDER_NUMBER),
        address: env.get(&BUSINESS_ADDRESS),
        phone: env.get(&BUSINESS_PHONE),
        email,
        hosting: env.get(&BUSINESS_HOSTING),
        youth_officer,
        privacy_officer,
    }
}

/// One `@` with something on each side and a dot in the domain, no spaces.
fn looks_like_email(text: &str) -> bool {
    match text.split_once('@') {
        Some((local, domain)) => {
            !local.is_empty()
                && domain.contains('.')
                && !domain.starts_with('.')
                && !domain.ends_with('.')
                && !domain.contains('@')
                && !text.chars().any(char::is_whitespace)
        }
        None => false,
    }
}

fn default_origins(listen: SocketAddr) -> Vec<String> {
    let port = listen.port();
    let mut origins = vec![format!("http://{listen}")];
    if listen.ip().is_loopback() || listen.ip().is_unspecified() {
        origins.push(format!("http://localhost:{port}"));
        origins.push(format!("http://127.0.0.1:{port}"));
    }
    origins.dedup();
    origins
}

/// Everything wrong with the environment, one line per problem.
#[derive(Debug)]
pub struct ConfigErrors(pub Vec<String>);

impl std::fmt::Display for ConfigErrors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "the configuration is not valid:")?;
        for e in &self.0 {
            writeln!(f, "  - {e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigErrors {}

#[cfg(test)]
mod tests {
    use super::*;

    /// A data key for tests: base64 of 32 bytes.
    const KEY: &str = "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=";
    const VAPID_KEY: &str = "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE";

    /// Every variable a node needs outside demo mode, set.
    const OUTSIDE_DEMO: &[(&str, &str)] = &[
        ("TELEPATHY_DEMO", "false"),
        ("TELEPATHY_SOLAPI_API_KEY", "k"),
        ("TELEPATHY_SOLAPI_API_SECRET", "s"),
        ("TELEPATHY_SOLAPI_SENDER", "0212345678"),
        ("TELEPATHY_PORTONE_API_SECRET", "s"),
        ("TELEPATHY_PORTONE_STORE_ID", "x"),
        ("TELEPATHY_PORTONE_IDENTITY_CHANNEL_KEY", "y"),
        ("TELEPATHY_PORTONE_V1_API_KEY", "k"),
        ("TELEPATHY_PORTONE_V1_API_SECRET", "s"),
        ("TELEPATHY_PORTONE_V1_IMP_CODE", "imp12345678"),
        ("TELEPATHY_TRANSFER_BANK", "국민"),
        ("TELEPATHY_TRANSFER_ACCOUNT", "123-45-678"),
        ("TELEPATHY_TRANSFER_HOLDER", "텔레파시"),
        ("TELEPATHY_DATA_KEY", KEY),
        ("TELEPATHY_VAPID_PRIVATE_KEY", VAPID_KEY),
        ("TELEPATHY_VAPID_SUBJECT", "mailto:ops@example.com"),
    ];

    fn config(vars: &[(&str, &str)]) -> Result<Config, ConfigErrors> {
        Config::from_lookup(|name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
        })
    }

    #[test]
    fn embedded_by_default() {
        let c = config(&[]).unwrap();
        assert_eq!(c.backend, Backend::Sqlite);
        assert!(c.demo, "demo providers in the embedded mode");
        assert!(c.redis_url.is_none());
        assert_eq!(c.listen.to_string(), "127.0.0.1:8080");
        assert!(c
            .public_origins
            .contains(&"http://localhost:8080".to_owned()));
        assert!(!c.secure_cookies());
        assert_eq!(
            c.service_window,
            ServiceWindow::Always,
            "demo is always open"
        );
        assert_eq!(c.grace, Duration::from_secs(30));
    }

    #[test]
    fn service_hours_default_outside_demo_and_parse() {
        let c = config(OUTSIDE_DEMO).unwrap();
        assert_eq!(c.service_window, ServiceWindow::default());
        let err = config(&[
            ("TELEPATHY_SERVICE_HOURS", "8pm"),
            ("TELEPATHY_GRACE_SECONDS", "-1"),
        ])
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("TELEPATHY_SERVICE_HOURS") && err.contains("TELEPATHY_GRACE_SECONDS"),
            "{err}"
        );
    }

    #[test]
    fn worker_threads_default_to_the_cpus() {
        assert_eq!(config(&[]).unwrap().worker_threads, None);
        assert_eq!(
            config(&[("TELEPATHY_WORKER_THREADS", "0")])
                .unwrap()
                .worker_threads,
            None
        );
        assert_eq!(
            config(&[("TELEPATHY_WORKER_THREADS", "1")])
                .unwrap()
                .worker_threads,
            Some(1)
        );
        let err = config(&[("TELEPATHY_WORKER_THREADS", "two")])
            .unwrap_err()
            .to_string();
        assert!(err.contains("TELEPATHY_WORKER_THREADS"), "{err}");
    }

    #[test]
    fn names_every_bad_variable() {
        let err = config(&[
            ("TELEPATHY_LISTEN", "nowhere"),
            ("TELEPATHY_DEMO", "perhaps"),
            ("DATABASE_URL", "mysql://x"),
        ])
        .unwrap_err()
        .to_string();
        assert!(err.contains("TELEPATHY_LISTEN"), "{err}");
        assert!(err.contains("TELEPATHY_DEMO"), "{err}");
        assert!(err.contains("DATABASE_URL"), "{err}");
    }

    #[test]
    fn refuses_redis_with_a_local_sqlite_file() {
        let err = config(&[("REDIS_URL", "redis://127.0.0.1:6379")])
            .unwrap_err()
            .to_string();
        assert!(err.contains("TELEPATHY_SINGLE_NODE"), "{err}");
        let ok = config(&[
            ("REDIS_URL", "redis://127.0.0.1:6379"),
            ("TELEPATHY_SINGLE_NODE", "true"),
            ("TELEPATHY_DEMO", "true"),
        ]);
        assert!(ok.is_ok());
    }

    #[test]
    fn cluster_needs_real_providers_unless_demo() {
        let vars = [
            ("REDIS_URL", "redis://127.0.0.1:6379"),
            ("DATABASE_URL", "postgres://h/db"),
        ];
        let err = config(&vars).unwrap_err().to_string();
        assert!(
            err.contains("TELEPATHY_SOLAPI_API_KEY")
                && err.contains("TELEPATHY_PORTONE_API_SECRET")
                && err.contains("TELEPATHY_PORTONE_V1_API_KEY")
                && err.contains("TELEPATHY_VAPID_PRIVATE_KEY")
                && err.contains("TELEPATHY_VAPID_SUBJECT"),
            "{err}"
        );
        let c = config(&[vars[0], vars[1], ("TELEPATHY_DEMO", "true")]).unwrap();
        assert!(c.demo);
        assert_eq!(c.backend, Backend::Postgres);
    }

    #[test]
    fn transfers_need_an_account_and_a_data_key_outside_demo() {
        let vars = [
            ("REDIS_URL", "redis://127.0.0.1:6379"),
            ("DATABASE_URL", "postgres://h/db"),
        ];
        let err = config(&vars).unwrap_err().to_string();
        assert!(
            err.contains("TELEPATHY_TRANSFER_BANK") && err.contains("TELEPATHY_DATA_KEY"),
            "{err}"
        );
        let err = config(&[
            ("TELEPATHY_TRANSFER_BANK", "국민"),
            ("TELEPATHY_DATA_KEY", "c2hvcnQ="),
        ])
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("go together") && err.contains("TELEPATHY_DATA_KEY: is 5 bytes"),
            "{err}"
        );
        let demo = config(&[]).unwrap();
        assert_eq!(demo.transfer_account.bank, "데모은행");
        assert_eq!(demo.demo_transfer_paid_after, Some(Duration::from_secs(5)));
        assert!(demo.deposit_webhook_secret.is_none());
        let off = config(&[("TELEPATHY_DEMO_TRANSFER_SECONDS", "0")]).unwrap();
        assert_eq!(off.demo_transfer_paid_after, None);
    }

    #[test]
    fn https_origin_means_secure_cookies() {
        let c = config(&[(
            "TELEPATHY_PUBLIC_ORIGIN",
            "https://telepathy.example/, http://localhost:5173",
        )])
        .unwrap();
        assert!(c.secure_cookies());
        assert_eq!(
            c.public_origins,
            ["https://telepathy.example", "http://localhost:5173"]
        );
    }

    #[test]
    fn trusted_proxies_are_counted_and_the_former_flag_still_reads() {
        let proxies = |vars: &[(&str, &str)]| config(vars).map(|c| c.trusted_proxies);
        assert_eq!(proxies(&[]).unwrap(), 0);
        assert_eq!(proxies(&[("TELEPATHY_TRUSTED_PROXIES", "2")]).unwrap(), 2);
        assert_eq!(proxies(&[("TELEPATHY_TRUST_PROXY", "true")]).unwrap(), 1);
        assert_eq!(proxies(&[("TELEPATHY_TRUST_PROXY", "false")]).unwrap(), 0);
        for bad in [
            &[("TELEPATHY_TRUSTED_PROXIES", "-1")][..],
            &[("TELEPATHY_TRUSTED_PROXIES", "one")],
            &[("TELEPATHY_TRUST_PROXY", "maybe")],
            &[
                ("TELEPATHY_TRUSTED_PROXIES", "1"),
                ("TELEPATHY_TRUST_PROXY", "true"),
            ],
        ] {
            let err = config(bad).unwrap_err().to_string();
            assert!(err.contains(bad[0].0), "{bad:?}: {err}");
        }
    }

    #[test]
    fn external_links_are_https_pages_or_left_out() {
        assert_eq!(config(&[]).unwrap().links, ExternalLinks::default());
        let links = config(&[
            (
                "TELEPATHY_COMMUNITY_URL",
                "https://gall.dcinside.com/mgallery/board/lists?id=telepathy",
            ),
            ("TELEPATHY_FAQ_URL", "https://telepathy.kr/faq"),
        ])
        .unwrap()
        .links;
        assert_eq!(
            links.community.as_deref(),
            Some("https://gall.dcinside.com/mgallery/board/lists?id=telepathy")
        );
        assert_eq!(links.faq.as_deref(), Some("https://telepathy.kr/faq"));
        assert_eq!(links.payment_inquiry, None);

        let err = config(&[
            ("TELEPATHY_COMMUNITY_URL", "javascript:alert(1)"),
            (
                "TELEPATHY_PAYMENT_INQUIRY_URL",
                "http://forms.example.com/pay",
            ),
            ("TELEPATHY_FAQ_URL", "/faq"),
        ])
        .unwrap_err()
        .to_string();
        for name in [
            "TELEPATHY_COMMUNITY_URL",
            "TELEPATHY_PAYMENT_INQUIRY_URL",
            "TELEPATHY_FAQ_URL",
        ] {
            assert!(err.contains(name), "{name} in {err}");
        }
    }

    #[test]
    fn business_info_is_read_checked_and_left_out_when_unset() {
        assert_eq!(config(OUTSIDE_DEMO).unwrap().business, Business::default());
        let demo = config(&[]).unwrap().business;
        assert_eq!(demo.name.as_deref(), Some("텔레파시 운영팀"));
        assert_eq!(demo.email.as_deref(), Some("help@telepathy.example"));
        assert_eq!(demo.representative, None);

        let mut vars = OUTSIDE_DEMO.to_vec();
        vars.extend([
            ("TELEPATHY_BUSINESS_NAME", "주식회사 텔레파시"),
            ("TELEPATHY_BUSINESS_REGISTRATION_NUMBER", "1234567890"),
            ("TELEPATHY_BUSINESS_EMAIL", "help@telepathy.kr"),
            ("TELEPATHY_PRIVACY_OFFICER_NAME", "김민준"),
            ("TELEPATHY_PRIVACY_OFFICER_EMAIL", "privacy@telepathy.kr"),
        ]);
        let b = config(&vars).unwrap().business;
        assert_eq!(b.name.as_deref(), Some("주식회사 텔레파시"));
        assert_eq!(b.registration_number.as_deref(), Some("123-45-67890"));
        assert_eq!(
            b.privacy_officer,
            Some(BusinessOfficer {
                name: "김민준".into(),
                position: None,
                email: Some("privacy@telepathy.kr".into()),
            })
        );
        assert_eq!(b.youth_officer, None);

        let err = config(&[
            ("TELEPATHY_BUSINESS_EMAIL", "help at telepathy"),
            ("TELEPATHY_BUSINESS_REGISTRATION_NUMBER", "123-45"),
            ("TELEPATHY_YOUTH_OFFICER_POSITION", "운영 책임자"),
        ])
        .unwrap_err()
        .to_string();
        for name in [
            "TELEPATHY_BUSINESS_EMAIL",
            "TELEPATHY_BUSINESS_REGISTRATION_NUMBER",
            "TELEPATHY_YOUTH_OFFICER_NAME",
        ] {
            assert!(err.contains(name), "{name}: {err}");
        }
    }

    #[test]
    fn the_description_lists_what_the_server_reads() {
        let read = std::cell::RefCell::new(std::collections::BTreeSet::new());
        let lookup = |name: &str| {
            read.borrow_mut().insert(name.to_owned());
            OUTSIDE_DEMO
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
        };
        Config::from_lookup(lookup).unwrap();
        let read = read.into_inner();
        let described: std::collections::BTreeSet<String> = vars::all()
            .map(|v| v.name.to_owned())
            // Read by `telepathy operator add` alone.
            .filter(|name| name != vars::OPERATOR_PASSWORD.name)
            .collect();
        assert_eq!(read, described);
    }

    /// Every variable set to what the description says unset stands for: the same
    /// configuration as none set, in demo mode and outside it.
    #[test]
    fn the_described_defaults_are_the_defaults() {
        for (demo, base) in [(true, &[][..]), (false, OUTSIDE_DEMO)] {
            let mut vars: Vec<(&str, &str)> = base.to_vec();
            vars.push(("TELEPATHY_NODE_ID", "node-1"));
            let unset = format!("{:?}", config(&vars).unwrap());
            for var in vars::all() {
                if let Some(value) = var.unset(demo) {
                    if !vars.iter().any(|(k, _)| *k == var.name) {
                        vars.push((var.name, value));
                    }
                }
            }
            assert!(vars.len() > base.len() + 10, "{vars:?}");
            let set = format!("{:?}", config(&vars).unwrap());
            assert_eq!(set, unset, "demo: {demo}");
        }
        assert_eq!(
            ServiceWindow::parse(vars::SERVICE_HOURS.default.unwrap()),
            Ok(ServiceWindow::default()),
            "the spec's hours"
        );
    }
}
