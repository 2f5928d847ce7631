//! The paid custom word set: bank transfers and their deposits, the word sets they buy,
//! their review and refunds, and the approved sets every node shows in the rounds.

use sqlx::FromRow;

use crate::safety::AuditEntry;
use crate::{is_unique_violation, Store, StoreError};

/// A bank transfer as stored. `status` is `pending`, `paid` or `expired`; a pending one
/// past `expires_at` is expired too (see [`Transfer::is_open`]).
#[derive(Debug, Clone, FromRow)]
pub struct Transfer {
    pub id: i64,
    pub user_id: i64,
    /// The memo the deposit must carry.
    pub depositor: String,
    pub amount: i64,
    pub status: String,
    pub created_at: i64,
    pub expires_at: i64,
    pub paid_at: Option<i64>,
    /// `deposit`, `operator`, `cli` or `demo`.
    pub paid_by: Option<String>,
    /// When it bought its word set.
    pub used_at: Option<i64>,
}

impl Transfer {
    /// Waiting for its deposit at `now`.
    pub fn is_open(&self, now: i64) -> bool {
        self.status == "pending" && now < self.expires_at
    }

    /// `pending`, `paid` or `expired`, as of `now`.
    pub fn status_at(&self, now: i64) -> &str {
        if self.status == "pending" && now >= self.expires_at {
            "expired"
        } else {
            &self.status
        }
    }
}

/// A transfer with its user, as operators list it.
#[derive(Debug, Clone, FromRow)]
pub struct TransferRow {
    #[sqlx(flatten)]
    pub transfer: Transfer,
    pub username: String,
    pub nickname: Option<String>,
    pub real_name: Option<String>,
}

/// The columns of a transfer, for statements on the table alone (INSERT and UPDATE …
/// RETURNING name them unqualified on both databases).
const TRANSFER_FIELDS: &str = "id, user_id, depositor, amount, status, created_at, expires_at, \
     paid_at, paid_by, used_at";
/// The same, of `transfers t` in a join.
const TRANSFER_COLUMNS: &str =
    "t.id, t.user_id, t.depositor, t.amount, t.status, t.created_at, t.expires_at, \
     t.paid_at, t.paid_by, t.used_at";

/// What opening a transfer stores.
#[derive(Debug)]
pub struct NewTransfer {
    pub user_id: i64,
    pub amount: i64,
    pub now: i64,
    pub expires_at: i64,
}

/// A deposit the bank reported.
#[derive(Debug)]
pub struct NewDeposit<'a> {
    /// The bank's id of the deposit, when it gives one.
    pub external_id: Option<&'a str>,
    pub amount: i64,
    /// The memo, normalized as depositor codes are.
    pub depositor: &'a str,
    /// When the bank says the money came, as it says it.
    pub deposited_at: &'a str,
    pub now: i64,
}

/// What a reported deposit did.
#[derive(Debug, Clone)]
pub enum DepositOutcome {
    /// It paid this transfer (exactly one open transfer had its amount and memo).
    Matched(Transfer),
    /// No open transfer had its amount and memo: kept for an operator.
    Unmatched(i64),
    /// Several did: kept for an operator, nothing guessed.
    Ambiguous(i64),
    /// The bank sent this deposit before (same id): nothing done again.
    Duplicate,
}

/// A deposit that paid nothing, for an operator.
#[derive(Debug, Clone, FromRow)]
pub struct Deposit {
    pub id: i64,
    pub external_id: Option<String>,
    pub amount: i64,
    pub depositor: String,
    pub deposited_at: String,
    pub received_at: i64,
    /// `matched`, `unmatched` or `ambiguous`.
    pub outcome: String,
    pub transfer_id: Option<i64>,
    pub settled_at: Option<i64>,
}

