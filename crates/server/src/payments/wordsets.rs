//! The paid custom word set on a node: opening and reading bank transfers (with demo
//! mode's own confirmation); the approved sets this node shows are real time's (`round`).
//!
//! Every node reads the approved sets from SQL every `WORDSET_REFRESH` into memory, where
//! the round's words (`Realtime::round_state`, sync and called often) read them. A set
//! approved now shows from a round at least `WORDSET_ACTIVATE_AFTER` away, longer than the
//! refresh, so every node knows it before it begins and all nodes show the same words.

use rand::Rng;
use telepathy_domain::limits::{TRANSFER_OPEN, WORDSET_ACTIVATE_AFTER};
use telepathy_domain::round::{RoundAt, ROUND_MS};
use telepathy_domain::time::millis;
use telepathy_domain::wordset::mask_account;
use telepathy_domain::wordset::{DepositorCode, RealName};
use telepathy_domain::ErrorCode;
use telepathy_store::{
    AuditEntry, ConfirmOutcome, Confirmation, NewTransfer, Review, Store, StoreError, Transfer,
};

use super::Payments;
use crate::error::{internal, ApiError, OrInternal};

/// The first round a set approved at `now_ms` may show: the round that begins at least
/// `WORDSET_ACTIVATE_AFTER` later.
pub fn active_from_round(now_ms: i64) -> i64 {
    let later = now_ms.saturating_add(millis(WORDSET_ACTIVATE_AFTER));
    let at = chrono::DateTime::from_timestamp_millis(later).unwrap_or_default();
    let round = RoundAt::of(at);
    // A round already under way at that moment began too soon.
    if round.remaining_ms == ROUND_MS {
        round.number
    } else {
        round.number + 1
    }
}

impl Payments {
    /// The user's open transfer, or a new one for `amount` whose depositor code is made
    /// from `name`. `(transfer, true)` when it is new.
    pub async fn open_transfer(
        &self,
        user_id: i64,
        name: &RealName,
        amount: i64,
    ) -> Result<(Transfer, bool), ApiError> {
        let now = self.clock.now_ms();
        let t = NewTransfer {
            user_id,
            amount,
            now,
            expires_at: now.saturating_add(millis(TRANSFER_OPEN)),
        };
        let code = || {
            let number = rand::rngs::OsRng.gen_range(0..10_000u16);
            DepositorCode::new(name, number).as_ref().to_owned()
        };
        self.store
            .open_transfer(&t, code)
            .await
            .or_internal("opening a transfer")
    }

    /// The user's transfer `id`: 404 when there is none, 403 when it is another user's.
    /// In demo mode a transfer open long enough is paid here, when it is read.
    pub async fn own_transfer(&self, user_id: i64, id: i64) -> Result<Transfer, ApiError> {
        let transfer = self
            .store
            .transfer(id)
            .await
            .or_internal("reading a transfer")?
            .ok_or(ErrorCode::NotFound)?;
        if transfer.user_id != user_id {
            return Err(ErrorCode::NotOwner.into());
        }
        self.demo_confirm(transfer).await
    }

    /// Demo mode's stand-in for the bank: a transfer open for
    /// `demo_transfer_paid_after` counts as paid. Done when the transfer is read, so it
    /// needs no task and every node agrees.
    pub async fn demo_confirm(&self, transfer: Transfer) -> Result<Transfer, ApiError> {
        let Some(after) = self.demo_transfer_paid_after else {
            return Ok(transfer);
        };
        let now = self.clock.now_ms();
        if !transfer.is_open(now) || now - transfer.created_at < millis(after) {
            return Ok(transfer);
        }
        let confirmation = Confirmation {
            transfer_id: transfer.id,
            paid_by: "demo",
            late_ok: false,
            deposit_id: None,
            operator_id: None,
            now,
        };
        match self.store.confirm_transfer(&confirmation, None).await {
            Ok(ConfirmOutcome::Paid(paid)) => Ok(paid),
            // Paid meanwhile by another read: read it again.
            Ok(_) => self
                .store
                .transfer(transfer.id)
                .await
                .or_internal("reading a transfer")?
                .ok_or_else(|| ErrorCode::NotFound.into()),
            Err(e) => Err(internal("confirming a demo transfer", e)),
        }
    }
}

/// Who acts on a transfer or a word set: an operator in the console, or the command line.
#[derive(Debug, Clone, Copy)]
pub struct Actor<'a> {
    pub operator_id: Option<i64>,
    /// The client address, `cli` for the command line.
    pub ip: &'a str,
}

impl Actor<'_> {
    fn paid_by(&self) -> &'static str {
        if self.operator_id.is_some() {
            "operator"
        } else {
            "cli"
        }
    }

    fn audit<'b>(
        &'b self,
        action: &'b str,
        user_id: i64,
        detail: &'b str,
        now: i64,
    ) -> AuditEntry<'b> {
        AuditEntry {
            operator_id: self.operator_id,
            action,
            user_id: Some(user_id),
            report_id: None,
            detail,
            ip: self.ip,
            now,
        }
    }
}

/// Why an operator's action on a transfer or word set did not happen.
#[derive(Debug)]
pub enum Refusal {
    /// Told to the operator.
    Code(ErrorCode),
    Store(StoreError),
}

impl From<StoreError> for Refusal {
    fn from(e: StoreError) -> Self {
        Self::Store(e)
    }
}

