//! Megaphones: the count a user owns and the card payments that buy them (PortOne V1).

use poem::Request;
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};
use telepathy_domain::limits::{
    CARD_ORDERS_PER_USER, PAYMENT_CHECKS_PER_USER, PAYMENT_NOTICES_PER_IP, PAYMENT_WINDOW,
};
use telepathy_domain::megaphone::Pack;
use telepathy_domain::{ErrorCode, Notice};
use telepathy_providers::DemoCardPayments;

use super::{Ack, Tag};
use crate::error::{ApiError, ApiResult, OrInternal};
use crate::security::client_net;
use crate::state::AppState;

pub struct PaymentsApi(pub AppState);

/// The spec's megaphone count answer.
#[derive(Debug, Object)]
pub struct MegaphoneCountAnswer {
    pub success: bool,
    pub count: i64,
    pub message: String,
}

#[derive(Debug, Object)]
pub struct PrepareBody {
    /// `megaphone_1`, `megaphone_5` or `megaphone_10`.
    #[oai(default)]
    pub item: String,
}

/// What the payment window (`IMP.init`, `IMP.request_pay`) needs for one order.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct PreparedOrder {
    pub success: bool,
    /// Our order id: the window's `merchant_uid`.
    pub merchant_uid: String,
    pub item: String,
    /// The price in won, registered with PortOne for this order.
    pub amount: i64,
    /// The order's name in the window.
    pub name: String,
    /// Megaphones the pack holds.
    pub megaphones: i64,
    /// `IMP.init`'s merchant code.
    pub imp_code: String,
    /// `IMP.request_pay`'s `pg`.
    pub pg: String,
    /// Demo mode: no window; pay with `POST /payments/demo-pay`.
    pub demo: bool,
}

/// The spec's verify payload: the payment window's answer.
#[derive(Debug, Object)]
pub struct VerifyBody {
    #[oai(default)]
    pub imp_uid: String,
    #[oai(default)]
    pub merchant_uid: String,
    #[oai(default)]
    pub item: String,
}

/// A granted (or already granted) purchase.
#[derive(Debug, Object)]
pub struct Granted {
    pub success: bool,
    pub message: String,
    /// The user's megaphone count now.
    pub count: i64,
}

/// PortOne V1's notification (웹훅): only `imp_uid` is believed, and only after it is
/// read back from PortOne.
#[derive(Debug, Object)]
pub struct PortOneNotice {
    #[oai(default)]
    pub imp_uid: String,
    pub merchant_uid: Option<String>,
    pub status: Option<String>,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct DemoPayBody {
    #[oai(default)]
    pub merchant_uid: String,
}

/// A demo payment, as the window would answer it.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct DemoPaid {
    pub success: bool,
    pub imp_uid: String,
    pub merchant_uid: String,
}

