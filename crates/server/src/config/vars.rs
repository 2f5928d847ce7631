//! The one description of the environment a node reads: each variable's name, meaning,
//! default and example, written once, in sections. `Config::from_lookup` takes its defaults
//! from here, and `.env.example` is rendered from it (`env_example`); a test fails when the
//! committed file differs from the rendering, and
//! `UPDATE_ENV_EXAMPLE=1 cargo test -p telepathy-server --lib env_example` rewrites it.

use telepathy_providers::{PortOneConfig, PortOneV1Config, SolapiConfig};

/// One variable the server reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Var {
    pub name: &'static str,
    /// What it means, and what leaving it unset means where no one value says it.
    pub doc: &'static str,
    /// The value an unset variable stands for, where one value does.
    pub default: Option<&'static str>,
    /// The value an unset variable stands for in demo mode, where it differs.
    pub demo_default: Option<&'static str>,
    /// A value `.env.example` shows where there is no default.
    pub example: Option<&'static str>,
}

impl Var {
    const fn new(name: &'static str, doc: &'static str) -> Self {
        Self {
            name,
            doc,
            default: None,
            demo_default: None,
            example: None,
        }
    }

    const fn defaults_to(self, value: &'static str) -> Self {
        Self {
            default: Some(value),
            ..self
        }
    }

    const fn in_demo(self, value: &'static str) -> Self {
        Self {
            demo_default: Some(value),
            ..self
        }
    }

    const fn example(self, value: &'static str) -> Self {
        Self {
            example: Some(value),
            ..self
        }
    }

    /// What an unset variable stands for, in demo mode (`demo`) or not.
    pub fn unset(&self, demo: bool) -> Option<&'static str> {
        match self.demo_default {
            Some(value) if demo => Some(value),
            _ => self.default,
        }
    }
}

/// Variables that belong together, as `.env.example` groups them and
/// `Config::from_lookup` reads them.
#[derive(Debug)]
pub struct Section {
    pub title: &'static str,
    /// What the whole section is about, where its variables do not say it.
    pub doc: Option<&'static str>,
    pub vars: &'static [Var],
}

// Mode and storage.
pub const DATABASE_URL: Var = Var::new(
    "DATABASE_URL",
    "SQL database: sqlite://path (embedded) or postgres://user@host/db (cluster).",
)
.defaults_to("sqlite://data/telepathy.db");
pub const REDIS_URL: Var = Var::new(
    "REDIS_URL",
    "Redis for cross-node state: redis://host:port for one server, \
     redis-cluster://host:port?node=host:port&… for a Redis Cluster. Unset: the in-memory \
     engine of a single node.",
)
.example("redis://127.0.0.1:6379");
pub const SINGLE_NODE: Var = Var::new(
    "TELEPATHY_SINGLE_NODE",
    "Allow Redis with a node-local SQLite file; only correct when exactly one node runs.",
)
.defaults_to("false");
pub const DEMO: Var = Var::new(
    "TELEPATHY_DEMO",
    "Demo providers (SMS outbox, identity, payments) and an always-open service. Unset: true \
     in the embedded mode, false in a cluster.",
);
pub const REDIS_PREFIX: Var = Var::new(
    "TELEPATHY_REDIS_PREFIX",
    "Prefix of every Redis key of this deployment.",
)
.defaults_to("tp:");
pub const DATA_KEY: Var = Var::new(
    "TELEPATHY_DATA_KEY",
    "Base64 of 32 random bytes (openssl rand -base64 32): the AES-256-GCM key that seals \
     refund account numbers and the operators' authenticator secrets in the database; \
     changing it makes them unreadable. Required outside demo mode; keep it with the \
     database's backups, apart from them.",
);

// Listening.
pub const LISTEN: Var =
    Var::new("TELEPATHY_LISTEN", "Address and port to listen on.").defaults_to("127.0.0.1:8080");
