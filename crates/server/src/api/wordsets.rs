//! The paid custom word set (spec section 4, /likes and /wordset): the real name a transfer
//! is made under, the bank transfer and its status, the bank's deposit notification, the
//! word set with its refund account, and the user's sets. Every call names only the
//! session's own user: another user's id is refused with `NOT_OWNER`.

use hmac::{Hmac, Mac};
use poem::Request;
use poem_openapi::param::Path;
use poem_openapi::payload::{Json, Payload};
use poem_openapi::registry::{MetaSchemaRef, Registry};
use poem_openapi::types::{ParseFromJSON, Type};
use poem_openapi::{Enum, Object, OpenApi};
use sha2::Sha256;
use telepathy_domain::limits::{
    DEPOSIT_NOTICES_PER_IP, REAL_NAME_UPDATES_PER_USER, TRANSFERS_PER_USER, TRANSFER_CHECK_WINDOW,
    TRANSFER_WINDOW, WORDSETS_PER_USER, WORDSET_PRICE_WON,
};
use telepathy_domain::wordset::{DepositorCode, RealName, RefundAccount, RefundBank, WordSet};
use telepathy_domain::{text, ErrorCode, Notice};
use telepathy_store::{DepositOutcome, NewDeposit, NewWordset, SubmitOutcome, Transfer, Wordset};

use super::{Ack, Tag};
use crate::error::{ApiError, ApiResult, OrInternal};
use crate::security::client_net;
use crate::state::AppState;

pub struct WordsetApi(pub AppState);

/// Transfers a user's list shows.
const TRANSFERS_LISTED: i64 = 50;

/// RFC 3339 of a Unix-milliseconds time.
fn time(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .to_rfc3339()
}

/// Refuses an id that is not the session's user's.
fn own(session_user: i64, named: Option<i64>) -> Result<(), ApiError> {
    match named {
        Some(id) if id != session_user => Err(ErrorCode::NotOwner.into()),
        _ => Ok(()),
    }
}

/// A user's record as the word-set pages read it.
#[derive(Debug, Object)]
pub struct UserRecord {
    pub success: bool,
    pub user_id: i64,
    /// The name transfers are made under; null until given (or verified).
    pub real_name: Option<String>,
}

#[derive(Debug, Object)]
pub struct RealNameBody {
    /// Must be the session's user when given.
    pub user_id: Option<i64>,
    /// 1–20 Hangul syllables, English letters and spaces.
    #[oai(default)]
    pub real_name: String,
}

#[derive(Debug, Object)]
pub struct CreateTransferBody {
    /// Must be the session's user when given.
    pub user_id: Option<i64>,
    /// Ignored: the depositor code is made from the saved real name.
    pub name: Option<String>,
    /// 1,000 (won): the price of one word set.
    pub amount: i64,
}

/// Where a transfer stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "lowercase")]
pub enum TransferStatus {
    /// Waiting for its deposit (for 24 hours).
    Pending,
    /// The deposit was confirmed: a word set may be submitted with it.
    Paid,
    /// No deposit came within 24 hours.
    Expired,
}

impl TransferStatus {
    pub fn of(t: &Transfer, now: i64) -> Self {
        match t.status_at(now) {
            "paid" => Self::Paid,
            "expired" => Self::Expired,
            _ => Self::Pending,
        }
    }
}

/// The account to send the money to.
#[derive(Debug, Object)]
pub struct Destination {
    pub bank: String,
    pub account: String,
    /// The account holder (예금주).
    pub holder: String,
}

/// An open transfer: send `amount` to the account with `depositor` as the memo.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct TransferOpened {
    pub success: bool,
    pub message: String,
    pub id: i64,
    /// Type this as the memo (받는 분 통장 표시) of the transfer: the deposit is matched by it.
    pub depositor: String,
    pub amount: i64,
    pub status: TransferStatus,
    pub destination: Destination,
    /// Until when a deposit pays it (RFC 3339).
    pub expires_at: String,
    /// How long the page checks for the deposit, in seconds; a deposit seen later still
    /// pays.
    pub check_seconds: i64,
}

/// A transfer's state.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase", skip_serializing_if_is_none)]
pub struct TransferState {
    pub success: bool,
    pub id: i64,
    pub status: TransferStatus,
    /// Whether it bought its word set already.
    pub used: bool,
    /// RFC 3339.
    pub paid_at: Option<String>,
}

