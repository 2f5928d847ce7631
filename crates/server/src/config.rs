//! Configuration from environment variables (and an optional `.env`), all under the
//! `TELEPATHY_` prefix but for the two conventional URLs. Validated at start: every problem
//! is reported at once, naming the variable. `vars` describes every variable once, and
//! `.env.example` is rendered from it.

use std::net::SocketAddr;
use std::path::PathBuf;

use std::time::Duration;

use telepathy_domain::round::ServiceWindow;
use telepathy_providers::{
    PortOneConfig, PortOneV1Config, PushServices, Secret, SolapiConfig, VapidKeys,
};
use telepathy_store::Backend;

use crate::sealing::DataKey;

pub mod vars;

/// The operator's facts the web app shows (footer, help page, terms). A field not set is
/// `None`, and the app leaves its line out: it never shows a placeholder.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BusinessInfo {
    /// Trade name (상호).
    pub name: Option<String>,
    /// Representative (대표자).
    pub representative: Option<String>,
    /// Business registration number (사업자등록번호), as `123-45-67890`.
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
    pub youth_officer: Option<Officer>,
    /// Privacy officer (개인정보 보호책임자).
    pub privacy_officer: Option<Officer>,
}

/// A person the law asks the operator to name, with how to reach them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Officer {
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
    /// Threads of the node's runtime; `None`: one per CPU the process may use.
    pub worker_threads: Option<usize>,
    pub retention_days: i64,
    pub node_id: String,
    /// Lets scrapers from other hosts read `/metrics` (`Authorization: Bearer …`).
    pub metrics_token: Option<Secret>,
    /// Lets clients on other hosts read the demo SMS outbox (`Authorization: Bearer …`).
    pub outbox_token: Option<Secret>,
    /// The operator's facts the web app shows.
    pub business: BusinessInfo,
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
        let get = |name: &str| {
            get(name)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        let mut errors = Vec::new();

        let listen_raw = get("TELEPATHY_LISTEN").unwrap_or_else(|| "127.0.0.1:8080".into());
        let listen = listen_raw.parse::<SocketAddr>().unwrap_or_else(|_| {
            errors.push(format!(
                "TELEPATHY_LISTEN: `{listen_raw}` is not an address like 127.0.0.1:8080"
            ));
            SocketAddr::from(([127, 0, 0, 1], 8080))
        });

        let database_url =
            get("DATABASE_URL").unwrap_or_else(|| "sqlite://data/telepathy.db".into());
        let backend = Backend::of_url(&database_url).unwrap_or_else(|| {
            errors.push("DATABASE_URL: expected sqlite://… or postgres://…".into());
            Backend::Sqlite
        });
        let redis_url = get("REDIS_URL");
        if let Some(url) = &redis_url {
            const SCHEMES: [&str; 4] = [
                "redis://",
                "rediss://",
                "redis-cluster://",
                "rediss-cluster://",
            ];
            if !SCHEMES.iter().any(|s| url.starts_with(s)) {
                errors.push(
                    "REDIS_URL: expected redis://host:port, or redis-cluster://host:port?node=host:port&… for a Redis Cluster".into(),
                );
            }
        }
        let single_node = flag(&get, "TELEPATHY_SINGLE_NODE", false, &mut errors);
        if redis_url.is_some() && backend == Backend::Sqlite && !single_node {
            errors.push(
                "DATABASE_URL: a node-local SQLite file cannot be shared by the nodes that REDIS_URL \
                 joins; use postgres://…, or set TELEPATHY_SINGLE_NODE=true if only one node runs"
                    .into(),
            );
        }
        let embedded = redis_url.is_none() && backend == Backend::Sqlite;
        let demo = flag(&get, "TELEPATHY_DEMO", embedded, &mut errors);

        let public_origins = match get("TELEPATHY_PUBLIC_ORIGIN") {
            Some(list) => list
                .split(',')
                .map(|o| o.trim().trim_end_matches('/').to_owned())
                .filter(|o| !o.is_empty())
                .collect::<Vec<_>>(),
            None => default_origins(listen),
        };
        for origin in &public_origins {
            if !(origin.starts_with("http://") || origin.starts_with("https://")) {
                errors.push(format!(
                    "TELEPATHY_PUBLIC_ORIGIN: `{origin}` is not an origin like https://example.com"
                ));
            }
        }

        let json_logs = match get("TELEPATHY_LOG_FORMAT").as_deref() {
            None | Some("text") => false,
            Some("json") => true,
            Some(other) => {
                errors.push(format!(
                    "TELEPATHY_LOG_FORMAT: `{other}` is neither text nor json"
                ));
                false
            }
        };

        let solapi = match (
            get("TELEPATHY_SOLAPI_API_KEY"),
            get("TELEPATHY_SOLAPI_API_SECRET"),
            get("TELEPATHY_SOLAPI_SENDER"),
        ) {
            (Some(api_key), Some(secret), Some(sender)) => Some(SolapiConfig {
                api_key,
                api_secret: Secret::new(secret),
                sender,
                base_url: get("TELEPATHY_SOLAPI_BASE_URL")
                    .unwrap_or_else(|| "https://api.solapi.com".into()),
            }),
            (None, None, None) => None,
            _ => {
                errors.push("TELEPATHY_SOLAPI_API_KEY, TELEPATHY_SOLAPI_API_SECRET and TELEPATHY_SOLAPI_SENDER go together: set all three".into());
                None
            }
        };
        let portone = match (
            get("TELEPATHY_PORTONE_API_SECRET"),
            get("TELEPATHY_PORTONE_STORE_ID"),
            get("TELEPATHY_PORTONE_IDENTITY_CHANNEL_KEY"),
        ) {
            (Some(secret), Some(store_id), Some(channel_key)) => Some(PortOneConfig {
                api_secret: Secret::new(secret),
                store_id,
                channel_key,
                base_url: get("TELEPATHY_PORTONE_BASE_URL")
                    .unwrap_or_else(|| "https://api.portone.io".into()),
            }),
            (None, None, None) => None,
            _ => {
                errors.push("TELEPATHY_PORTONE_API_SECRET, TELEPATHY_PORTONE_STORE_ID and TELEPATHY_PORTONE_IDENTITY_CHANNEL_KEY go together: set all three".into());
                None
            }
        };
        let card_payments = match (
            get("TELEPATHY_PORTONE_V1_API_KEY"),
            get("TELEPATHY_PORTONE_V1_API_SECRET"),
            get("TELEPATHY_PORTONE_V1_IMP_CODE"),
        ) {
            (Some(api_key), Some(secret), Some(imp_code)) => Some(PortOneV1Config {
                api_key,
                api_secret: Secret::new(secret),
                imp_code,
                pg: get("TELEPATHY_PORTONE_V1_PG").unwrap_or_else(|| "html5_inicis".into()),
                base_url: get("TELEPATHY_PORTONE_V1_BASE_URL")
                    .unwrap_or_else(|| PortOneV1Config::DEFAULT_BASE_URL.into()),
            }),
            (None, None, None) => None,
            _ => {
                errors.push("TELEPATHY_PORTONE_V1_API_KEY, TELEPATHY_PORTONE_V1_API_SECRET and TELEPATHY_PORTONE_V1_IMP_CODE go together: set all three".into());
                None
            }
        };
        if !demo && card_payments.is_none() {
            errors.push("TELEPATHY_PORTONE_V1_API_KEY: PortOne V1 credentials for card payments are required outside demo mode (or set TELEPATHY_DEMO=true)".into());
        }
        if !demo && solapi.is_none() {
            errors.push("TELEPATHY_SOLAPI_API_KEY: SMS credentials are required outside demo mode (or set TELEPATHY_DEMO=true)".into());
        }
        if !demo && portone.is_none() {
            errors.push("TELEPATHY_PORTONE_API_SECRET: PortOne credentials are required outside demo mode (or set TELEPATHY_DEMO=true)".into());
        }

        let service_window = match get("TELEPATHY_SERVICE_HOURS") {
            Some(text) => ServiceWindow::parse(&text).unwrap_or_else(|e| {
                errors.push(format!("TELEPATHY_SERVICE_HOURS: {e}"));
                ServiceWindow::default()
            }),
            None if demo => ServiceWindow::Always,
            None => ServiceWindow::default(),
        };
        let grace = number(&get, "TELEPATHY_GRACE_SECONDS", 30, &mut errors);
        let drain = number(&get, "TELEPATHY_DRAIN_SECONDS", 10, &mut errors);
        let worker_threads =
            usize::try_from(number(&get, "TELEPATHY_WORKER_THREADS", 0, &mut errors))
                .ok()
                .filter(|n| *n > 0);
        let retention_days = number(&get, "TELEPATHY_CHAT_RETENTION_DAYS", 183, &mut errors);
        let node_id = get("TELEPATHY_NODE_ID")
            .unwrap_or_else(|| format!("node-{:016x}", rand::random::<u64>()));
        let metrics_token = get("TELEPATHY_METRICS_TOKEN").map(Secret::new);
        let trusted_proxies = match (
            get("TELEPATHY_TRUSTED_PROXIES"),
            get("TELEPATHY_TRUST_PROXY"),
        ) {
            (Some(_), Some(_)) => {
                errors.push("TELEPATHY_TRUST_PROXY: replaced by TELEPATHY_TRUSTED_PROXIES; set only that one".into());
                0
            }
            (Some(_), None) => number(&get, "TELEPATHY_TRUSTED_PROXIES", 0, &mut errors),
            (None, Some(_)) => i64::from(flag(&get, "TELEPATHY_TRUST_PROXY", false, &mut errors)),
            (None, None) => 0,
        };
        let outbox_token = get("TELEPATHY_OUTBOX_TOKEN").map(Secret::new);
        let business = business_info(&get, demo, &mut errors);
        let transfer_account = match (
            get("TELEPATHY_TRANSFER_BANK"),
            get("TELEPATHY_TRANSFER_ACCOUNT"),
            get("TELEPATHY_TRANSFER_HOLDER"),
        ) {
            (Some(bank), Some(number), Some(holder)) => TransferAccount {
                bank,
                number,
                holder,
            },
            (bank, number, holder) => {
                if bank.is_some() || number.is_some() || holder.is_some() {
                    errors.push("TELEPATHY_TRANSFER_BANK, TELEPATHY_TRANSFER_ACCOUNT and TELEPATHY_TRANSFER_HOLDER go together: set all three".into());
                } else if !demo {
                    errors.push("TELEPATHY_TRANSFER_BANK: the account word sets are paid to is required outside demo mode (or set TELEPATHY_DEMO=true)".into());
                }
                // Demo mode names no real account: nobody can send money there by mistake.
                TransferAccount {
                    bank: "데모은행".into(),
                    number: "000-0000-0000".into(),
                    holder: "텔레파시 데모".into(),
                }
            }
        };
        let data_key = match get("TELEPATHY_DATA_KEY") {
            Some(text) => DataKey::from_base64(&text).unwrap_or_else(|why| {
                errors.push(format!(
                    "TELEPATHY_DATA_KEY: {why}; expected base64 of 32 random bytes (openssl rand -base64 32)"
                ));
                DataKey::demo()
            }),
            None if demo => DataKey::demo(),
            None => {
                errors.push("TELEPATHY_DATA_KEY: the key that seals refund accounts and authenticator secrets is required outside demo mode (openssl rand -base64 32)".into());
                DataKey::demo()
            }
        };
        let demo_transfer_secs = number(&get, "TELEPATHY_DEMO_TRANSFER_SECONDS", 5, &mut errors);
        let demo_transfer_paid_after = (demo && demo_transfer_secs > 0)
            .then(|| Duration::from_secs(demo_transfer_secs.unsigned_abs()));

        let vapid = get("TELEPATHY_VAPID_PRIVATE_KEY").and_then(|text| {
            VapidKeys::from_private_base64(&text)
                .map_err(|why| {
                    errors.push(format!(
                        "TELEPATHY_VAPID_PRIVATE_KEY: {why}; `telepathy vapid` makes a pair"
                    ));
                })
                .ok()
        });
        if !demo && vapid.is_none() && get("TELEPATHY_VAPID_PRIVATE_KEY").is_none() {
            errors.push("TELEPATHY_VAPID_PRIVATE_KEY: the key of the opening bell's pushes is required outside demo mode (`telepathy vapid` makes a pair)".into());
        }
        let vapid_subject = match get("TELEPATHY_VAPID_SUBJECT") {
            Some(s) if s.starts_with("mailto:") || s.starts_with("https://") => s,
            Some(s) => {
                errors.push(format!(
                    "TELEPATHY_VAPID_SUBJECT: `{s}` is neither a mailto: nor an https: URL"
                ));
                s
            }
            None if demo => "mailto:help@telepathy.example".into(),
            None => {
                errors.push("TELEPATHY_VAPID_SUBJECT: the contact for push services (mailto: or https:) is required outside demo mode".into());
                String::new()
            }
        };
        let push_services = match get("TELEPATHY_PUSH_SERVICES") {
            None => PushServices::browsers(),
            Some(list) => PushServices::parse(&list).unwrap_or_else(|why| {
                errors.push(format!("TELEPATHY_PUSH_SERVICES: {why}"));
                PushServices::browsers()
            }),
        };
        let links = ExternalLinks {
            community: https_page(&get, "TELEPATHY_COMMUNITY_URL", &mut errors),
            payment_inquiry: https_page(&get, "TELEPATHY_PAYMENT_INQUIRY_URL", &mut errors),
            faq: https_page(&get, "TELEPATHY_FAQ_URL", &mut errors),
        };

        if !errors.is_empty() {
            return Err(ConfigErrors(errors));
        }
        Ok(Self {
            listen,
            database_url,
            backend,
            redis_url,
            redis_prefix: get("TELEPATHY_REDIS_PREFIX").unwrap_or_else(|| "tp:".into()),
            demo,
            public_origins,
            static_dir: PathBuf::from(
                get("TELEPATHY_STATIC_DIR").unwrap_or_else(|| "webapp/dist".into()),
            ),
            trusted_proxies: usize::try_from(trusted_proxies).unwrap_or(0),
            json_logs,
            solapi,
            portone,
            card_payments,
            service_window,
            grace: Duration::from_secs(grace.unsigned_abs()),
            drain: Duration::from_secs(drain.unsigned_abs()),
            worker_threads,
            retention_days,
            node_id,
            metrics_token,
            outbox_token,
            business,
            transfer_account,
            deposit_webhook_secret: get("TELEPATHY_DEPOSIT_WEBHOOK_SECRET").map(Secret::new),
            data_key,
            demo_transfer_paid_after,
            vapid,
            vapid_subject,
            push_services,
            links,
        })
    }
}

