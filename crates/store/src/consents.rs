//! The ledger of terms answers: every consent given or withdrawn, with its time and the
//! version of the text shown, added inside the transaction of what gave it (a sign-up, the
//! notification consent given or withdrawn later).

use sqlx::FromRow;

use crate::{Store, StoreError};

/// One answer to one of the terms: given or withdrawn, to the version shown.
#[derive(Debug, Clone, Copy)]
pub struct Consent<'a> {
    /// The document's short name (`service`, `privacy`, `youth`, `improve`, `alarm`).
    pub terms: &'a str,
    /// The effective date of the text agreed to.
    pub version: &'a str,
    pub agreed: bool,
}

/// A terms answer as stored.
#[derive(Debug, Clone, PartialEq, Eq, FromRow)]
pub struct ConsentRow {
    pub terms: String,
    pub version: String,
    /// 1: given; 0: withdrawn.
    pub agreed: i64,
    pub at: i64,
}

impl Store {
    /// Every terms answer of a user, oldest first.
    pub async fn consents_of(&self, user_id: i64) -> Result<Vec<ConsentRow>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT terms, version, agreed, at FROM consents WHERE user_id = $1 ORDER BY id",
        )
        .bind(user_id)
        .fetch_all(&self.pool)
        .await?)
    }
}

/// Adds terms answers to the ledger, in the caller's transaction.
pub(crate) async fn record_consents(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    user_id: i64,
    consents: &[Consent<'_>],
    now: i64,
) -> Result<(), StoreError> {
    for c in consents {
        sqlx::query(
            "INSERT INTO consents (user_id, terms, version, agreed, at) VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(user_id)
        .bind(c.terms)
        .bind(c.version)
        .bind(i64::from(c.agreed))
        .bind(now)
        .execute(&mut **tx)
        .await?;
    }
    Ok(())
}