pub const PUBLIC_ORIGIN: Var = Var::new(
    "TELEPATHY_PUBLIC_ORIGIN",
    "Origin(s) the web app is served from, comma-separated; state changes and sockets from \
     other origins are refused. Unset: the listen address (and localhost).",
)
.example("https://telepathy.example");
pub const TRUSTED_PROXIES: Var = Var::new(
    "TELEPATHY_TRUSTED_PROXIES",
    "How many proxies (load balancers) of ours stand before a node; each appends to \
     X-Forwarded-For, and the client is the address this many entries from its right end. \
     0: the connection's address, X-Forwarded-For ignored.",
)
.defaults_to("0");
pub const TRUST_PROXY: Var = Var::new(
    "TELEPATHY_TRUST_PROXY",
    "Former name: true means TELEPATHY_TRUSTED_PROXIES=1, false 0.",
);
pub const STATIC_DIR: Var =
    Var::new("TELEPATHY_STATIC_DIR", "Folder of the built web app.").defaults_to("webapp/dist");

// The node.
pub const SERVICE_HOURS: Var = Var::new(
    "TELEPATHY_SERVICE_HOURS",
    "When matching is open, Asia/Seoul: HH:MM-HH:MM (may wrap midnight) or always.",
)
.defaults_to("20:00-02:00")
.in_demo("always");
pub const GRACE_SECONDS: Var = Var::new(
    "TELEPATHY_GRACE_SECONDS",
    "How long a disconnected chat member may take to come back before the partner is told \
     the chat ended.",
)
.defaults_to("30");
pub const DRAIN_SECONDS: Var = Var::new(
    "TELEPATHY_DRAIN_SECONDS",
    "On SIGTERM: how long requests in flight may take to finish before the node exits (its \
     sockets are told at once to reconnect elsewhere).",
)
.defaults_to("10");
pub const REQUEST_TIMEOUT_SECONDS: Var = Var::new(
    "TELEPATHY_REQUEST_TIMEOUT_SECONDS",
    "How long a client may take to send a request's head, from its first byte, and then \
     its body: a slower one is cut off (a body with 408).",
)
.defaults_to("20");
pub const IDLE_TIMEOUT_SECONDS: Var = Var::new(
    "TELEPATHY_IDLE_TIMEOUT_SECONDS",
    "How long a connection may stay silent before the node closes it: between requests, \
     and on a WebSocket (the node pings every 25 s). Keep it above the load balancer's \
     keep-alive timeout towards the nodes, so that the balancer closes first.",
)
.defaults_to("75");
pub const WORKER_THREADS: Var = Var::new(
    "TELEPATHY_WORKER_THREADS",
    "Threads that run the node's work. 0: one per CPU the process may use (its CPU quota \
     counts). Give several nodes on one machine one each, as many as the cores they share \
     between them.",
)
.defaults_to("0");
pub const CHAT_RETENTION_DAYS: Var = Var::new(
    "TELEPATHY_CHAT_RETENTION_DAYS",
    "Days archived chat messages are kept before they are purged (the privacy policy says 6 \
     months).",
)
.defaults_to("183");
pub const NODE_ID: Var = Var::new(
    "TELEPATHY_NODE_ID",
    "This node's name in presence records. Unset: a random id per start.",
);
pub const LOG_FORMAT: Var = Var::new("TELEPATHY_LOG_FORMAT", "text or json.").defaults_to("text");

// Who may read what only operators should.
pub const METRICS_TOKEN: Var = Var::new(
    "TELEPATHY_METRICS_TOKEN",
    "Bearer token that lets a scraper from another host read /metrics. Unset: /metrics \
     answers only to this machine (loopback).",
);
pub const OUTBOX_TOKEN: Var = Var::new(
    "TELEPATHY_OUTBOX_TOKEN",
    "Demo mode: bearer token that lets a client on another host read sign-up codes from \
     /api/dev/sms-outbox. Unset: the outbox answers only to this machine (loopback).",
);
pub const OPERATOR_PASSWORD: Var = Var::new(
    "TELEPATHY_OPERATOR_PASSWORD",
    "Read only by `telepathy operator add`: the new operator's password (otherwise one line \
     of standard input). Never set it for a running node.",
);