impl From<ErrorCode> for Refusal {
    fn from(code: ErrorCode) -> Self {
        Self::Code(code)
    }
}

impl Refusal {
    /// The API's answer: the code, or a logged 500 (503 in an outage).
    pub fn into_api(self, what: &str) -> ApiError {
        match self {
            Self::Code(code) => code.into(),
            Self::Store(e) => internal(what, e),
        }
    }
}

/// An operator saw the money of transfer `id` arrive (late ones too: the money is there):
/// marks it paid with its audit line (`transfer.confirm`), settling `deposit_id` when
/// the operator matched an unmatched deposit to it.
pub async fn confirm_transfer(
    store: &Store,
    id: i64,
    deposit_id: Option<i64>,
    actor: Actor<'_>,
    now: i64,
) -> Result<Transfer, Refusal> {
    let transfer = store.transfer(id).await?.ok_or(ErrorCode::NotFound)?;
    let detail = format!(
        "결제 {id} 입금 확인: {} {}원{}",
        transfer.depositor,
        transfer.amount,
        deposit_id.map_or_else(String::new, |d| format!(" (입금 알림 {d})"))
    );
    let audit = actor.audit("transfer.confirm", transfer.user_id, &detail, now);
    let confirmation = Confirmation {
        transfer_id: id,
        paid_by: actor.paid_by(),
        late_ok: true,
        deposit_id,
        operator_id: actor.operator_id,
        now,
    };
    match store.confirm_transfer(&confirmation, Some(&audit)).await? {
        ConfirmOutcome::Paid(paid) => Ok(paid),
        ConfirmOutcome::AlreadyPaid => Err(ErrorCode::PaymentAlreadyPaid.into()),
        ConfirmOutcome::NotOpen | ConfirmOutcome::NotFound => Err(ErrorCode::NotFound.into()),
    }
}

/// An operator's decision on a waiting word set: approval (it joins the rotation from
/// `active_from_round(now)`), or rejection with the reason the user reads (its payment is
/// then owed back). One audit line, `wordset.approve` or `wordset.reject`.
pub async fn review_wordset(
    store: &Store,
    id: i64,
    reject_reason: Option<&str>,
    actor: Actor<'_>,
    now: i64,
) -> Result<(), Refusal> {
    let row = store.wordset(id).await?.ok_or(ErrorCode::NotFound)?;
    let w = &row.wordset;
    if w.status != "pending" {
        return Err(ErrorCode::WordsetReviewed.into());
    }
    let first_round = active_from_round(now);
    let (action, detail) = match reject_reason {
        None => (
            "wordset.approve",
            format!(
                "단어 세트 {id} 승인: {} (라운드 {first_round}부터)",
                w.words
            ),
        ),
        Some(reason) => (
            "wordset.reject",
            format!(
                "단어 세트 {id} 반려: {} — {reason}. 환불 {}원: {} {}",
                w.words,
                row.amount,
                w.refund_bank.as_deref().unwrap_or("-"),
                w.refund_account.as_ref().map_or("-", |_| "(봉인된 계좌)")
            ),
        ),
    };
    let audit = actor.audit(action, w.user_id, &detail, now);
    let review = Review {
        wordset_id: id,
        approve: reject_reason.is_none(),
        reason: reject_reason,
        active_from_round: reject_reason.is_none().then_some(first_round),
        operator_id: actor.operator_id,
        now,
    };
    if store.review_wordset(&review, &audit).await? {
        Ok(())
    } else {
        Err(ErrorCode::WordsetReviewed.into())
    }
}

/// Records that a rejected set's payment went back to its refund account, which is then
/// erased. One audit line, `wordset.refund`, naming the account only masked.
pub async fn record_refund(
    store: &Store,
    id: i64,
    account: Option<&str>,
    actor: Actor<'_>,
    now: i64,
) -> Result<(), Refusal> {
    let row = store.wordset(id).await?.ok_or(ErrorCode::NotFound)?;
    let detail = format!(
        "단어 세트 {id} 환불 {}원: {} {}",
        row.amount,
        row.wordset.refund_bank.as_deref().unwrap_or("-"),
        account.map_or_else(|| "-".to_owned(), mask_account)
    );
    let audit = actor.audit("wordset.refund", row.wordset.user_id, &detail, now);
    if store
        .mark_refunded(id, actor.operator_id, now, &audit)
        .await?
    {
        Ok(())
    } else {
        Err(ErrorCode::RefundSettled.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use telepathy_domain::round::ROUND_EPOCH_MS;

    #[test]
    fn a_set_starts_a_whole_round_after_the_wait() {
        let start_of = |round: i64| ROUND_EPOCH_MS + round * ROUND_MS;
        // Approved at the start of round 100: round 102 begins exactly 60 s later.
        assert_eq!(active_from_round(start_of(100)), 102);
        // A moment later, round 102 begins less than 60 s later: 103.
        assert_eq!(active_from_round(start_of(100) + 1), 103);
        assert_eq!(active_from_round(start_of(101) - 1), 103);
        for ms in [0, 1, 15_000, 29_999] {
            let now = start_of(500) + ms;
            let first = active_from_round(now);
            assert!(start_of(first) - now >= millis(WORDSET_ACTIVATE_AFTER));
            assert!(start_of(first) - now < millis(WORDSET_ACTIVATE_AFTER) + ROUND_MS);
        }
    }
}
