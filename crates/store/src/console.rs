//! What the operations console reads and decides: the report queue, a report with the
//! history of its two users, user search, the dashboard's counts, resolutions, lifts and
//! the audit log.

use sqlx::FromRow;

use crate::accounts::USER_COLUMNS;
use crate::safety::{insert_sanction, AuditEntry, NewSanction, SANCTION_COLUMNS};
use crate::{Store, StoreError, User};

/// A report with the names the console shows.
#[derive(Debug, Clone, FromRow)]
pub struct ReportRow {
    pub id: i64,
    /// `user` or `filter`.
    pub source: String,
    pub reporter_id: Option<i64>,
    pub reporter_nickname: Option<String>,
    pub reported_id: i64,
    pub reported_nickname: Option<String>,
    pub reported_username: String,
    pub room_id: String,
    /// Reason codes, comma-separated.
    pub reasons: String,
    pub extra: String,
    pub created_at: i64,
    /// `open`, `dismissed` or `actioned`.
    pub status: String,
    pub resolved_at: Option<i64>,
    /// The username of the operator who resolved it.
    pub resolved_by: Option<String>,
    pub resolution: Option<String>,
}

/// A sanction with the username of the operator who gave it.
#[derive(Debug, Clone, FromRow)]
pub struct SanctionRow {
    #[sqlx(flatten)]
    pub sanction: crate::Sanction,
    pub operator_username: Option<String>,
}

/// A line of the audit log with the operator's username.
#[derive(Debug, Clone, FromRow)]
pub struct AuditRow {
    pub id: i64,
    pub at: i64,
    /// `None` for the service's own jobs and the command line.
    pub operator: Option<String>,
    pub action: String,
    pub user_id: Option<i64>,
    pub report_id: Option<i64>,
    pub detail: String,
    pub ip: String,
}

/// The dashboard's counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConsoleCounts {
    pub matches_today: i64,
    pub open_reports: i64,
    pub overdue_reports: i64,
}

/// The reports waiting for an operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReportQueue {
    pub open: i64,
    /// Open past their due time.
    pub overdue: i64,
}

/// How an operator resolves a report.
#[derive(Debug)]
pub struct Resolution<'a> {
    pub report_id: i64,
    /// `dismissed` or `actioned`.
    pub status: &'a str,
    pub resolution: &'a str,
    pub operator_id: i64,
    pub now: i64,
}

const REPORT_SELECT: &str = "SELECT r.id, r.source, r.reporter_id,
        rp.nickname AS reporter_nickname, r.reported_id, rd.nickname AS reported_nickname,
        rd.username AS reported_username, r.room_id, r.reasons, r.extra, r.created_at,
        r.status, r.resolved_at, o.username AS resolved_by, r.resolution
     FROM reports r
     JOIN users rd ON rd.id = r.reported_id
     LEFT JOIN users rp ON rp.id = r.reporter_id
     LEFT JOIN operators o ON o.id = r.resolved_by";

impl Store {
    /// Open reports, oldest first: the queue in the order it is due.
    pub async fn open_reports(&self, limit: i64) -> Result<Vec<ReportRow>, StoreError> {
        let sql =
            format!("{REPORT_SELECT} WHERE r.status = 'open' ORDER BY r.created_at, r.id LIMIT $1");
        Ok(sqlx::query_as(&sql)
            .bind(limit)
            .fetch_all(&self.pool)
            .await?)
    }

    /// Resolved reports, the latest resolved first.
    pub async fn closed_reports(&self, limit: i64) -> Result<Vec<ReportRow>, StoreError> {
        let sql = format!(
            "{REPORT_SELECT} WHERE r.status <> 'open'
             ORDER BY r.resolved_at DESC, r.id DESC LIMIT $1"
        );
        Ok(sqlx::query_as(&sql)
            .bind(limit)
            .fetch_all(&self.pool)
            .await?)
    }

    pub async fn report(&self, id: i64) -> Result<Option<ReportRow>, StoreError> {
        let sql = format!("{REPORT_SELECT} WHERE r.id = $1");
        Ok(sqlx::query_as(&sql)
            .bind(id)
            .fetch_optional(&self.pool)
            .await?)
    }

    /// Reports about `user_id`, newest first.
    pub async fn reports_against(
        &self,
        user_id: i64,
        limit: i64,
    ) -> Result<Vec<ReportRow>, StoreError> {
        self.reports_of("r.reported_id", user_id, limit).await
    }

    /// Reports `user_id` filed, newest first.
    pub async fn reports_filed_by(
        &self,
        user_id: i64,
        limit: i64,
    ) -> Result<Vec<ReportRow>, StoreError> {
        self.reports_of("r.reporter_id", user_id, limit).await
    }

    /// Reports whose `column` (one of the two above, never input) is `user_id`.
    async fn reports_of(
        &self,
        column: &str,
        user_id: i64,
        limit: i64,
    ) -> Result<Vec<ReportRow>, StoreError> {
        let sql = format!(
            "{REPORT_SELECT} WHERE {column} = $1 ORDER BY r.created_at DESC, r.id DESC LIMIT $2"
        );
        Ok(sqlx::query_as(&sql)
            .bind(user_id)
            .bind(limit)
            .fetch_all(&self.pool)
            .await?)
    }

    /// How many reports `user_id` filed.
    pub async fn count_reports_filed_by(&self, user_id: i64) -> Result<i64, StoreError> {
        Ok(
            sqlx::query_scalar("SELECT COUNT(*) FROM reports WHERE reporter_id = $1")
                .bind(user_id)
                .fetch_one(&self.pool)
                .await?,
        )
    }