// SMS.
pub const SOLAPI_API_KEY: Var = Var::new(
    "TELEPATHY_SOLAPI_API_KEY",
    "Solapi API key (real SMS; required outside demo mode).",
);
pub const SOLAPI_API_SECRET: Var = Var::new("TELEPATHY_SOLAPI_API_SECRET", "Solapi API secret.");
pub const SOLAPI_SENDER: Var = Var::new(
    "TELEPATHY_SOLAPI_SENDER",
    "Registered sender number for SMS.",
);
pub const SOLAPI_BASE_URL: Var = Var::new("TELEPATHY_SOLAPI_BASE_URL", "Solapi API base URL.")
    .defaults_to(SolapiConfig::DEFAULT_BASE_URL);

// Identity verification.
pub const PORTONE_API_SECRET: Var = Var::new(
    "TELEPATHY_PORTONE_API_SECRET",
    "PortOne V2 API secret (identity verification; required outside demo mode).",
);
pub const PORTONE_STORE_ID: Var = Var::new(
    "TELEPATHY_PORTONE_STORE_ID",
    "PortOne store id given to the browser widget.",
);
pub const PORTONE_IDENTITY_CHANNEL_KEY: Var = Var::new(
    "TELEPATHY_PORTONE_IDENTITY_CHANNEL_KEY",
    "PortOne channel key of the identity verification channel.",
);
pub const PORTONE_BASE_URL: Var =
    Var::new("TELEPATHY_PORTONE_BASE_URL", "PortOne V2 API base URL.")
        .defaults_to(PortOneConfig::DEFAULT_BASE_URL);

// Card payments.
pub const PORTONE_V1_API_KEY: Var = Var::new(
    "TELEPATHY_PORTONE_V1_API_KEY",
    "PortOne V1 (iamport) REST API key for card payments of megaphones; required outside \
     demo mode.",
);
pub const PORTONE_V1_API_SECRET: Var = Var::new(
    "TELEPATHY_PORTONE_V1_API_SECRET",
    "PortOne V1 REST API secret.",
);
pub const PORTONE_V1_IMP_CODE: Var = Var::new(
    "TELEPATHY_PORTONE_V1_IMP_CODE",
    "PortOne V1 merchant code (imp12345678) given to the payment window.",
);
pub const PORTONE_V1_PG: Var = Var::new(
    "TELEPATHY_PORTONE_V1_PG",
    "The pg of the payment window (IMP.request_pay).",
)
.defaults_to("html5_inicis");
pub const PORTONE_V1_BASE_URL: Var =
    Var::new("TELEPATHY_PORTONE_V1_BASE_URL", "PortOne V1 API base URL.")
        .defaults_to(PortOneV1Config::DEFAULT_BASE_URL);

// Bank transfers.
pub const TRANSFER_BANK: Var = Var::new(
    "TELEPATHY_TRANSFER_BANK",
    "The bank of the account custom word sets are paid to by transfer (e.g. 국민). Required \
     outside demo mode, with the account and holder; demo mode names no real account, so \
     nobody can send money there by mistake.",
)
.in_demo("데모은행");
pub const TRANSFER_ACCOUNT: Var = Var::new(
    "TELEPATHY_TRANSFER_ACCOUNT",
    "The account number word sets are paid to.",
)
.in_demo("000-0000-0000");
pub const TRANSFER_HOLDER: Var = Var::new(
    "TELEPATHY_TRANSFER_HOLDER",
    "The holder (예금주) of that account, as the bank shows it.",
)
.in_demo("텔레파시 데모");
pub const DEPOSIT_WEBHOOK_SECRET: Var = Var::new(
    "TELEPATHY_DEPOSIT_WEBHOOK_SECRET",
    "Shared secret of the bank's deposit notifications (POST \
     /api/sp_payments/deposit-webhook, X-Signature: sha256=<hex HMAC-SHA256 of the body>). \
     Unset: every notification is refused and operators confirm transfers.",
);
pub const DEMO_TRANSFER_SECONDS: Var = Var::new(
    "TELEPATHY_DEMO_TRANSFER_SECONDS",
    "Demo mode: a pending transfer counts as paid this many seconds after it was opened; 0: \
     only an operator or the deposit notification confirms it.",
)
.defaults_to("5");