/// The `TELEPATHY_BUSINESS_*` and officer variables. Demo mode names a demo operator and
/// email so its pages read whole; everything else is left out until set.
fn business_info(
    get: &impl Fn(&str) -> Option<String>,
    demo: bool,
    errors: &mut Vec<String>,
) -> BusinessInfo {
    let email = |name: &str, errors: &mut Vec<String>| {
        let value = get(name)?;
        if looks_like_email(&value) {
            Some(value)
        } else {
            errors.push(format!(
                "{name}: `{value}` is not an email address like help@example.com"
            ));
            None
        }
    };
    let registration_number = get("TELEPATHY_BUSINESS_REGISTRATION_NUMBER").and_then(|value| {
        let digits: String = value.chars().filter(|c| *c != '-').collect();
        if digits.len() == 10 && digits.chars().all(|c| c.is_ascii_digit()) {
            Some(format!("{}-{}-{}", &digits[..3], &digits[3..5], &digits[5..]))
        } else {
            errors.push(format!(
                "TELEPATHY_BUSINESS_REGISTRATION_NUMBER: `{value}` is not 10 digits like 123-45-67890"
            ));
            None
        }
    });
    let officer = |prefix: &str, errors: &mut Vec<String>| {
        let position = get(&format!("{prefix}_POSITION"));
        let email = email(&format!("{prefix}_EMAIL"), errors);
        match get(&format!("{prefix}_NAME")) {
            Some(name) => Some(Officer {
                name,
                position,
                email,
            }),
            None => {
                if position.is_some() || email.is_some() {
                    errors.push(format!(
                        "{prefix}_NAME: the officer's position or email is set without a name"
                    ));
                }
                None
            }
        }
    };
    let youth_officer = officer("TELEPATHY_YOUTH_OFFICER", errors);
    let privacy_officer = officer("TELEPATHY_PRIVACY_OFFICER", errors);
    BusinessInfo {
        name: get("TELEPATHY_BUSINESS_NAME").or_else(|| demo.then(|| "텔레파시 운영팀".to_owned())),
        representative: get("TELEPATHY_BUSINESS_REPRESENTATIVE"),
        registration_number,
        mail_order_number: get("TELEPATHY_BUSINESS_MAIL_ORDER_NUMBER"),
        address: get("TELEPATHY_BUSINESS_ADDRESS"),
        phone: get("TELEPATHY_BUSINESS_PHONE"),
        email: email("TELEPATHY_BUSINESS_EMAIL", errors)
            .or_else(|| demo.then(|| "help@telepathy.example".to_owned())),
        hosting: get("TELEPATHY_BUSINESS_HOSTING"),
        youth_officer,
        privacy_officer,
    }
}

