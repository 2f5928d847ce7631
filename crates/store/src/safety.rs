//! Reports, sanctions and the audit log of operator actions.

use sqlx::FromRow;

use crate::{Store, StoreError};

/// A report as a user files it (or the abuse filter, with no reporter).
#[derive(Debug)]
pub struct NewReport<'a> {
    pub reporter_id: Option<i64>,
    pub reported_id: i64,
    pub room_id: &'a str,
    /// Reason codes (`domain::safety::ReportReason::code`).
    pub reasons: &'a [&'a str],
    pub extra: &'a str,
    pub now: i64,
}

/// A sanction an operator gives (`kind` is `domain::safety::SanctionKind::code`).
#[derive(Debug)]
pub struct NewSanction<'a> {
    pub user_id: i64,
    pub kind: &'a str,
    pub reason: &'a str,
    pub until: Option<i64>,
    pub operator_id: Option<i64>,
    pub report_id: Option<i64>,
    pub now: i64,
}

/// A sanction as stored.
#[derive(Debug, Clone, FromRow)]
pub struct Sanction {
    pub id: i64,
    pub user_id: i64,
    pub kind: String,
    pub reason: String,
    pub created_at: i64,
    pub until: Option<i64>,
    pub operator_id: Option<i64>,
    pub report_id: Option<i64>,
    pub lifted_at: Option<i64>,
    /// A warning: when the user confirmed seeing it.
    pub seen_at: Option<i64>,
}

/// A line of the audit log: who did what to whom, and from where.
#[derive(Debug)]
pub struct AuditEntry<'a> {
    /// `None` for the service's own jobs.
    pub operator_id: Option<i64>,
    pub action: &'a str,
    pub user_id: Option<i64>,
    pub report_id: Option<i64>,
    pub detail: &'a str,
    pub ip: &'a str,
    pub now: i64,
}

pub(crate) const SANCTION_COLUMNS: &str =
    "id, user_id, kind, reason, created_at, until, operator_id, report_id, lifted_at, seen_at";