// The opening bell.
pub const VAPID_PRIVATE_KEY: Var = Var::new(
    "TELEPATHY_VAPID_PRIVATE_KEY",
    "The VAPID private key that signs the opening bell's Web Push messages (base64url of 32 \
     bytes; `telepathy vapid` makes a pair). Required outside demo mode; changing it orphans \
     every subscription. Demo mode makes one and keeps it in the database.",
);
pub const VAPID_SUBJECT: Var = Var::new(
    "TELEPATHY_VAPID_SUBJECT",
    "The contact push services may write to about our pushes: mailto: or https:. Required \
     outside demo mode.",
)
.in_demo("mailto:help@telepathy.example")
.example("mailto:help@example.com");
pub const PUSH_SERVICES: Var = Var::new(
    "TELEPATHY_PUSH_SERVICES",
    "The push services subscriptions may point at, comma-separated: hosts (HTTPS, with their \
     subdomains) or exact origins. Unset: the browsers' own (FCM, Mozilla, Apple, Windows).",
);

// Links.
pub const COMMUNITY_URL: Var = Var::new(
    "TELEPATHY_COMMUNITY_URL",
    "The community gallery the bottom navigation links to (https). Unset: the navigation has \
     no gallery item.",
);
pub const PAYMENT_INQUIRY_URL: Var = Var::new(
    "TELEPATHY_PAYMENT_INQUIRY_URL",
    "The payment inquiry form My page links to (https). Unset: My page writes to the \
     business email instead, or shows no such button without one.",
);
pub const FAQ_URL: Var = Var::new(
    "TELEPATHY_FAQ_URL",
    "An FAQ page of the operator's own that My page links to (https). Unset: the questions \
     on the app's help page.",
);

// The business.
pub const BUSINESS_NAME: Var = Var::new(
    "TELEPATHY_BUSINESS_NAME",
    "The operator's trade name (상호), shown in the footer, the help page and the terms. \
     Unset: left out.",
)
.in_demo("텔레파시 운영팀");
pub const BUSINESS_REPRESENTATIVE: Var = Var::new(
    "TELEPATHY_BUSINESS_REPRESENTATIVE",
    "The operator's representative (대표자). Unset: left out.",
);
pub const BUSINESS_REGISTRATION_NUMBER: Var = Var::new(
    "TELEPATHY_BUSINESS_REGISTRATION_NUMBER",
    "Business registration number (사업자등록번호), 10 digits, hyphens optional. Unset: left \
     out.",
);
pub const BUSINESS_MAIL_ORDER_NUMBER: Var = Var::new(
    "TELEPATHY_BUSINESS_MAIL_ORDER_NUMBER",
    "Mail-order business report number (통신판매업 신고번호). Unset: left out.",
);
pub const BUSINESS_ADDRESS: Var = Var::new(
    "TELEPATHY_BUSINESS_ADDRESS",
    "The operator's address. Unset: left out.",
);
pub const BUSINESS_PHONE: Var = Var::new(
    "TELEPATHY_BUSINESS_PHONE",
    "The operator's customer phone number. Unset: left out.",
);
pub const BUSINESS_EMAIL: Var = Var::new(
    "TELEPATHY_BUSINESS_EMAIL",
    "The operator's contact email, for questions, appeals and withdrawal requests. Unset: \
     left out.",
)
.in_demo("help@telepathy.example");
pub const BUSINESS_HOSTING: Var = Var::new(
    "TELEPATHY_BUSINESS_HOSTING",
    "The hosting provider (호스팅 제공자), also named in the privacy policy as a processor. \
     Unset: left out.",
);
pub const YOUTH_OFFICER: OfficerVars = OfficerVars {
    name: Var::new(
        "TELEPATHY_YOUTH_OFFICER_NAME",
        "The youth protection officer (청소년보호책임자). Unset: left out, with the officer's \
         position and email.",
    ),
    position: Var::new(
        "TELEPATHY_YOUTH_OFFICER_POSITION",
        "The youth protection officer's position; needs the name.",
    ),
    email: Var::new(
        "TELEPATHY_YOUTH_OFFICER_EMAIL",
        "The youth protection officer's email; needs the name.",
    ),
};
pub const PRIVACY_OFFICER: OfficerVars = OfficerVars {
    name: Var::new(
        "TELEPATHY_PRIVACY_OFFICER_NAME",
        "The privacy officer (개인정보 보호책임자). Unset: left out, with the officer's \
         position and email.",
    ),
    position: Var::new(
        "TELEPATHY_PRIVACY_OFFICER_POSITION",
        "The privacy officer's position; needs the name.",
    ),
    email: Var::new(
        "TELEPATHY_PRIVACY_OFFICER_EMAIL",
        "The privacy officer's email; needs the name.",
    ),
};

