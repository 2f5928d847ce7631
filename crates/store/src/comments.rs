//! The comment board of the closed hours.

use sqlx::FromRow;

use crate::safety::AuditEntry;
use crate::{Store, StoreError};

/// A comment as shown: who (a nickname, or the guest name) and what.
#[derive(Debug, Clone, FromRow)]
pub struct Comment {
    pub id: i64,
    pub user_id: Option<i64>,
    pub nickname: String,
    pub content: String,
    pub created_at: i64,
}

/// A comment as operators review it.
#[derive(Debug, Clone, FromRow)]
pub struct ReviewedComment {
    pub id: i64,
    pub user_id: Option<i64>,
    pub nickname: String,
    pub content: String,
    pub ip: String,
    pub created_at: i64,
    pub hidden_at: Option<i64>,
}

/// What posting a comment stores.
#[derive(Debug)]
pub struct NewComment<'a> {
    pub user_id: Option<i64>,
    pub nickname: &'a str,
    pub content: &'a str,
    pub ip: &'a str,
    pub now: i64,
}

impl Store {
    pub async fn add_comment(&self, c: &NewComment<'_>) -> Result<Comment, StoreError> {
        Ok(sqlx::query_as(
            "INSERT INTO comments (user_id, nickname, content, ip, created_at)
             VALUES ($1, $2, $3, $4, $5)
             RETURNING id, user_id, nickname, content, created_at",
        )
        .bind(c.user_id)
        .bind(c.nickname)
        .bind(c.content)
        .bind(c.ip)
        .bind(c.now)
        .fetch_one(&self.pool)
        .await?)
    }

    /// The newest comments that are not hidden, newest first.
    pub async fn recent_comments(&self, limit: i64) -> Result<Vec<Comment>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT id, user_id, nickname, content, created_at FROM comments
             WHERE hidden_at IS NULL ORDER BY id DESC LIMIT $1",
        )
        .bind(limit)
        .fetch_all(&self.pool)
        .await?)
    }

    /// Every comment, hidden ones too, newest first: what operators review.
    pub async fn comments_for_review(
        &self,
        limit: i64,
    ) -> Result<Vec<ReviewedComment>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT id, user_id, nickname, content, ip, created_at, hidden_at FROM comments
             ORDER BY id DESC LIMIT $1",
        )
        .bind(limit)
        .fetch_all(&self.pool)
        .await?)
    }

    /// Hides a comment from the board, with its audit line in the same transaction; false
    /// (and nothing written) when there is no such visible comment.
    pub async fn hide_comment(
        &self,
        id: i64,
        operator_id: Option<i64>,
        now: i64,
        audit: &AuditEntry<'_>,
    ) -> Result<bool, StoreError> {
        self.hide_row("comments", id, operator_id, now, audit).await
    }

    /// Marks row `id` of `table` (one with `hidden_at` and `hidden_by`) hidden by an
    /// operator, with the audit line in the same transaction; false (and nothing written)
    /// when there is no such row not hidden yet. `table` is always a literal of ours.
    pub(crate) async fn hide_row(
        &self,
        table: &'static str,
        id: i64,
        operator_id: Option<i64>,
        now: i64,
        audit: &AuditEntry<'_>,
    ) -> Result<bool, StoreError> {
        let mut tx = self.audited(audit).await?;
        let done = sqlx::query(&format!(
            "UPDATE {table} SET hidden_at = $1, hidden_by = $2 WHERE id = $3 AND hidden_at IS NULL"
        ))
        .bind(now)
        .bind(operator_id)
        .bind(id)
        .execute(&mut **tx)
        .await?;
        if done.rows_affected() != 1 {
            return Ok(false);
        }
        tx.commit().await?;
        Ok(true)
    }
}