/// How a transfer is confirmed.
#[derive(Debug)]
pub struct Confirmation<'a> {
    pub transfer_id: i64,
    /// `deposit`, `operator`, `cli` or `demo`.
    pub paid_by: &'a str,
    /// Whether a transfer past its time may still be paid (an operator who saw the money
    /// come late); otherwise only an open one.
    pub late_ok: bool,
    /// The unmatched deposit this settles, if any.
    pub deposit_id: Option<i64>,
    pub operator_id: Option<i64>,
    pub now: i64,
}

/// What a confirmation did.
#[derive(Debug, Clone)]
pub enum ConfirmOutcome {
    Paid(Transfer),
    AlreadyPaid,
    /// Past its time and not `late_ok`.
    NotOpen,
    NotFound,
}

/// A word set as stored. `refund_account` is sealed, and gone once not needed.
#[derive(Debug, Clone, FromRow)]
pub struct Wordset {
    pub id: i64,
    pub user_id: i64,
    pub transfer_id: i64,
    /// Four words separated by single spaces.
    pub words: String,
    pub refund_bank: Option<String>,
    pub refund_account: Option<String>,
    /// `pending`, `approved` or `rejected`.
    pub status: String,
    pub created_at: i64,
    pub reviewed_at: Option<i64>,
    pub reject_reason: Option<String>,
    pub active_from_round: Option<i64>,
    pub refunded_at: Option<i64>,
}

impl Wordset {
    pub fn word_list(&self) -> Vec<String> {
        self.words.split(' ').map(str::to_owned).collect()
    }
}

/// A word set with its user, payment and reviewer, as operators see it.
#[derive(Debug, Clone, FromRow)]
pub struct WordsetRow {
    #[sqlx(flatten)]
    pub wordset: Wordset,
    pub username: String,
    pub nickname: Option<String>,
    pub real_name: Option<String>,
    pub amount: i64,
    pub reviewed_by: Option<String>,
}

const WORDSET_COLUMNS: &str =
    "w.id, w.user_id, w.transfer_id, w.words, w.refund_bank, w.refund_account, w.status, \
     w.created_at, w.reviewed_at, w.reject_reason, w.active_from_round, w.refunded_at";

const WORDSET_SELECT: &str = "FROM wordsets w
     JOIN users u ON u.id = w.user_id
     JOIN transfers t ON t.id = w.transfer_id
     LEFT JOIN operators o ON o.id = w.reviewed_by";

/// What submitting a word set stores.
#[derive(Debug)]
pub struct NewWordset<'a> {
    pub user_id: i64,
    /// The paid transfer it is bought with; the newest paid unused one when `None`.
    pub transfer_id: Option<i64>,
    pub words: [&'a str; 4],
    pub refund_bank: &'a str,
    /// Sealed.
    pub refund_account: &'a str,
    pub now: i64,
}

/// What a submission did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubmitOutcome {
    /// The new word set's id.
    Submitted(i64),
    /// The named transfer is another user's.
    NotOwner,
    /// No paid transfer (or the named one is not paid).
    NotPaid,
    /// The named transfer, or every paid one, bought a set already.
    Used,
    /// The user has the same four words waiting or approved: nothing is spent.
    Repeated,
}

/// An operator's decision on a word set.
#[derive(Debug)]
pub struct Review<'a> {
    pub wordset_id: i64,
    pub approve: bool,
    /// Why it was rejected (the user reads it).
    pub reason: Option<&'a str>,
    /// For an approval: the first round it may show.
    pub active_from_round: Option<i64>,
    pub operator_id: Option<i64>,
    pub now: i64,
}

/// An approved set in the rotation.
#[derive(Debug, Clone, FromRow)]
pub struct ApprovedWordset {
    pub id: i64,
    pub active_from_round: i64,
    pub words: String,
}

/// Different memos tried before opening a transfer gives up.
const DEPOSITOR_TRIES: usize = 20;