/// The three variables of an officer the law asks the operator to name.
#[derive(Debug, Clone, Copy)]
pub struct OfficerVars {
    pub name: Var,
    pub position: Var,
    pub email: Var,
}

/// Every variable the server reads, in the order `.env.example` lists them.
pub const SECTIONS: &[Section] = &[
    Section {
        title: "Mode and storage",
        doc: Some(
            "Nothing set: the embedded mode (a SQLite file, this process's memory, demo \
             providers). REDIS_URL and a postgres:// DATABASE_URL: the cluster mode.",
        ),
        vars: &[
            DATABASE_URL,
            REDIS_URL,
            SINGLE_NODE,
            DEMO,
            REDIS_PREFIX,
            DATA_KEY,
        ],
    },
    Section {
        title: "Listening",
        doc: None,
        vars: &[
            LISTEN,
            PUBLIC_ORIGIN,
            TRUSTED_PROXIES,
            TRUST_PROXY,
            STATIC_DIR,
        ],
    },
    Section {
        title: "The node",
        doc: None,
        vars: &[
            SERVICE_HOURS,
            GRACE_SECONDS,
            DRAIN_SECONDS,
            REQUEST_TIMEOUT_SECONDS,
            IDLE_TIMEOUT_SECONDS,
            WORKER_THREADS,
            CHAT_RETENTION_DAYS,
            NODE_ID,
            LOG_FORMAT,
        ],
    },
    Section {
        title: "Operators' access",
        doc: None,
        vars: &[METRICS_TOKEN, OUTBOX_TOKEN, OPERATOR_PASSWORD],
    },
    Section {
        title: "SMS (Solapi)",
        doc: None,
        vars: &[
            SOLAPI_API_KEY,
            SOLAPI_API_SECRET,
            SOLAPI_SENDER,
            SOLAPI_BASE_URL,
        ],
    },
    Section {
        title: "Identity verification (PortOne V2)",
        doc: None,
        vars: &[
            PORTONE_API_SECRET,
            PORTONE_STORE_ID,
            PORTONE_IDENTITY_CHANNEL_KEY,
            PORTONE_BASE_URL,
        ],
    },
    Section {
        title: "Card payments of megaphones (PortOne V1)",
        doc: None,
        vars: &[
            PORTONE_V1_API_KEY,
            PORTONE_V1_API_SECRET,
            PORTONE_V1_IMP_CODE,
            PORTONE_V1_PG,
            PORTONE_V1_BASE_URL,
        ],
    },
    Section {
        title: "Bank transfers of custom word sets",
        doc: None,
        vars: &[
            TRANSFER_BANK,
            TRANSFER_ACCOUNT,
            TRANSFER_HOLDER,
            DEPOSIT_WEBHOOK_SECRET,
            DEMO_TRANSFER_SECONDS,
        ],
    },
    Section {
        title: "The opening bell (Web Push)",
        doc: None,
        vars: &[VAPID_PRIVATE_KEY, VAPID_SUBJECT, PUSH_SERVICES],
    },
    Section {
        title: "The operator's pages the app links to",
        doc: None,
        vars: &[COMMUNITY_URL, PAYMENT_INQUIRY_URL, FAQ_URL],
    },
    Section {
        title: "The operator's business facts",
        doc: Some(
            "Shown in the footer, on the help page and in the terms. A variable left unset \
             is left out of the pages (no placeholder is ever shown).",
        ),
        vars: &[
            BUSINESS_NAME,
            BUSINESS_REPRESENTATIVE,
            BUSINESS_REGISTRATION_NUMBER,
            BUSINESS_MAIL_ORDER_NUMBER,
            BUSINESS_ADDRESS,
            BUSINESS_PHONE,
            BUSINESS_EMAIL,
            BUSINESS_HOSTING,
            YOUTH_OFFICER.name,
            YOUTH_OFFICER.position,
            YOUTH_OFFICER.email,
            PRIVACY_OFFICER.name,
            PRIVACY_OFFICER.position,
            PRIVACY_OFFICER.email,
        ],
    },
];

