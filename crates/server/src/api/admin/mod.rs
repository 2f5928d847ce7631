//! The operations console under `/api/admin`: operators log in with a password and a TOTP
//! code (`auth`), work the report queue (`reports`), look up and sanction users, read the
//! audit log (`users`), hide comments of the board (`comments`) and megaphones
//! (`megaphones`), and confirm bank transfers and review the custom word sets they bought
//! (`wordsets`). Everything but logging in needs an operator session that passed the second factor; a user session never
//! counts. Every action of an operator leaves one line in the audit log.

mod auth;
mod comments;
mod megaphones;
mod reports;
mod users;
mod wordsets;

pub use auth::AdminAuthApi;
pub use comments::AdminCommentsApi;
pub use megaphones::AdminMegaphonesApi;
pub use reports::AdminReportsApi;
pub use users::AdminUsersApi;
pub use wordsets::AdminWordsetsApi;

use poem_openapi::{Enum, Object};
use telepathy_domain::limits::REPORT_DUE;
use telepathy_domain::safety::ReportReason;
use telepathy_domain::time::millis;
use telepathy_store::{ReportRow, SanctionRow};

/// RFC 3339 of a Unix-milliseconds time.
fn time(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .to_rfc3339()
}

/// Who filed a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "lowercase")]
pub enum ReportSource {
    /// The reported user's chat partner.
    User,
    /// The abuse filter, after masking several messages of one sender in one chat.
    Filter,
}

/// Where a report stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "lowercase")]
pub enum ReportStatus {
    /// Waiting for an operator.
    Open,
    /// Resolved without a sanction.
    Dismissed,
    /// Resolved with a sanction.
    Actioned,
}

impl ReportStatus {
    fn of(stored: &str) -> Self {
        match stored {
            "dismissed" => Self::Dismissed,
            "actioned" => Self::Actioned,
            _ => Self::Open,
        }
    }
}

/// A user as a report names them.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct Reporter {
    pub id: i64,
    /// None for an erased account.
    pub nickname: Option<String>,
}

/// The reported user.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct Reported {
    pub id: i64,
    pub nickname: Option<String>,
    pub username: String,
}

/// A report in the queue.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase", skip_serializing_if_is_none)]
pub struct ReportItem {
    pub id: i64,
    pub source: ReportSource,
    /// RFC 3339.
    pub created_at: String,
    /// When the report must be handled: 24 hours after it was filed (RFC 3339).
    pub due_at: String,
    /// An open report past `dueAt`, or a resolved one resolved after it.
    pub overdue: bool,
    pub room_id: String,
    /// The reasons as the report modal shows them (욕설/비하, 위협, …).
    pub reasons: Vec<String>,
    /// The reporter's own words (or, for the filter, what it saw).
    pub extra: String,
    /// None when the filter filed it.
    pub reporter: Option<Reporter>,
    pub reported: Reported,
    pub status: ReportStatus,
    /// What was decided: `기각`, `경고: …`, `7일 정지: …`, `영구 정지: …`.
    pub resolution: Option<String>,
    /// RFC 3339.
    pub resolved_at: Option<String>,
    /// The username of the operator who resolved it.
    pub resolved_by: Option<String>,
}

/// A report in a user's history.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase", skip_serializing_if_is_none)]
pub struct ReportBrief {
    pub id: i64,
    pub source: ReportSource,
    /// RFC 3339.
    pub created_at: String,
    pub reasons: Vec<String>,
    pub status: ReportStatus,
    pub resolution: Option<String>,
}

/// A sanction in a user's history.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase", skip_serializing_if_is_none)]
pub struct SanctionItem {
    pub id: i64,
    /// `warn`, `suspend` or `ban`.
    pub kind: String,
    /// The reason the user was shown.
    pub reason: String,
    /// RFC 3339.
    pub created_at: String,
    /// When a suspension ends (RFC 3339).
    pub until: Option<String>,
    /// When it was lifted, or when a suspension ran out (RFC 3339).
    pub lifted_at: Option<String>,
    /// Neither lifted nor run out: it may be lifted.
    pub active: bool,
    /// A warning: when the user confirmed reading it (RFC 3339); absent while unread.
    pub seen_at: Option<String>,
    /// The username of the operator who gave it.
    pub operator: Option<String>,
    /// The report it answered.
    pub report_id: Option<i64>,
}

fn labels(codes: &str) -> Vec<String> {
    codes
        .split(',')
        .filter(|c| !c.is_empty())
        .map(|c| ReportReason::parse(c).map_or_else(|| c.to_owned(), |r| r.label().to_owned()))
        .collect()
}

fn source(stored: &str) -> ReportSource {
    if stored == "filter" {
        ReportSource::Filter
    } else {
        ReportSource::User
    }
}

fn report_item(r: &ReportRow, now: i64) -> ReportItem {
    let due = r.created_at.saturating_add(millis(REPORT_DUE));
    ReportItem {
        id: r.id,
        source: source(&r.source),
        created_at: time(r.created_at),
        due_at: time(due),
        overdue: r.resolved_at.unwrap_or(now) > due,
        room_id: r.room_id.clone(),
        reasons: labels(&r.reasons),
        extra: r.extra.clone(),
        reporter: r.reporter_id.map(|id| Reporter {
            id,
            nickname: r.reporter_nickname.clone(),
        }),
        reported: Reported {
            id: r.reported_id,
            nickname: r.reported_nickname.clone(),
            username: r.reported_username.clone(),
        },
        status: ReportStatus::of(&r.status),
        resolution: r.resolution.clone(),
        resolved_at: r.resolved_at.map(time),
        resolved_by: r.resolved_by.clone(),
    }
}

fn report_brief(r: &ReportRow) -> ReportBrief {
    ReportBrief {
        id: r.id,
        source: source(&r.source),
        created_at: time(r.created_at),
        reasons: labels(&r.reasons),
        status: ReportStatus::of(&r.status),
        resolution: r.resolution.clone(),
    }
}

fn sanction_item(row: &SanctionRow, now: i64) -> SanctionItem {
    let s = &row.sanction;
    SanctionItem {
        id: s.id,
        kind: s.kind.clone(),
        reason: s.reason.clone(),
        created_at: time(s.created_at),
        until: s.until.map(time),
        lifted_at: s.lifted_at.map(time),
        active: s.lifted_at.is_none() && s.until.is_none_or(|until| until > now),
        seen_at: s.seen_at.map(time),
        operator: row.operator_username.clone(),
        report_id: s.report_id,
    }
}

/// How many of a user's reports a history lists.
const HISTORY_REPORTS: i64 = 50;