impl Store {
    /// The user's open transfer, or a new one whose memo `code` makes (tried again while
    /// another open transfer has it). Transfers past their time are marked expired first,
    /// so they free their memo and their user. `(transfer, true)` when it is new.
    pub async fn open_transfer(
        &self,
        t: &NewTransfer,
        mut code: impl FnMut() -> String,
    ) -> Result<(Transfer, bool), StoreError> {
        sqlx::query(
            "UPDATE transfers SET status = 'expired' WHERE status = 'pending' AND expires_at <= $1",
        )
        .bind(t.now)
        .execute(&self.pool)
        .await?;
        for _ in 0..DEPOSITOR_TRIES {
            if let Some(open) = self.open_transfer_of(t.user_id).await? {
                return Ok((open, false));
            }
            let sql = format!(
                "INSERT INTO transfers (user_id, depositor, amount, status, created_at, expires_at)
                 VALUES ($1, $2, $3, 'pending', $4, $5) RETURNING {TRANSFER_FIELDS}"
            );
            let inserted = sqlx::query_as::<_, Transfer>(&sql)
                .bind(t.user_id)
                .bind(code())
                .bind(t.amount)
                .bind(t.now)
                .bind(t.expires_at)
                .fetch_one(&self.pool)
                .await;
            match inserted {
                Ok(transfer) => return Ok((transfer, true)),
                // Another open transfer has the memo, or this user opened one meanwhile:
                // the next turn tells which.
                Err(e) if is_unique_violation(&e) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(StoreError::NoFreeDepositor)
    }

    async fn open_transfer_of(&self, user_id: i64) -> Result<Option<Transfer>, StoreError> {
        let sql = format!(
            "SELECT {TRANSFER_COLUMNS} FROM transfers t WHERE t.user_id = $1 AND t.status = 'pending'"
        );
        Ok(sqlx::query_as(&sql)
            .bind(user_id)
            .fetch_optional(&self.pool)
            .await?)
    }

    pub async fn transfer(&self, id: i64) -> Result<Option<Transfer>, StoreError> {
        let sql = format!("SELECT {TRANSFER_COLUMNS} FROM transfers t WHERE t.id = $1");
        Ok(sqlx::query_as(&sql)
            .bind(id)
            .fetch_optional(&self.pool)
            .await?)
    }

    /// A user's transfers, newest first.
    pub async fn transfers_of(
        &self,
        user_id: i64,
        limit: i64,
    ) -> Result<Vec<Transfer>, StoreError> {
        let sql = format!(
            "SELECT {TRANSFER_COLUMNS} FROM transfers t WHERE t.user_id = $1
             ORDER BY t.id DESC LIMIT $2"
        );
        Ok(sqlx::query_as(&sql)
            .bind(user_id)
            .bind(limit)
            .fetch_all(&self.pool)
            .await?)
    }

    /// Transfers not paid, open or past their time, newest first: what operators match
    /// deposits against.
    pub async fn unpaid_transfers(&self, limit: i64) -> Result<Vec<TransferRow>, StoreError> {
        let sql = format!(
            "SELECT {TRANSFER_COLUMNS}, u.username, u.nickname, u.real_name
             FROM transfers t JOIN users u ON u.id = t.user_id
             WHERE t.status IN ('pending', 'expired') ORDER BY t.id DESC LIMIT $1"
        );
        Ok(sqlx::query_as(&sql)
            .bind(limit)
            .fetch_all(&self.pool)
            .await?)
    }

    /// Marks a transfer paid, behind a conditional UPDATE (of two confirmations at once,
    /// one pays), with `audit` and the settling of `deposit_id` in its transaction.
    pub async fn confirm_transfer(
        &self,
        c: &Confirmation<'_>,
        audit: Option<&AuditEntry<'_>>,
    ) -> Result<ConfirmOutcome, StoreError> {
        let mut tx = self.audited(audit).await?;
        let sql = format!(
            "UPDATE transfers SET status = 'paid', paid_at = $1, paid_by = $2
             WHERE id = $3 AND (status = 'pending' AND expires_at > $1
                                OR $4 AND status IN ('pending', 'expired'))
             RETURNING {TRANSFER_FIELDS}"
        );
        let paid: Option<Transfer> = sqlx::query_as(&sql)
            .bind(c.now)
            .bind(c.paid_by)
            .bind(c.transfer_id)
            .bind(c.late_ok)
            .fetch_optional(&mut **tx)
            .await?;
        let Some(paid) = paid else {
            drop(tx);
            return Ok(match self.transfer(c.transfer_id).await? {
                None => ConfirmOutcome::NotFound,
                Some(t) if t.status == "paid" => ConfirmOutcome::AlreadyPaid,
                Some(_) => ConfirmOutcome::NotOpen,
            });
        };
        if let Some(deposit) = c.deposit_id {
            sqlx::query(
                "UPDATE deposits SET settled_at = $1, settled_by = $2, transfer_id = $3
                 WHERE id = $4 AND settled_at IS NULL",
            )
            .bind(c.now)
            .bind(c.operator_id)
            .bind(paid.id)
            .bind(deposit)
            .execute(&mut **tx)
            .await?;
        }
        tx.commit().await?;
        Ok(ConfirmOutcome::Paid(paid))
    }

    /// Records a deposit the bank reported and pays the one open transfer with its amount
    /// and memo, in one transaction. Anything else is kept for an operator, never guessed.
    pub async fn record_deposit(&self, d: &NewDeposit<'_>) -> Result<DepositOutcome, StoreError> {
        let mut tx = self.pool.begin().await?;
        if let Some(external) = d.external_id {
            let seen: Option<i64> =
                sqlx::query_scalar("SELECT id FROM deposits WHERE external_id = $1")
                    .bind(external)
                    .fetch_optional(&mut *tx)
                    .await?;
            if seen.is_some() {
                return Ok(DepositOutcome::Duplicate);
            }
        }
        let candidates: Vec<i64> = sqlx::query_scalar(
            "SELECT id FROM transfers
             WHERE status = 'pending' AND expires_at > $1 AND amount = $2 AND depositor = $3
             LIMIT 2",
        )
        .bind(d.now)
        .bind(d.amount)
        .bind(d.depositor)
        .fetch_all(&mut *tx)
        .await?;
        let matched = match candidates.as_slice() {
            [one] => {
                let sql = format!(
                    "UPDATE transfers SET status = 'paid', paid_at = $1, paid_by = 'deposit'
                     WHERE id = $2 AND status = 'pending' RETURNING {TRANSFER_FIELDS}"
                );
                sqlx::query_as::<_, Transfer>(&sql)
                    .bind(d.now)
                    .bind(one)
                    .fetch_optional(&mut *tx)
                    .await?
            }
            _ => None,
        };
        let outcome = match (&matched, candidates.len()) {
            (Some(_), _) => "matched",
            (None, n) if n > 1 => "ambiguous",
            _ => "unmatched",
        };
        let inserted = sqlx::query_scalar::<_, i64>(
            "INSERT INTO deposits (external_id, amount, depositor, deposited_at, received_at,
                 outcome, transfer_id, settled_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id",
        )
        .bind(d.external_id)
        .bind(d.amount)
        .bind(d.depositor)
        .bind(d.deposited_at)
        .bind(d.now)
        .bind(outcome)
        .bind(matched.as_ref().map(|t| t.id))
        .bind(matched.as_ref().map(|_| d.now))
        .fetch_one(&mut *tx)
        .await;
        let id = match inserted {
            Ok(id) => id,
            // The same deposit, sent twice at once: the other delivery recorded it.
            Err(e) if is_unique_violation(&e) => return Ok(DepositOutcome::Duplicate),
            Err(e) => return Err(e.into()),
        };
        tx.commit().await?;
        Ok(match (matched, outcome) {
            (Some(t), _) => DepositOutcome::Matched(t),
            (None, "ambiguous") => DepositOutcome::Ambiguous(id),
            (None, _) => DepositOutcome::Unmatched(id),
        })
    }

    /// Deposits that paid nothing and no operator settled yet, newest first.
    pub async fn unsettled_deposits(&self, limit: i64) -> Result<Vec<Deposit>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT id, external_id, amount, depositor, deposited_at, received_at, outcome,
                    transfer_id, settled_at
             FROM deposits WHERE outcome <> 'matched' AND settled_at IS NULL
             ORDER BY id DESC LIMIT $1",
        )
        .bind(limit)
        .fetch_all(&self.pool)
        .await?)
    }

    /// Stores a word set bought with a paid, unused transfer of the user, marking the
    /// transfer used in the same transaction (one set per transfer, however many try).
    pub async fn submit_wordset(&self, w: &NewWordset<'_>) -> Result<SubmitOutcome, StoreError> {
        let mut tx = self.pool.begin().await?;
        let chosen: Option<(i64, i64, String, Option<i64>)> = match w.transfer_id {
            Some(id) => {
                sqlx::query_as("SELECT id, user_id, status, used_at FROM transfers WHERE id = $1")
                    .bind(id)
                    .fetch_optional(&mut *tx)
                    .await?
            }
            None => {
                sqlx::query_as(
                    "SELECT id, user_id, status, used_at FROM transfers
                     WHERE user_id = $1 AND status = 'paid'
                     ORDER BY CASE WHEN used_at IS NULL THEN 0 ELSE 1 END, id DESC LIMIT 1",
                )
                .bind(w.user_id)
                .fetch_optional(&mut *tx)
                .await?
            }
        };
        let transfer_id = match chosen {
            None => return Ok(SubmitOutcome::NotPaid),
            Some((_, owner, _, _)) if owner != w.user_id => return Ok(SubmitOutcome::NotOwner),
            Some((_, _, status, _)) if status != "paid" => return Ok(SubmitOutcome::NotPaid),
            Some((_, _, _, Some(_))) => return Ok(SubmitOutcome::Used),
            Some((id, _, _, None)) => id,
        };
        let theirs: Vec<String> = sqlx::query_scalar(
            "SELECT words FROM wordsets WHERE user_id = $1 AND status IN ('pending', 'approved')",
        )
        .bind(w.user_id)
        .fetch_all(&mut *tx)
        .await?;
        let key = |words: &mut Vec<&str>| {
            words.sort_unstable();
            words.join(" ")
        };
        let wanted = key(&mut w.words.to_vec());
        if theirs
            .iter()
            .any(|set| key(&mut set.split(' ').collect()) == wanted)
        {
            return Ok(SubmitOutcome::Repeated);
        }
        let taken = sqlx::query(
            "UPDATE transfers SET used_at = $1 WHERE id = $2 AND status = 'paid' AND used_at IS NULL",
        )
        .bind(w.now)
        .bind(transfer_id)
        .execute(&mut *tx)
        .await?;
        if taken.rows_affected() != 1 {
            return Ok(SubmitOutcome::Used);
        }
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO wordsets (user_id, transfer_id, words, refund_bank, refund_account,
                 status, created_at)
             VALUES ($1, $2, $3, $4, $5, 'pending', $6) RETURNING id",
        )
        .bind(w.user_id)
        .bind(transfer_id)
        .bind(w.words.join(" "))
        .bind(w.refund_bank)
        .bind(w.refund_account)
        .bind(w.now)
        .fetch_one(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(SubmitOutcome::Submitted(id))
    }

    /// A user's word sets, newest first.
    pub async fn wordsets_of(&self, user_id: i64) -> Result<Vec<Wordset>, StoreError> {
        let sql = format!(
            "SELECT {WORDSET_COLUMNS} FROM wordsets w WHERE w.user_id = $1 ORDER BY w.id DESC"
        );
        Ok(sqlx::query_as(&sql)
            .bind(user_id)
            .fetch_all(&self.pool)
            .await?)
    }

    /// Word sets of a status: waiting ones oldest first (the order they are due), decided
    /// ones newest first.
    pub async fn wordsets_by_status(
        &self,
        status: &str,
        limit: i64,
    ) -> Result<Vec<WordsetRow>, StoreError> {
        let order = if status == "pending" {
            "w.created_at, w.id"
        } else {
            "w.id DESC"
        };
        let sql = format!(
            "SELECT {WORDSET_COLUMNS}, u.username, u.nickname, u.real_name, t.amount,
                    o.username AS reviewed_by
             {WORDSET_SELECT} WHERE w.status = $1 ORDER BY {order} LIMIT $2"
        );
        Ok(sqlx::query_as(&sql)
            .bind(status)
            .bind(limit)
            .fetch_all(&self.pool)
            .await?)
    }

    pub async fn wordset(&self, id: i64) -> Result<Option<WordsetRow>, StoreError> {
        let sql = format!(
            "SELECT {WORDSET_COLUMNS}, u.username, u.nickname, u.real_name, t.amount,
                    o.username AS reviewed_by
             {WORDSET_SELECT} WHERE w.id = $1"
        );
        Ok(sqlx::query_as(&sql)
            .bind(id)
            .fetch_optional(&self.pool)
            .await?)
    }

    /// Approves or rejects a waiting word set, with its audit line, behind a conditional
    /// UPDATE: of two operators at once one decides. An approval erases the refund
    /// account, which is no longer needed. False when the set was not waiting.
    pub async fn review_wordset(
        &self,
        r: &Review<'_>,
        audit: &AuditEntry<'_>,
    ) -> Result<bool, StoreError> {
        let mut tx = self.audited(audit).await?;
        let done = if r.approve {
            sqlx::query(
                "UPDATE wordsets SET status = 'approved', reviewed_at = $1, reviewed_by = $2,
                     active_from_round = $3, refund_bank = NULL, refund_account = NULL
                 WHERE id = $4 AND status = 'pending'",
            )
            .bind(r.now)
            .bind(r.operator_id)
            .bind(r.active_from_round)
            .bind(r.wordset_id)
            .execute(&mut **tx)
            .await?
        } else {
            sqlx::query(
                "UPDATE wordsets SET status = 'rejected', reviewed_at = $1, reviewed_by = $2,
                     reject_reason = $3
                 WHERE id = $4 AND status = 'pending'",
            )
            .bind(r.now)
            .bind(r.operator_id)
            .bind(r.reason)
            .bind(r.wordset_id)
            .execute(&mut **tx)
            .await?
        };
        if done.rows_affected() != 1 {
            return Ok(false);
        }
        tx.commit().await?;
        Ok(true)
    }

    /// Records that a rejected set's payment was refunded, erasing the refund account, with
    /// its audit line. False when the set is not rejected or was refunded already.
    pub async fn mark_refunded(
        &self,
        wordset_id: i64,
        operator_id: Option<i64>,
        now: i64,
        audit: &AuditEntry<'_>,
    ) -> Result<bool, StoreError> {
        let mut tx = self.audited(audit).await?;
        let done = sqlx::query(
            "UPDATE wordsets SET refunded_at = $1, refunded_by = $2, refund_account = NULL
             WHERE id = $3 AND status = 'rejected' AND refunded_at IS NULL",
        )
        .bind(now)
        .bind(operator_id)
        .bind(wordset_id)
        .execute(&mut **tx)
        .await?;
        if done.rows_affected() != 1 {
            return Ok(false);
        }
        tx.commit().await?;
        Ok(true)
    }

    /// The approved sets, in the order the rotation needs: by first round, then id.
    pub async fn approved_wordsets(&self) -> Result<Vec<ApprovedWordset>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT id, active_from_round, words FROM wordsets
             WHERE status = 'approved' AND active_from_round IS NOT NULL
             ORDER BY active_from_round, id",
        )
        .fetch_all(&self.pool)
        .await?)
    }
}