/// A transfer in the user's list.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase", skip_serializing_if_is_none)]
pub struct TransferItem {
    pub id: i64,
    pub depositor: String,
    pub amount: i64,
    pub status: TransferStatus,
    pub used: bool,
    /// RFC 3339.
    pub created_at: String,
    pub expires_at: String,
    pub paid_at: Option<String>,
}

#[derive(Debug, Object)]
pub struct MyTransfers {
    pub success: bool,
    /// Newest first (at most 50).
    pub payments: Vec<TransferItem>,
    /// Where transfers go, for showing an open one again.
    pub destination: Destination,
}

#[derive(Debug, Object)]
pub struct RefundBody {
    /// Must be the session's user when given.
    pub user_id: Option<i64>,
    /// The paid transfer the set is bought with; the newest paid unused one when absent.
    pub payment_id: Option<i64>,
    /// Korean or English letters and spaces, 2–20 characters.
    #[oai(default)]
    pub refund_bank: String,
    /// 4–20 digits (hyphens are dropped). Kept sealed, and only until it is not needed.
    #[oai(default)]
    pub refund_account: String,
    /// Four different words of 1–6 Hangul syllables each.
    #[oai(default)]
    pub wordset: Vec<String>,
}

#[derive(Debug, Object)]
pub struct RefundSaved {
    pub ok: bool,
    pub success: bool,
    /// The thanks: reflected within 24 hours.
    pub message: String,
    pub wordset_id: i64,
}

/// Where a word set stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "lowercase")]
pub enum WordsetStatus {
    /// Waiting for review (within 24 hours).
    Pending,
    /// In the rotation.
    Approved,
    /// Not shown; the payment is refunded.
    Rejected,
}

impl WordsetStatus {
    pub fn of(stored: &str) -> Self {
        match stored {
            "approved" => Self::Approved,
            "rejected" => Self::Rejected,
            _ => Self::Pending,
        }
    }
}

/// A user's word set.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase", skip_serializing_if_is_none)]
pub struct MyWordset {
    pub id: i64,
    pub words: Vec<String>,
    pub status: WordsetStatus,
    /// Why it was rejected.
    pub reason: Option<String>,
    /// RFC 3339.
    pub created_at: String,
    pub reviewed_at: Option<String>,
    /// A rejected set: when its payment was refunded.
    pub refunded_at: Option<String>,
}

#[derive(Debug, Object)]
pub struct MyWordsets {
    pub success: bool,
    /// Newest first.
    pub wordsets: Vec<MyWordset>,
}

/// A deposit the bank reports, signed: `X-Signature: sha256=<hex>` of the HMAC-SHA256 of
/// the raw body under the shared secret.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct DepositNotice {
    /// In won.
    pub amount: i64,
    /// The memo of the deposit (받는 분 통장 표시), as the bank shows it.
    pub depositor: String,
    /// When the money came, as the bank says it.
    #[oai(default)]
    pub deposited_at: String,
    /// The bank's id of the deposit: a notification sent again with it does nothing.
    pub transaction_id: Option<String>,
}

/// The raw body of a deposit notification, whose signature is checked before it is read.
pub struct SignedDeposit(Vec<u8>);

impl Payload for SignedDeposit {
    const CONTENT_TYPE: &'static str = "application/json";

    fn check_content_type(content_type: &str) -> bool {
        content_type
            .split(';')
            .next()
            .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"))
    }

    fn schema_ref() -> MetaSchemaRef {
        DepositNotice::schema_ref()
    }

    fn register(registry: &mut Registry) {
        <DepositNotice as Type>::register(registry);
    }
}

impl poem_openapi::payload::ParsePayload for SignedDeposit {
    const IS_REQUIRED: bool = true;

    async fn from_request(request: &Request, body: &mut poem::RequestBody) -> poem::Result<Self> {
        use poem::FromRequest;
        Ok(Self(<Vec<u8>>::from_request(request, body).await?))
    }
}

// The two-argument form: the one-argument form names the macro without its crate.
poem_openapi::impl_apirequest_for_payload!(SignedDeposit,);

/// What a deposit notification did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "lowercase")]
pub enum DepositResult {
    /// It paid the one open transfer with its amount and memo.
    Matched,
    /// No open transfer had its amount and memo: kept for an operator.
    Unmatched,
    /// Several did: kept for an operator.
    Ambiguous,
    /// Sent before (same `transactionId`): nothing done again.
    Duplicate,
}