impl Store {
    /// Files a report and keeps its two users apart from now on (as a block by the
    /// reporter), in one transaction. A second report of the same room by the same
    /// reporter (or a second flag of the same sender) files nothing new: `(id, false)`.
    pub async fn add_report(&self, r: &NewReport<'_>) -> Result<(i64, bool), StoreError> {
        let mut tx = self.pool.begin().await?;
        let reasons = r.reasons.join(",");
        let added = sqlx::query(
            "INSERT INTO reports (source, reporter_id, reported_id, room_id, reasons, extra, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING",
        )
        .bind(if r.reporter_id.is_some() { "user" } else { "filter" })
        .bind(r.reporter_id)
        .bind(r.reported_id)
        .bind(r.room_id)
        .bind(&reasons)
        .bind(r.extra)
        .bind(r.now)
        .execute(&mut *tx)
        .await?
        .rows_affected()
            == 1;
        let id: i64 = sqlx::query_scalar(
            "SELECT id FROM reports WHERE room_id = $1 AND reported_id = $2
               AND COALESCE(reporter_id, 0) = $3",
        )
        .bind(r.room_id)
        .bind(r.reported_id)
        .bind(r.reporter_id.unwrap_or(0))
        .fetch_one(&mut *tx)
        .await?;
        if let Some(reporter) = r.reporter_id {
            sqlx::query(
                "INSERT INTO blocks (user_id, blocked_id, created_at) VALUES ($1, $2, $3)
                 ON CONFLICT (user_id, blocked_id) DO NOTHING",
            )
            .bind(reporter)
            .bind(r.reported_id)
            .bind(r.now)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok((id, added))
    }

    /// Records a sanction and its audit entry in one transaction; a suspension or ban also
    /// ends every session of the user. Returns the sanction's id.
    pub async fn add_sanction(
        &self,
        s: &NewSanction<'_>,
        audit: &AuditEntry<'_>,
    ) -> Result<i64, StoreError> {
        let mut tx = self.audited(audit).await?;
        let id = insert_sanction(&mut tx, s).await?;
        tx.commit().await?;
        Ok(id)
    }

    /// The suspension or ban in force on `user_id` at `now`: a ban before any suspension,
    /// then the suspension that ends last.
    pub async fn active_restriction(
        &self,
        user_id: i64,
        now: i64,
    ) -> Result<Option<Sanction>, StoreError> {
        let sql = format!(
            "SELECT {SANCTION_COLUMNS} FROM sanctions
             WHERE user_id = $1 AND kind IN ('suspend', 'ban') AND lifted_at IS NULL
               AND (until IS NULL OR until > $2)
             ORDER BY CASE WHEN until IS NULL THEN 0 ELSE 1 END, until DESC LIMIT 1"
        );
        Ok(sqlx::query_as(&sql)
            .bind(user_id)
            .bind(now)
            .fetch_optional(&self.pool)
            .await?)
    }

    /// The user's warnings they have not confirmed seeing, oldest first.
    pub async fn unseen_warnings(&self, user_id: i64) -> Result<Vec<Sanction>, StoreError> {
        let sql = format!(
            "SELECT {SANCTION_COLUMNS} FROM sanctions
             WHERE user_id = $1 AND kind = 'warn' AND seen_at IS NULL
             ORDER BY created_at, id"
        );
        Ok(sqlx::query_as(&sql)
            .bind(user_id)
            .fetch_all(&self.pool)
            .await?)
    }

    /// Notes that the user saw their warning `id`. False when it is not a warning of
    /// theirs; confirming one already seen keeps the first time and answers true.
    pub async fn mark_warning_seen(
        &self,
        user_id: i64,
        id: i64,
        now: i64,
    ) -> Result<bool, StoreError> {
        let found = sqlx::query(
            "UPDATE sanctions SET seen_at = COALESCE(seen_at, $3)
             WHERE id = $1 AND user_id = $2 AND kind = 'warn'",
        )
        .bind(id)
        .bind(user_id)
        .bind(now)
        .execute(&self.pool)
        .await?
        .rows_affected();
        Ok(found == 1)
    }

    /// Marks suspensions that ran out by `now` as lifted, each with an audit entry of the
    /// service itself. Returns how many.
    pub async fn lift_expired_sanctions(&self, now: i64) -> Result<u64, StoreError> {
        let mut tx = self.pool.begin().await?;
        let expired: Vec<(i64, i64)> = sqlx::query_as(
            "UPDATE sanctions SET lifted_at = until
             WHERE lifted_at IS NULL AND until IS NOT NULL AND until <= $1
             RETURNING id, user_id",
        )
        .bind(now)
        .fetch_all(&mut *tx)
        .await?;
        for (id, user_id) in &expired {
            let detail = format!("sanction {id} ran out");
            insert_audit(
                &mut tx,
                &AuditEntry {
                    operator_id: None,
                    action: "sanction.expired",
                    user_id: Some(*user_id),
                    report_id: None,
                    detail: &detail,
                    ip: "",
                    now,
                },
            )
            .await?;
        }
        tx.commit().await?;
        Ok(expired.len() as u64)
    }

    /// Erases the personal data of accounts withdrawn before `cutoff` (the privacy
    /// policy keeps it six months): the row stays, so reports and rooms still resolve,
    /// but nothing in it names a person any more. Returns how many.
    pub async fn erase_withdrawn_before(&self, cutoff: i64) -> Result<u64, StoreError> {
        let mut tx = self.pool.begin().await?;
        let ids: Vec<i64> = sqlx::query_scalar(
            "UPDATE users SET status = 'erased', username = 'erased-' || CAST(id AS TEXT),
                password_hash = '', phone = '', gender = '', birthdate = '', nickname = NULL,
                real_name = NULL
             WHERE status = 'withdrawn' AND withdrawn_at < $1 RETURNING id",
        )
        .bind(cutoff)
        .fetch_all(&mut *tx)
        .await?;
        for id in &ids {
            sqlx::query("DELETE FROM sessions WHERE user_id = $1")
                .bind(id)
                .execute(&mut *tx)
                .await?;
            sqlx::query("UPDATE identity_verifications SET name = NULL WHERE user_id = $1")
                .bind(id)
                .execute(&mut *tx)
                .await?;
            sqlx::query(
                "UPDATE wordsets SET refund_bank = NULL, refund_account = NULL WHERE user_id = $1",
            )
            .bind(id)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(ids.len() as u64)
    }

    /// Runs a statement as it is, for tests that prove what the schema refuses. Returns
    /// the rows it changed.
    #[doc(hidden)]
    pub async fn execute_raw_for_tests(&self, sql: &str) -> Result<u64, StoreError> {
        Ok(sqlx::query(sql).execute(&self.pool).await?.rows_affected())
    }

    /// Appends a line to the audit log.
    pub async fn audit(&self, entry: &AuditEntry<'_>) -> Result<(), StoreError> {
        self.audited(entry).await?.commit().await
    }

    /// Begins a change that is written with its audit line (when it has one): see
    /// [`Audited`].
    pub(crate) async fn audited<'e>(
        &self,
        audit: impl Into<Option<&'e AuditEntry<'e>>>,
    ) -> Result<Audited<'e>, StoreError> {
        Ok(Audited {
            tx: self.pool.begin().await?,
            audit: audit.into(),
        })
    }
}