#[OpenApi]
impl PaymentsApi {
    /// How many megaphones the session's user owns.
    #[oai(
        path = "/user/megaphone-count",
        method = "get",
        operation_id = "megaphoneCount",
        tag = "Tag::Megaphones"
    )]
    async fn count(&self, req: &Request) -> ApiResult<MegaphoneCountAnswer> {
        let s = &self.0;
        let user = s.sessions.require_user(req).await?.user;
        let count = s
            .store
            .megaphone_count(user.id)
            .await
            .or_internal("reading a megaphone count")?;
        Ok(Json(MegaphoneCountAnswer {
            success: true,
            count,
            message: Notice::MegaphoneCount.message().to_owned(),
        }))
    }

    /// Issues an order of a pack for the session's user and registers its amount with
    /// PortOne (`POST /payments/prepare`): the payment window then opens for this order and
    /// this amount only.
    #[oai(
        path = "/payments/prepare",
        method = "post",
        operation_id = "preparePayment",
        tag = "Tag::Megaphones"
    )]
    async fn prepare(&self, req: &Request, body: Json<PrepareBody>) -> ApiResult<PreparedOrder> {
        let s = &self.0;
        let user = s.sessions.require_user(req).await?.user;
        let pack = Pack::parse(&body.item)?;
        s.limits
            .limit(
                &format!("payment:order:user:{}", user.id),
                CARD_ORDERS_PER_USER,
                PAYMENT_WINDOW,
                ErrorCode::RateLimited,
            )
            .await?;
        let order = s.payments.issue_card_order(user.id, pack).await?;
        let client = s.payments.card.client_config();
        Ok(Json(PreparedOrder {
            success: true,
            merchant_uid: order.merchant_uid,
            item: pack.item().to_owned(),
            amount: pack.price(),
            name: pack.name().to_owned(),
            megaphones: pack.count(),
            imp_code: client.imp_code,
            pg: client.pg,
            demo: client.demo,
        }))
    }

    /// After the payment window: grants the pack's megaphones when PortOne says this
    /// payment paid this user's order for this pack, in full. Asking again for the same
    /// payment grants nothing more and answers the count.
    #[oai(
        path = "/payments/verify",
        method = "post",
        operation_id = "verifyPayment",
        tag = "Tag::Megaphones"
    )]
    async fn verify(&self, req: &Request, body: Json<VerifyBody>) -> ApiResult<Granted> {
        let s = &self.0;
        let user = s.sessions.require_user(req).await?.user;
        let pack = Pack::parse(&body.item)?;
        s.limits
            .limit(
                &format!("payment:check:user:{}", user.id),
                PAYMENT_CHECKS_PER_USER,
                PAYMENT_WINDOW,
                ErrorCode::RateLimited,
            )
            .await?;
        let count = s
            .payments
            .verify_card_payment(user.id, &body.imp_uid, &body.merchant_uid, pack)
            .await?;
        Ok(Json(Granted {
            success: true,
            message: Notice::MegaphonesGranted.message().to_owned(),
            count,
        }))
    }

    /// PortOne's payment notification (set this URL as the webhook in PortOne's console).
    /// The payment is read back from PortOne and its order settled once, as by verify.
    /// Answers 200 when there is nothing to retry, and 502 when PortOne could not be read
    /// (PortOne sends the notification again).
    #[oai(
        path = "/payments/webhook",
        method = "post",
        operation_id = "paymentWebhook",
        tag = "Tag::Megaphones"
    )]
    async fn webhook(&self, req: &Request, body: Json<PortOneNotice>) -> ApiResult<Ack> {
        let s = &self.0;
        let ip = client_net(req, s.config.trusted_proxies);
        s.limits
            .limit(
                &format!("payment:notice:ip:{ip}"),
                PAYMENT_NOTICES_PER_IP,
                PAYMENT_WINDOW,
                ErrorCode::RateLimited,
            )
            .await?;
        tracing::info!(imp_uid = %body.imp_uid, status = ?body.status, "PortOne notification");
        // The demo checkout has no PortOne to notify anyone, and its payment ids can be
        // written by hand: only its owner's verify settles a demo order.
        if s.payments.card.client_config().demo {
            return Ok(Json(Ack {
                success: false,
                message: ErrorCode::PaymentInvalid.message().to_owned(),
            }));
        }
        match s.payments.card_payment_notified(&body.imp_uid).await {
            Ok(()) => Ok(Json(Ack::of(Notice::MegaphonesGranted))),
            // Not ours, not paid, refused: logged; PortOne need not send it again.
            Err(code @ (ErrorCode::PaymentInvalid | ErrorCode::CardNotPaid)) => Ok(Json(Ack {
                success: false,
                message: code.message().to_owned(),
            })),
            Err(code) => Err(ApiError::from(code)),
        }
    }

    /// Demo mode only: pays the session user's order as the payment window would, without
    /// a card; verify it next, as after the window.
    #[oai(
        path = "/payments/demo-pay",
        method = "post",
        operation_id = "demoPay",
        tag = "Tag::Dev"
    )]
    async fn demo_pay(&self, req: &Request, body: Json<DemoPayBody>) -> ApiResult<DemoPaid> {
        let s = &self.0;
        if !s.payments.card.client_config().demo {
            return Err(ErrorCode::NotFound.into());
        }
        let user = s.sessions.require_user(req).await?.user;
        let order = s
            .store
            .card_order(&body.merchant_uid)
            .await
            .or_internal("reading a card order")?
            .filter(|o| o.user_id == user.id)
            .ok_or(ErrorCode::PaymentInvalid)?;
        Ok(Json(DemoPaid {
            success: true,
            imp_uid: DemoCardPayments::pay(&order.merchant_uid, order.amount),
            merchant_uid: order.merchant_uid,
        }))
    }
}