/// Every variable, section after section.
pub fn all() -> impl Iterator<Item = &'static Var> {
    SECTIONS.iter().flat_map(|s| s.vars.iter())
}

/// How `.env.example` begins: what it is, the command that rewrites it, how to read it.
const HEADER: [&str; 3] = [
    "Every variable the server reads, with what it means and its default. Rendered from \
     crates/server/src/config/vars.rs, and a test holds it to that: change a variable there, \
     then rewrite this file with",
    "$ UPDATE_ENV_EXAMPLE=1 cargo test -p telepathy-server --lib env_example",
    "Copy it to .env and set what you need; variables already set in the environment win \
     over .env. Every line here is commented out, so a copy changes nothing until you set a \
     line. Where a variable has a default, `Default:` names it and its line shows it; \
     otherwise its line shows an example, or nothing.",
];

/// The width `.env.example` wraps its comments at.
const WIDTH: usize = 92;

/// The text of `.env.example`.
pub fn env_example() -> String {
    let [intro, command, reading] = HEADER;
    let mut out = String::new();
    comment(&mut out, intro);
    out.push_str(&format!("#\n#   {command}\n#\n"));
    comment(&mut out, reading);
    for section in SECTIONS {
        let title = format!("# -- {} ", section.title);
        let rule = WIDTH.saturating_sub(title.chars().count());
        out.push('\n');
        out.push_str(&title);
        out.push_str(&"-".repeat(rule));
        out.push('\n');
        if let Some(doc) = section.doc {
            comment(&mut out, doc);
        }
        for var in section.vars {
            out.push('\n');
            comment(&mut out, var.doc);
            match (var.default, var.demo_default) {
                (Some(value), Some(demo)) => {
                    out.push_str(&format!("# Default: {value}; in demo mode: {demo}\n"))
                }
                (Some(value), None) => out.push_str(&format!("# Default: {value}\n")),
                (None, Some(demo)) => out.push_str(&format!("# Default in demo mode: {demo}\n")),
                (None, None) => {}
            }
            let shown = var.default.or(var.example).unwrap_or_default();
            out.push_str(&format!("# {}={shown}\n", var.name));
        }
    }
    out
}

/// `text` as comment lines of at most `WIDTH` characters (a longer word stands alone).
fn comment(out: &mut String, text: &str) {
    let mut line = String::from("#");
    for word in text.split_whitespace() {
        if line.len() > 1 && line.chars().count() + 1 + word.chars().count() > WIDTH {
            out.push_str(&line);
            out.push('\n');
            line = String::from("#");
        }
        line.push(' ');
        line.push_str(word);
    }
    out.push_str(&line);
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_example_is_rendered_from_the_description() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../.env.example");
        let fresh = env_example();
        if std::env::var_os("UPDATE_ENV_EXAMPLE").is_some() {
            std::fs::write(path, &fresh).unwrap();
        }
        let committed = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            committed == fresh,
            ".env.example is not what crates/server/src/config/vars.rs renders: run \
             `UPDATE_ENV_EXAMPLE=1 cargo test -p telepathy-server --lib env_example`"
        );
    }

    #[test]
    fn each_variable_is_described_once_and_its_default_once() {
        let mut names: Vec<&str> = all().map(|v| v.name).collect();
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count, "a variable is listed twice");
        for var in all() {
            assert!(
                var.name
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'),
                "{}",
                var.name
            );
            if var.default.is_some() {
                assert!(
                    !var.doc.contains("Default") && !var.doc.contains("Unset:"),
                    "{}: the default is rendered from the description; the doc says it again",
                    var.name
                );
            }
        }
    }

    #[test]
    fn comments_wrap_at_the_width() {
        let mut out = String::new();
        comment(&mut out, &"word ".repeat(40));
        assert!(out.lines().all(|l| l.chars().count() <= WIDTH), "{out}");
        assert!(out.lines().all(|l| l.starts_with("# word")), "{out}");
        let mut out = String::new();
        comment(&mut out, &"x".repeat(WIDTH + 5));
        assert_eq!(out.lines().count(), 1, "a long word stands alone");
    }
}