/// The transaction of a change and its audit line. [`Audited::commit`] writes the line
/// and commits both; dropped before (a conditional UPDATE found no row, say), it rolls
/// back and nothing is written. It derefs to the transaction for the change itself.
pub(crate) struct Audited<'e> {
    tx: sqlx::Transaction<'static, sqlx::Any>,
    audit: Option<&'e AuditEntry<'e>>,
}

impl Audited<'_> {
    /// Writes the audit line beside the change and commits both.
    pub(crate) async fn commit(mut self) -> Result<(), StoreError> {
        if let Some(audit) = self.audit {
            insert_audit(&mut self.tx, audit).await?;
        }
        self.tx.commit().await?;
        Ok(())
    }
}

impl std::ops::Deref for Audited<'_> {
    type Target = sqlx::Transaction<'static, sqlx::Any>;

    fn deref(&self) -> &Self::Target {
        &self.tx
    }
}

impl std::ops::DerefMut for Audited<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.tx
    }
}

/// Writes a sanction inside the transaction of the action that gives it; a suspension or
/// ban ends every session of the user there too. Returns its id.
pub(crate) async fn insert_sanction(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    s: &NewSanction<'_>,
) -> Result<i64, StoreError> {
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO sanctions (user_id, kind, reason, created_at, until, operator_id, report_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
    )
    .bind(s.user_id)
    .bind(s.kind)
    .bind(s.reason)
    .bind(s.now)
    .bind(s.until)
    .bind(s.operator_id)
    .bind(s.report_id)
    .fetch_one(&mut **tx)
    .await?;
    if s.kind != "warn" {
        sqlx::query(
            "UPDATE sessions SET revoked_at = $1 WHERE user_id = $2 AND revoked_at IS NULL",
        )
        .bind(s.now)
        .bind(s.user_id)
        .execute(&mut **tx)
        .await?;
    }
    if s.kind == "ban" {
        crate::push::forget_devices(tx, s.user_id).await?;
    }
    Ok(id)
}

/// Writes an audit line inside the transaction of the action it records.
async fn insert_audit(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    e: &AuditEntry<'_>,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO audit_log (operator_id, action, user_id, report_id, detail, ip, at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(e.operator_id)
    .bind(e.action)
    .bind(e.user_id)
    .bind(e.report_id)
    .bind(e.detail)
    .bind(e.ip)
    .bind(e.now)
    .execute(&mut **tx)
    .await?;
    Ok(())
}
