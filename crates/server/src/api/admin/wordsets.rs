//! Bank transfers and custom word sets as operators work them: transfers waiting for their
//! deposit and deposits that paid nothing (confirming one by hand), the word sets waiting
//! for review (approving, rejecting with a reason), and the refunds rejections owe.

use poem::Request;
use poem_openapi::param::{Path, Query};
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};
use telepathy_domain::limits::WORDSET_REVIEW_DUE;
use telepathy_domain::safety::parse_reason;
use telepathy_domain::{ErrorCode, Notice};
use telepathy_store::WordsetRow;

use super::{millis, time};
use crate::api::wordsets::{TransferStatus, WordsetStatus};
use crate::api::{Ack, Tag};
use crate::error::{ApiResult, OrInternal};
use crate::payments::wordsets::{confirm_transfer, record_refund, review_wordset, Actor};
use crate::state::AppState;

pub struct AdminWordsetsApi(pub AppState);

/// Transfers, deposits and word sets a list shows at most.
const LISTED: i64 = 200;

/// A transfer not paid, with its user.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase", skip_serializing_if_is_none)]
pub struct AdminTransfer {
    pub id: i64,
    pub user_id: i64,
    pub username: String,
    pub nickname: Option<String>,
    /// The name the transfer is made under.
    pub real_name: Option<String>,
    /// The memo the deposit must carry.
    pub depositor: String,
    pub amount: i64,
    /// `pending`, or `expired` (past 24 hours: a deposit is then matched by hand).
    pub status: TransferStatus,
    /// RFC 3339.
    pub created_at: String,
    pub expires_at: String,
}

/// A deposit the bank reported that paid nothing.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase", skip_serializing_if_is_none)]
pub struct AdminDeposit {
    pub id: i64,
    pub amount: i64,
    /// The memo as the bank reported it.
    pub depositor: String,
    /// As the bank said it.
    pub deposited_at: String,
    /// RFC 3339.
    pub received_at: String,
    /// `unmatched` (no open transfer had its amount and memo) or `ambiguous` (several).
    pub outcome: String,
    pub transaction_id: Option<String>,
}

#[derive(Debug, Object)]
pub struct TransferQueue {
    /// Newest first.
    pub transfers: Vec<AdminTransfer>,
    /// Newest first.
    pub deposits: Vec<AdminDeposit>,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ConfirmTransferBody {
    /// The reported deposit this transfer's money came in, which is then settled.
    pub deposit_id: Option<i64>,
}

/// A word set in the console's lists.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase", skip_serializing_if_is_none)]
pub struct AdminWordset {
    pub id: i64,
    pub user_id: i64,
    pub username: String,
    pub nickname: Option<String>,
    pub words: Vec<String>,
    pub status: WordsetStatus,
    /// What the user paid.
    pub amount: i64,
    /// RFC 3339.
    pub created_at: String,
    /// Reflected (or refused) within 24 hours of submission (RFC 3339).
    pub due_at: String,
    /// Waiting past `dueAt`, or decided after it.
    pub overdue: bool,
    pub reviewed_at: Option<String>,
    /// The operator's username; none for the command line.
    pub reviewed_by: Option<String>,
    /// Why it was rejected.
    pub reason: Option<String>,
    /// The first round an approved set shows.
    pub active_from_round: Option<i64>,
    /// A rejected set whose payment is still owed back.
    pub refund_due: bool,
    pub refunded_at: Option<String>,
}

#[derive(Debug, Object)]
pub struct AdminWordsets {
    /// Waiting ones oldest first, decided ones newest first (at most 200).
    pub wordsets: Vec<AdminWordset>,
}

/// Where a refund goes: shown to operators only, and the look is audited.
#[derive(Debug, Object)]
pub struct RefundAccountView {
    pub bank: String,
    pub account: String,
    /// The name the payment was made under (the holder the refund goes to).
    pub holder: Option<String>,
    pub amount: i64,
}

/// A word set with the refund account, while it is kept.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct AdminWordsetDetail {
    pub wordset: AdminWordset,
    /// Kept until the set is approved or its refund made.
    pub refund: Option<RefundAccountView>,
}

#[derive(Object)]
pub struct RejectWordsetBody {
    /// Why (1–200 characters): the user reads it.
    #[oai(default)]
    pub reason: String,
}