    /// Rooms made since `since`; open reports, and those filed before `due_before`.
    pub async fn console_counts(
        &self,
        since: i64,
        due_before: i64,
    ) -> Result<ConsoleCounts, StoreError> {
        let matches_today: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM rooms WHERE created_at >= $1")
                .bind(since)
                .fetch_one(&self.pool)
                .await?;
        let queue = self.report_queue(due_before).await?;
        Ok(ConsoleCounts {
            matches_today,
            open_reports: queue.open,
            overdue_reports: queue.overdue,
        })
    }

    /// Open reports, and those of them filed before `due_before`.
    pub async fn report_queue(&self, due_before: i64) -> Result<ReportQueue, StoreError> {
        let (open, overdue): (i64, i64) = sqlx::query_as(
            "SELECT COUNT(*), COALESCE(SUM(CASE WHEN created_at < $1 THEN 1 ELSE 0 END), 0)
             FROM reports WHERE status = 'open'",
        )
        .bind(due_before)
        .fetch_one(&self.pool)
        .await?;
        Ok(ReportQueue { open, overdue })
    }

    /// Accounts of any status whose id is `query`, whose username is `query` exactly, or
    /// whose nickname starts with it; at most `limit`, oldest first.
    pub async fn find_users(&self, query: &str, limit: i64) -> Result<Vec<User>, StoreError> {
        let id = query.parse::<i64>().unwrap_or(-1);
        let prefix_chars = i32::try_from(query.chars().count()).unwrap_or(i32::MAX);
        let sql = format!(
            "SELECT {USER_COLUMNS} FROM users
             WHERE id = $1 OR username = $2 OR substr(nickname, 1, $3) = $4
             ORDER BY id LIMIT $5"
        );
        Ok(sqlx::query_as(&sql)
            .bind(id)
            .bind(query.to_lowercase())
            .bind(prefix_chars)
            .bind(query)
            .bind(limit)
            .fetch_all(&self.pool)
            .await?)
    }

    /// A user's sanctions with who gave them, newest first.
    pub async fn sanction_history(&self, user_id: i64) -> Result<Vec<SanctionRow>, StoreError> {
        let columns = crate::columns_of("s", SANCTION_COLUMNS);
        let sql = format!(
            "SELECT {columns}, o.username AS operator_username
             FROM sanctions s LEFT JOIN operators o ON o.id = s.operator_id
             WHERE s.user_id = $1 ORDER BY s.id DESC"
        );
        Ok(sqlx::query_as(&sql)
            .bind(user_id)
            .fetch_all(&self.pool)
            .await?)
    }

    pub async fn sanction(&self, id: i64) -> Result<Option<crate::Sanction>, StoreError> {
        let sql = format!("SELECT {SANCTION_COLUMNS} FROM sanctions WHERE id = $1");
        Ok(sqlx::query_as(&sql)
            .bind(id)
            .fetch_optional(&self.pool)
            .await?)
    }

    /// Resolves an open report, with the sanction it gives (if any) and the audit line, in
    /// one transaction. Of two resolutions at once exactly one wins; the other, and any
    /// resolution of a report resolved before, is `ReportClosed` and writes nothing.
    /// Returns the sanction's id.
    pub async fn resolve_report(
        &self,
        r: &Resolution<'_>,
        sanction: Option<&NewSanction<'_>>,
        audit: &AuditEntry<'_>,
    ) -> Result<Option<i64>, StoreError> {
        let mut tx = self.audited(audit).await?;
        let done = sqlx::query(
            "UPDATE reports SET status = $1, resolved_at = $2, resolved_by = $3,
                resolution = $4
             WHERE id = $5 AND status = 'open'",
        )
        .bind(r.status)
        .bind(r.now)
        .bind(r.operator_id)
        .bind(r.resolution)
        .bind(r.report_id)
        .execute(&mut **tx)
        .await?
        .rows_affected();
        if done != 1 {
            return Err(StoreError::ReportClosed);
        }
        let id = match sanction {
            Some(s) => Some(insert_sanction(&mut tx, s).await?),
            None => None,
        };
        tx.commit().await?;
        Ok(id)
    }

    /// Lifts a sanction still in force at `now`, with the audit line. False (nothing
    /// written) when it was lifted already or has run out.
    pub async fn lift_sanction(
        &self,
        id: i64,
        now: i64,
        audit: &AuditEntry<'_>,
    ) -> Result<bool, StoreError> {
        let mut tx = self.audited(audit).await?;
        let done = sqlx::query(
            "UPDATE sanctions SET lifted_at = $1
             WHERE id = $2 AND lifted_at IS NULL AND (until IS NULL OR until > $3)",
        )
        .bind(now)
        .bind(id)
        .bind(now)
        .execute(&mut **tx)
        .await?
        .rows_affected();
        if done != 1 {
            return Ok(false);
        }
        tx.commit().await?;
        Ok(true)
    }

    /// Audit lines older than the line `before` (all when `None`), newest first.
    pub async fn audit_page(
        &self,
        before: Option<i64>,
        limit: i64,
    ) -> Result<Vec<AuditRow>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT a.id, a.at, o.username AS operator, a.action, a.user_id, a.report_id,
                a.detail, a.ip
             FROM audit_log a LEFT JOIN operators o ON o.id = a.operator_id
             WHERE a.id < $1 ORDER BY a.id DESC LIMIT $2",
        )
        .bind(before.unwrap_or(i64::MAX))
        .bind(limit)
        .fetch_all(&self.pool)
        .await?)
    }
}