#[derive(Debug, Object)]
pub struct DepositAnswer {
    pub success: bool,
    pub message: String,
    pub outcome: DepositResult,
}

/// Whether `header` (`sha256=<hex>`) is the HMAC-SHA256 of `body` under `secret`,
/// compared in constant time.
pub fn signature_ok(secret: &[u8], body: &[u8], header: &str) -> bool {
    let Some(hex_sig) = header.trim().strip_prefix("sha256=") else {
        return false;
    };
    let Ok(given) = hex::decode(hex_sig) else {
        return false;
    };
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(secret) else {
        return false;
    };
    mac.update(body);
    mac.verify_slice(&given).is_ok()
}

impl WordsetApi {
    fn destination(&self) -> Destination {
        let a = &self.0.config.transfer_account;
        Destination {
            bank: a.bank.clone(),
            account: a.number.clone(),
            holder: a.holder.clone(),
        }
    }
}

#[OpenApi(tag = "Tag::Wordset")]
impl WordsetApi {
    /// The session's own user record (`real_name`, null until given). Another user's id:
    /// 403 `NOT_OWNER`.
    #[oai(path = "/user/:id", method = "get", operation_id = "getUserRecord")]
    async fn user_record(&self, req: &Request, id: Path<i64>) -> ApiResult<UserRecord> {
        let user = self.0.sessions.require_user(req).await?.user;
        own(user.id, Some(id.0))?;
        Ok(Json(UserRecord {
            success: true,
            user_id: user.id,
            real_name: user.real_name,
        }))
    }