fn admin_wordset(row: &WordsetRow, now: i64) -> AdminWordset {
    let w = &row.wordset;
    let due = w.created_at.saturating_add(millis(WORDSET_REVIEW_DUE));
    AdminWordset {
        id: w.id,
        user_id: w.user_id,
        username: row.username.clone(),
        nickname: row.nickname.clone(),
        words: w.word_list(),
        status: WordsetStatus::of(&w.status),
        amount: row.amount,
        created_at: time(w.created_at),
        due_at: time(due),
        overdue: w.reviewed_at.unwrap_or(now) > due,
        reviewed_at: w.reviewed_at.map(time),
        reviewed_by: row.reviewed_by.clone(),
        reason: w.reject_reason.clone(),
        active_from_round: w.active_from_round,
        refund_due: w.status == "rejected" && w.refunded_at.is_none(),
        refunded_at: w.refunded_at.map(time),
    }
}

#[OpenApi(tag = "Tag::Admin")]
impl AdminWordsetsApi {
    /// Transfers not paid (open ones and those past 24 hours) and deposits that paid
    /// nothing, for matching by hand.
    #[oai(
        path = "/admin/transfers",
        method = "get",
        operation_id = "adminTransfers"
    )]
    async fn transfers(&self, req: &Request) -> ApiResult<TransferQueue> {
        let s = &self.0;
        s.sessions.require_operator(req).await?;
        let now = s.clock.now_ms();
        let transfers = s
            .store
            .unpaid_transfers(LISTED)
            .await
            .or_internal("listing transfers")?
            .into_iter()
            .map(|row| {
                let t = &row.transfer;
                AdminTransfer {
                    id: t.id,
                    user_id: t.user_id,
                    username: row.username.clone(),
                    nickname: row.nickname.clone(),
                    real_name: row.real_name.clone(),
                    depositor: t.depositor.clone(),
                    amount: t.amount,
                    status: TransferStatus::of(t, now),
                    created_at: time(t.created_at),
                    expires_at: time(t.expires_at),
                }
            })
            .collect();
        let deposits = s
            .store
            .unsettled_deposits(LISTED)
            .await
            .or_internal("listing deposits")?
            .into_iter()
            .map(|d| AdminDeposit {
                id: d.id,
                amount: d.amount,
                depositor: d.depositor,
                deposited_at: d.deposited_at,
                received_at: time(d.received_at),
                outcome: d.outcome,
                transaction_id: d.external_id,
            })
            .collect();
        Ok(Json(TransferQueue {
            transfers,
            deposits,
        }))
    }

    /// Confirms a transfer's deposit by hand (one past 24 hours too), settling the
    /// reported deposit it came in when named. Paid already: 409 `PAYMENT_ALREADY_PAID`.
    #[oai(
        path = "/admin/transfers/:id/confirm",
        method = "post",
        operation_id = "adminConfirmTransfer"
    )]
    async fn confirm(
        &self,
        req: &Request,
        id: Path<i64>,
        body: Json<ConfirmTransferBody>,
    ) -> ApiResult<Ack> {
        let s = &self.0;
        let current = s.sessions.require_operator(req).await?;
        let actor = Actor {
            operator_id: Some(current.operator.id),
            ip: &current.ip,
        };
        confirm_transfer(&s.store, id.0, body.deposit_id, actor, s.clock.now_ms())
            .await
            .map_err(|r| r.into_api("confirming a transfer"))?;
        Ok(Json(Ack::of(Notice::TransferConfirmed)))
    }

    /// Word sets of a status (`pending` by default, `approved`, `rejected`).
    #[oai(
        path = "/admin/wordsets",
        method = "get",
        operation_id = "adminWordsets"
    )]
    async fn wordsets(
        &self,
        req: &Request,
        status: Query<Option<String>>,
    ) -> ApiResult<AdminWordsets> {
        let s = &self.0;
        s.sessions.require_operator(req).await?;
        let status = match status.0.as_deref() {
            None | Some("pending") => "pending",
            Some("approved") => "approved",
            Some("rejected") => "rejected",
            Some(_) => return Err(ErrorCode::InvalidRequest.into()),
        };
        let now = s.clock.now_ms();
        let wordsets = s
            .store
            .wordsets_by_status(status, LISTED)
            .await
            .or_internal("listing word sets")?
            .iter()
            .map(|row| admin_wordset(row, now))
            .collect();
        Ok(Json(AdminWordsets { wordsets }))
    }

    /// A word set with its refund account while it is kept (waiting, or rejected and not
    /// refunded yet). Showing the account is a look at a person's data:
    /// `wordset.view` in the audit log.
    #[oai(
        path = "/admin/wordsets/:id",
        method = "get",
        operation_id = "adminWordset"
    )]
    async fn wordset(&self, req: &Request, id: Path<i64>) -> ApiResult<AdminWordsetDetail> {
        let s = &self.0;
        let current = s.sessions.require_operator(req).await?;
        let row = s
            .store
            .wordset(id.0)
            .await
            .or_internal("reading a word set")?
            .ok_or(ErrorCode::NotFound)?;
        let now = s.clock.now_ms();
        let w = &row.wordset;
        let refund = match (&w.refund_bank, &w.refund_account) {
            (Some(bank), Some(sealed)) => {
                let account = s
                    .config
                    .data_key
                    .open(sealed)
                    .or_internal("opening a refund account")?;
                let detail = format!("단어 세트 {} 환불 계좌 조회", w.id);
                s.store
                    .audit(&current.audit("wordset.view", Some(w.user_id), None, &detail, now))
                    .await
                    .or_internal("writing an audit line")?;
                Some(RefundAccountView {
                    bank: bank.clone(),
                    account,
                    holder: row.real_name.clone(),
                    amount: row.amount,
                })
            }
            _ => None,
        };
        Ok(Json(AdminWordsetDetail {
            wordset: admin_wordset(&row, now),
            refund,
        }))
    }

    /// Approves a waiting word set: it joins the rounds on every node within about a
    /// minute. Decided already: 409 `WORDSET_REVIEWED`.
    #[oai(
        path = "/admin/wordsets/:id/approve",
        method = "post",
        operation_id = "adminApproveWordset"
    )]
    async fn approve(&self, req: &Request, id: Path<i64>) -> ApiResult<Ack> {
        let s = &self.0;
        let current = s.sessions.require_operator(req).await?;
        let actor = Actor {
            operator_id: Some(current.operator.id),
            ip: &current.ip,
        };
        review_wordset(&s.store, id.0, None, actor, s.shared_clock.now_ms())
            .await
            .map_err(|r| r.into_api("approving a word set"))?;
        s.realtime.refresh_wordsets().await;
        Ok(Json(Ack::of(Notice::WordsetApproved)))
    }

    /// Rejects a waiting word set with the reason the user reads; its payment is then
    /// owed back to the refund account.
    #[oai(
        path = "/admin/wordsets/:id/reject",
        method = "post",
        operation_id = "adminRejectWordset"
    )]
    async fn reject(
        &self,
        req: &Request,
        id: Path<i64>,
        body: Json<RejectWordsetBody>,
    ) -> ApiResult<Ack> {
        let s = &self.0;
        let current = s.sessions.require_operator(req).await?;
        let reason = parse_reason(&body.reason)?;
        let actor = Actor {
            operator_id: Some(current.operator.id),
            ip: &current.ip,
        };
        review_wordset(&s.store, id.0, Some(&reason), actor, s.clock.now_ms())
            .await
            .map_err(|r| r.into_api("rejecting a word set"))?;
        Ok(Json(Ack::of(Notice::WordsetRejected)))
    }

    /// Records that a rejected set's payment was refunded; the refund account is erased.
    /// Not owed (or recorded already): 409 `REFUND_SETTLED`.
    #[oai(
        path = "/admin/wordsets/:id/refunded",
        method = "post",
        operation_id = "adminRecordRefund"
    )]
    async fn refunded(&self, req: &Request, id: Path<i64>) -> ApiResult<Ack> {
        let s = &self.0;
        let current = s.sessions.require_operator(req).await?;
        let sealed = s
            .store
            .wordset(id.0)
            .await
            .or_internal("reading a word set")?
            .and_then(|row| row.wordset.refund_account);
        let account = sealed.and_then(|sealed| s.config.data_key.open(&sealed).ok());
        let actor = Actor {
            operator_id: Some(current.operator.id),
            ip: &current.ip,
        };
        record_refund(&s.store, id.0, account.as_deref(), actor, s.clock.now_ms())
            .await
            .map_err(|r| r.into_api("recording a refund"))?;
        Ok(Json(Ack::of(Notice::RefundRecorded)))
    }
}
