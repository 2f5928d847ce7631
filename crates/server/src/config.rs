//! Configuration from environment variables (and an optional `.env`), all under the
//! `TELEPATHY_` prefix but for the two conventional URLs. Validated at start: every problem
//! is reported at once, naming the variable.

use std::net::SocketAddr;
use std::path::PathBuf;

use std::time::Duration;

use telepathy_domain::round::ServiceWindow;
use telepathy_providers::{PortOneConfig, Secret, SolapiConfig};
use telepathy_store::Backend;

/// One documented variable. `.env.example` is checked against this list by a test.
pub struct VarDoc {
    pub name: &'static str,
    pub example: &'static str,
    pub doc: &'static str,
}

/// Every variable the server reads.
pub const VARS: &[VarDoc] = &[
    VarDoc { name: "DATABASE_URL", example: "sqlite://data/telepathy.db", doc: "SQL database: sqlite://path (embedded) or postgres://user@host/db (cluster)." },
    VarDoc { name: "REDIS_URL", example: "", doc: "Redis for cross-node state. Unset: the in-memory engine of a single node." },
    VarDoc { name: "TELEPATHY_LISTEN", example: "127.0.0.1:8080", doc: "Address and port to listen on." },
    VarDoc { name: "TELEPATHY_PUBLIC_ORIGIN", example: "http://127.0.0.1:8080", doc: "Origin(s) the web app is served from, comma-separated; state changes and sockets from other origins are refused. Default: the listen address (and localhost)." },
    VarDoc { name: "TELEPATHY_DEMO", example: "true", doc: "Demo providers (SMS outbox, identity, payments) and an always-open service. Default: true in the embedded mode, false in a cluster." },
    VarDoc { name: "TELEPATHY_SINGLE_NODE", example: "false", doc: "Allow Redis with a node-local SQLite file; only correct when exactly one node runs." },
    VarDoc { name: "TELEPATHY_STATIC_DIR", example: "webapp/dist", doc: "Folder of the built web app." },
    VarDoc { name: "TELEPATHY_TRUSTED_PROXIES", example: "0", doc: "How many proxies (load balancers) of ours stand before a node; each appends to X-Forwarded-For, and the client is the address this many entries from its right end. 0: the connection's address, X-Forwarded-For ignored." },
    VarDoc { name: "TELEPATHY_TRUST_PROXY", example: "", doc: "Former name: true means TELEPATHY_TRUSTED_PROXIES=1, false 0." },
    VarDoc { name: "TELEPATHY_REDIS_PREFIX", example: "tp:", doc: "Prefix of every Redis key of this deployment." },
    VarDoc { name: "TELEPATHY_SERVICE_HOURS", example: "20:00-02:00", doc: "When matching is open, Asia/Seoul: HH:MM-HH:MM (may wrap midnight) or always. Default: 20:00-02:00; always in demo mode." },
    VarDoc { name: "TELEPATHY_GRACE_SECONDS", example: "30", doc: "How long a disconnected chat member may take to come back before the partner is told the chat ended." },
    VarDoc { name: "TELEPATHY_DRAIN_SECONDS", example: "10", doc: "On SIGTERM: how long requests in flight may take to finish before the node exits (its sockets are told at once to reconnect elsewhere)." },
    VarDoc { name: "TELEPATHY_CHAT_RETENTION_DAYS", example: "183", doc: "Days archived chat messages are kept before they are purged (the privacy policy says 6 months)." },
    VarDoc { name: "TELEPATHY_NODE_ID", example: "", doc: "This node's name in presence records. Default: a random id per start." },
    VarDoc { name: "TELEPATHY_LOG_FORMAT", example: "text", doc: "text or json." },
    VarDoc { name: "TELEPATHY_METRICS_TOKEN", example: "", doc: "Bearer token that lets a scraper from another host read /metrics. Unset: /metrics answers only to this machine (loopback)." },
    VarDoc { name: "TELEPATHY_OUTBOX_TOKEN", example: "", doc: "Demo mode: bearer token that lets a client on another host read sign-up codes from /api/dev/sms-outbox. Unset: the outbox answers only to this machine (loopback)." },
    VarDoc { name: "TELEPATHY_SOLAPI_API_KEY", example: "", doc: "Solapi API key (real SMS; required outside demo mode)." },
    VarDoc { name: "TELEPATHY_SOLAPI_API_SECRET", example: "", doc: "Solapi API secret." },
    VarDoc { name: "TELEPATHY_SOLAPI_SENDER", example: "", doc: "Registered sender number for SMS." },
    VarDoc { name: "TELEPATHY_SOLAPI_BASE_URL", example: "https://api.solapi.com", doc: "Solapi API base URL." },
    VarDoc { name: "TELEPATHY_PORTONE_API_SECRET", example: "", doc: "PortOne V2 API secret (identity verification; required outside demo mode)." },
    VarDoc { name: "TELEPATHY_PORTONE_STORE_ID", example: "", doc: "PortOne store id given to the browser widget." },
    VarDoc { name: "TELEPATHY_PORTONE_IDENTITY_CHANNEL_KEY", example: "", doc: "PortOne channel key of the identity verification channel." },
    VarDoc { name: "TELEPATHY_PORTONE_BASE_URL", example: "https://api.portone.io", doc: "PortOne V2 API base URL." },
    VarDoc { name: "TELEPATHY_OPERATOR_PASSWORD", example: "", doc: "Read only by `telepathy operator add`: the new operator's password (otherwise one line of standard input). Never set it for a running node." },
];

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
    pub service_window: ServiceWindow,
    pub grace: Duration,
    /// On SIGTERM, how long requests in flight may take before the node exits.
    pub drain: Duration,
    pub retention_days: i64,
    pub node_id: String,
    /// Lets scrapers from other hosts read `/metrics` (`Authorization: Bearer …`).
    pub metrics_token: Option<Secret>,
    /// Lets clients on other hosts read the demo SMS outbox (`Authorization: Bearer …`).
    pub outbox_token: Option<Secret>,
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
            if !(url.starts_with("redis://") || url.starts_with("rediss://")) {
                errors.push("REDIS_URL: expected redis://host:port".into());
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
            service_window,
            grace: Duration::from_secs(grace.unsigned_abs()),
            drain: Duration::from_secs(drain.unsigned_abs()),
            retention_days,
            node_id,
            metrics_token,
            outbox_token,
        })
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
        let c = config(&[
            ("TELEPATHY_DEMO", "false"),
            ("TELEPATHY_SOLAPI_API_KEY", "k"),
            ("TELEPATHY_SOLAPI_API_SECRET", "s"),
            ("TELEPATHY_SOLAPI_SENDER", "0212345678"),
            ("TELEPATHY_PORTONE_API_SECRET", "s"),
            ("TELEPATHY_PORTONE_STORE_ID", "x"),
            ("TELEPATHY_PORTONE_IDENTITY_CHANNEL_KEY", "y"),
        ])
        .unwrap();
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
                && err.contains("TELEPATHY_PORTONE_API_SECRET"),
            "{err}"
        );
        let c = config(&[vars[0], vars[1], ("TELEPATHY_DEMO", "true")]).unwrap();
        assert!(c.demo);
        assert_eq!(c.backend, Backend::Postgres);
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
    fn env_example_lists_every_variable() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../.env.example");
        let text = std::fs::read_to_string(path).unwrap();
        let listed: Vec<&str> = text
            .lines()
            .filter_map(|l| l.trim_start_matches('#').trim().split_once('='))
            .map(|(k, _)| k.trim())
            .filter(|k| k.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
            .collect();
        let known: Vec<&str> = VARS.iter().map(|v| v.name).collect();
        for name in &known {
            assert!(listed.contains(name), ".env.example lacks {name}");
        }
        for name in &listed {
            assert!(
                known.contains(name),
                ".env.example lists {name}, which the server does not read"
            );
        }
    }
}