/// A page's address the browser opens: absolute, https, with a host.
fn https_page(
    get: &impl Fn(&str) -> Option<String>,
    name: &str,
    errors: &mut Vec<String>,
) -> Option<String> {
    let value = get(name)?;
    match url::Url::parse(&value) {
        Ok(url) if url.scheme() == "https" && url.host_str().is_some() => Some(url.into()),
        _ => {
            errors.push(format!(
                "{name}: `{value}` is not a page address like https://example.com/page"
            ));
            None
        }
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

fn number(
    get: &impl Fn(&str) -> Option<String>,
    name: &str,
    default: i64,
    errors: &mut Vec<String>,
) -> i64 {
    match get(name) {
        None => default,
        Some(text) => match text.parse::<i64>() {
            Ok(n) if n >= 0 => n,
            _ => {
                errors.push(format!(
                    "{name}: `{text}` is not a whole number of at least 0"
                ));
                default
            }
        },
    }
}

fn flag(
    get: &impl Fn(&str) -> Option<String>,
    name: &str,
    default: bool,
    errors: &mut Vec<String>,
) -> bool {
    match get(name).as_deref() {
        None => default,
        Some("1" | "true" | "yes" | "on") => true,
        Some("0" | "false" | "no" | "off") => false,
        Some(other) => {
            errors.push(format!("{name}: `{other}` is not true or false"));
            default
        }
    }
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
        assert_eq!(
            config(OUTSIDE_DEMO).unwrap().business,
            BusinessInfo::default()
        );
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
            Some(Officer {
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
}