    /// Saves the name bank transfers are made under.
    #[oai(
        path = "/user/update-realname",
        method = "post",
        operation_id = "updateRealName"
    )]
    async fn update_real_name(&self, req: &Request, body: Json<RealNameBody>) -> ApiResult<Ack> {
        let s = &self.0;
        let user = s.sessions.require_user(req).await?.user;
        own(user.id, body.user_id)?;
        let name = RealName::parse(&body.real_name)?;
        s.limits
            .limit(
                &format!("realname:{}", user.id),
                REAL_NAME_UPDATES_PER_USER,
                TRANSFER_WINDOW,
                ErrorCode::RateLimited,
            )
            .await?;
        s.store
            .set_real_name(user.id, name.as_ref())
            .await
            .or_internal("saving a real name")?;
        Ok(Json(Ack::of(Notice::RealNameSaved)))
    }

    /// Opens a bank transfer of 1,000 won for one word set, or answers the user's transfer
    /// still open. The deposit must carry `depositor` as its memo; it is matched for 24
    /// hours.
    #[oai(
        path = "/sp_payments/create",
        method = "post",
        operation_id = "createTransfer"
    )]
    async fn create(
        &self,
        req: &Request,
        body: Json<CreateTransferBody>,
    ) -> ApiResult<TransferOpened> {
        let s = &self.0;
        let user = s.sessions.require_user(req).await?.user;
        own(user.id, body.user_id)?;
        if body.amount != WORDSET_PRICE_WON {
            return Err(ErrorCode::PaymentAmountInvalid.into());
        }
        let name = user
            .real_name
            .as_deref()
            .and_then(|n| RealName::parse(n).ok())
            .ok_or(ErrorCode::RealNameNeeded)?;
        s.limits
            .limit(
                &format!("transfer:{}", user.id),
                TRANSFERS_PER_USER,
                TRANSFER_WINDOW,
                ErrorCode::RateLimited,
            )
            .await?;
        let (transfer, _) = s
            .payments
            .open_transfer(user.id, &name, WORDSET_PRICE_WON)
            .await?;
        Ok(Json(TransferOpened {
            success: true,
            message: Notice::TransferOpened.message().to_owned(),
            id: transfer.id,
            depositor: transfer.depositor.clone(),
            amount: transfer.amount,
            status: TransferStatus::of(&transfer, s.clock.now_ms()),
            destination: self.destination(),
            expires_at: time(transfer.expires_at),
            check_seconds: i64::try_from(TRANSFER_CHECK_WINDOW.as_secs()).unwrap_or(60),
        }))
    }

    /// A transfer of the session's user: `pending`, `paid` or `expired`. Another user's:
    /// 403 `NOT_OWNER`.
    #[oai(
        path = "/sp_payments/status/:id",
        method = "get",
        operation_id = "transferStatus"
    )]
    async fn status(&self, req: &Request, id: Path<i64>) -> ApiResult<TransferState> {
        let s = &self.0;
        let user = s.sessions.require_user(req).await?.user;
        let t = s.payments.own_transfer(user.id, id.0).await?;
        Ok(Json(TransferState {
            success: true,
            id: t.id,
            status: TransferStatus::of(&t, s.clock.now_ms()),
            used: t.used_at.is_some(),
            paid_at: t.paid_at.map(time),
        }))
    }

    /// The session's user's transfers, newest first.
    #[oai(
        path = "/sp_payments/mine",
        method = "get",
        operation_id = "myTransfers"
    )]
    async fn mine(&self, req: &Request) -> ApiResult<MyTransfers> {
        let s = &self.0;
        let user = s.sessions.require_user(req).await?.user;
        let listed = s
            .store
            .transfers_of(user.id, TRANSFERS_LISTED)
            .await
            .or_internal("listing transfers")?;
        let mut payments = Vec::with_capacity(listed.len());
        for t in listed {
            let t = s.payments.demo_confirm(t).await?;
            let now = s.clock.now_ms();
            payments.push(TransferItem {
                id: t.id,
                depositor: t.depositor.clone(),
                amount: t.amount,
                status: TransferStatus::of(&t, now),
                used: t.used_at.is_some(),
                created_at: time(t.created_at),
                expires_at: time(t.expires_at),
                paid_at: t.paid_at.map(time),
            });
        }
        Ok(Json(MyTransfers {
            success: true,
            payments,
            destination: self.destination(),
        }))
    }

    /// Submits the four words and the refund account with a paid transfer (the newest
    /// paid unused one, or `payment_id`). The set waits for review and is reflected within
    /// 24 hours; a rejected set's payment is refunded to the account.
    #[oai(
        path = "/sp_payments/update-refund",
        method = "post",
        operation_id = "submitWordset"
    )]
    async fn update_refund(&self, req: &Request, body: Json<RefundBody>) -> ApiResult<RefundSaved> {
        let s = &self.0;
        let user = s.sessions.require_user(req).await?.user;
        own(user.id, body.user_id)?;
        let words = WordSet::parse(&body.wordset)?;
        let bank = RefundBank::parse(&body.refund_bank)?;
        let account = RefundAccount::parse(&body.refund_account)?;
        s.limits
            .limit(
                &format!("wordset:{}", user.id),
                WORDSETS_PER_USER,
                TRANSFER_WINDOW,
                ErrorCode::RateLimited,
            )
            .await?;
        let sealed = s
            .config
            .data_key
            .seal(account.expose())
            .or_internal("sealing a refund account")?;
        let outcome = s
            .store
            .submit_wordset(&NewWordset {
                user_id: user.id,
                transfer_id: body.payment_id,
                words: words.words(),
                refund_bank: bank.as_ref(),
                refund_account: &sealed,
                now: s.clock.now_ms(),
            })
            .await
            .or_internal("saving a word set")?;
        let id = match outcome {
            SubmitOutcome::Submitted(id) => id,
            SubmitOutcome::NotOwner => return Err(ErrorCode::NotOwner.into()),
            SubmitOutcome::NotPaid => return Err(ErrorCode::PaymentNotPaid.into()),
            SubmitOutcome::Used => return Err(ErrorCode::PaymentUsed.into()),
            SubmitOutcome::Repeated => return Err(ErrorCode::WordsetRepeated.into()),
        };
        tracing::info!(user_id = user.id, wordset_id = id, "word set submitted");
        Ok(Json(RefundSaved {
            ok: true,
            success: true,
            message: Notice::WordsetSubmitted.message().to_owned(),
            wordset_id: id,
        }))
    }

    /// The session's own word sets with their review. Another user's id: 403
    /// `NOT_OWNER`.
    #[oai(
        path = "/wordsets/mine/:id",
        method = "get",
        operation_id = "myWordsets"
    )]
    async fn my_wordsets(&self, req: &Request, id: Path<i64>) -> ApiResult<MyWordsets> {
        let s = &self.0;
        let user = s.sessions.require_user(req).await?.user;
        own(user.id, Some(id.0))?;
        let sets = s
            .store
            .wordsets_of(user.id)
            .await
            .or_internal("listing word sets")?;
        Ok(Json(MyWordsets {
            success: true,
            wordsets: sets.iter().map(my_wordset).collect(),
        }))
    }

    /// The bank's deposit notification, server to server: signed with the shared secret
    /// (`X-Signature: sha256=<hex HMAC-SHA256 of the raw body>`). It pays the one open
    /// transfer whose amount and depositor code it matches exactly; anything else is kept
    /// for an operator, never guessed. A bad or missing signature: 401, nothing changed.
    #[oai(
        path = "/sp_payments/deposit-webhook",
        method = "post",
        operation_id = "depositWebhook"
    )]
    async fn deposit_webhook(
        &self,
        req: &Request,
        body: SignedDeposit,
    ) -> ApiResult<DepositAnswer> {
        let s = &self.0;
        let ip = client_net(req, s.config.trusted_proxies);
        s.limits
            .limit(
                &format!("deposit:ip:{ip}"),
                DEPOSIT_NOTICES_PER_IP,
                TRANSFER_WINDOW,
                ErrorCode::RateLimited,
            )
            .await?;
        let signature = req
            .headers()
            .get("x-signature")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        let signed = s
            .config
            .deposit_webhook_secret
            .as_ref()
            .is_some_and(|secret| signature_ok(secret.expose().as_bytes(), &body.0, signature));
        if !signed {
            tracing::warn!(ip, "a deposit notification without a valid signature");
            return Err(ErrorCode::SignatureInvalid.into());
        }
        let value: serde_json::Value =
            serde_json::from_slice(&body.0).map_err(|_| ErrorCode::InvalidRequest)?;
        let notice =
            DepositNotice::parse_from_json(Some(value)).map_err(|_| ErrorCode::InvalidRequest)?;
        let depositor = DepositorCode::normalize(&notice.depositor);
        let transaction_id = notice.transaction_id.as_deref().map(text::clean_line);
        let outcome = s
            .store
            .record_deposit(&NewDeposit {
                external_id: transaction_id.as_deref(),
                amount: notice.amount,
                depositor: &depositor,
                deposited_at: &text::clean_line(&notice.deposited_at),
                now: s.clock.now_ms(),
            })
            .await
            .or_internal("recording a deposit")?;
        let outcome = match outcome {
            DepositOutcome::Matched(t) => {
                tracing::info!(transfer_id = t.id, user_id = t.user_id, "deposit matched");
                DepositResult::Matched
            }
            DepositOutcome::Unmatched(id) => {
                tracing::warn!(
                    deposit_id = id,
                    amount = notice.amount,
                    depositor,
                    "a deposit matches no open transfer; kept for an operator"
                );
                DepositResult::Unmatched
            }
            DepositOutcome::Ambiguous(id) => {
                tracing::warn!(
                    deposit_id = id,
                    amount = notice.amount,
                    depositor,
                    "a deposit matches several open transfers; kept for an operator"
                );
                DepositResult::Ambiguous
            }
            DepositOutcome::Duplicate => DepositResult::Duplicate,
        };
        Ok(Json(DepositAnswer {
            success: true,
            message: Notice::DepositReceived.message().to_owned(),
            outcome,
        }))
    }
}

fn my_wordset(w: &Wordset) -> MyWordset {
    MyWordset {
        id: w.id,
        words: w.word_list(),
        status: WordsetStatus::of(&w.status),
        reason: w.reject_reason.clone(),
        created_at: time(w.created_at),
        reviewed_at: w.reviewed_at.map(time),
        refunded_at: w.refunded_at.map(time),
    }
}

#[cfg(test)]
mod tests {
    use super::signature_ok;

    #[test]
    fn signatures_are_hmac_sha256_of_the_body() {
        // HMAC-SHA256("key", "The quick brown fox jumps over the lazy dog"), RFC 4231 style.
        let body = b"The quick brown fox jumps over the lazy dog";
        let good = "sha256=f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8";
        assert!(signature_ok(b"key", body, good));
        assert!(signature_ok(b"key", body, &format!(" {good} ")));
        assert!(!signature_ok(b"other", body, good));
        assert!(!signature_ok(b"key", b"the quick brown fox", good));
        assert!(!signature_ok(b"key", body, &good.replace("sha256=", "")));
        assert!(!signature_ok(b"key", body, "sha256=zz"));
        assert!(!signature_ok(b"key", body, ""));
    }
}
