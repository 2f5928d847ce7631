//! Megaphones: bought with a card through PortOne V1, spent on a message everyone online
//! sees.
//!
//! A purchase is believed only as PortOne tells it: the order is ours (issued to this
//! user for this pack, its amount registered with PortOne before the window opened), the
//! payment read back from PortOne is `paid` for exactly that order and amount, and the
//! store moves the order to paid once, so a replay, a second tab or the webhook arriving
//! at the same moment grants nothing more.

use telepathy_domain::limits::{MEGAPHONES_PER_USER, MEGAPHONE_WINDOW};
use telepathy_domain::megaphone::{self, MegaphoneText, Pack, AIR_WAIT_MAX, ON_AIR};
use telepathy_domain::time::millis;
use telepathy_domain::{ErrorCode, Notice};
use telepathy_providers::{CardPayment, CardStatus, ProviderError};
use telepathy_store::{CardOrder, Grant, NewCardOrder, User};

use super::Payments;
use crate::error::internal_code as internal;
use crate::wire::{frame, Megaphone, MegaphoneCount, MegaphoneSent};

/// An order issued for the payment window.
#[derive(Debug)]
pub struct IssuedOrder {
    pub merchant_uid: String,
    pub pack: Pack,
}

impl Payments {
    /// Issues an order of `pack` for `user_id` and registers its amount with PortOne, so
    /// the payment window cannot be opened for another amount.
    pub async fn issue_card_order(
        &self,
        user_id: i64,
        pack: Pack,
    ) -> Result<IssuedOrder, ErrorCode> {
        let merchant_uid = format!("mega_{:024x}", rand::random::<u128>() >> 32);
        self.store
            .add_card_order(&NewCardOrder {
                merchant_uid: &merchant_uid,
                user_id,
                item: pack.item(),
                amount: pack.price(),
                megaphones: pack.count(),
                now: self.clock.now_ms(),
            })
            .await
            .map_err(|e| internal("saving a card order", e))?;
        self.card
            .prepare(&merchant_uid, pack.price())
            .await
            .map_err(|e| unavailable("registering a card order's amount", &e))?;
        Ok(IssuedOrder { merchant_uid, pack })
    }

    /// The browser's word that `imp_uid` paid `merchant_uid` for `pack`, checked with
    /// PortOne: the user's megaphone count after the grant (or after the grant this very
    /// payment made before).
    pub async fn verify_card_payment(
        &self,
        user_id: i64,
        imp_uid: &str,
        merchant_uid: &str,
        pack: Pack,
    ) -> Result<i64, ErrorCode> {
        let order = self
            .store
            .card_order(merchant_uid)
            .await
            .map_err(|e| internal("reading a card order", e))?
            .filter(|o| o.user_id == user_id && o.item == pack.item() && o.amount == pack.price())
            .ok_or_else(|| self.refused(imp_uid, "the order is not this user's for this pack"))?;
        let payment = self.card_payment(imp_uid).await?;
        self.settle(&order, &payment).await
    }

    /// PortOne's notification that `imp_uid` changed: whatever it says, the payment is
    /// read back from PortOne and its order, named by PortOne, settled. A user who closed
    /// the tab after paying gets the megaphones this way.
    pub async fn card_payment_notified(&self, imp_uid: &str) -> Result<(), ErrorCode> {
        let payment = self.card_payment(imp_uid).await?;
        let order = self
            .store
            .card_order(&payment.merchant_uid)
            .await
            .map_err(|e| internal("reading a card order", e))?
            .ok_or_else(|| self.refused(imp_uid, "no order of ours"))?;
        self.settle(&order, &payment).await.map(|_| ())
    }

    async fn card_payment(&self, imp_uid: &str) -> Result<CardPayment, ErrorCode> {
        self.card
            .find(imp_uid)
            .await
            .map_err(|e| unavailable("reading a card payment", &e))?
            .ok_or_else(|| self.refused(imp_uid, "PortOne has no such payment"))
    }

    async fn settle(&self, order: &CardOrder, payment: &CardPayment) -> Result<i64, ErrorCode> {
        if payment.merchant_uid != order.merchant_uid || payment.amount != order.amount {
            return Err(self.refused(&payment.imp_uid, "another order or amount"));
        }
        if payment.status != CardStatus::Paid {
            self.metrics.count_card_payment("unpaid");
            return Err(ErrorCode::CardNotPaid);
        }
        let grant = self
            .store
            .pay_card_order(
                &order.merchant_uid,
                &payment.imp_uid,
                payment.amount,
                self.clock.now_ms(),
            )
            .await
            .map_err(|e| internal("paying a card order", e))?;
        match grant {
            Grant::Granted { count } => {
                self.metrics.count_card_payment("granted");
                tracing::info!(
                    user = order.user_id,
                    merchant_uid = %order.merchant_uid,
                    imp_uid = %payment.imp_uid,
                    megaphones = order.megaphones,
                    "megaphones granted"
                );
                let frame = frame("megaphoneCount", &MegaphoneCount { count });
                self.realtime.deliver(&[order.user_id], &frame).await;
                Ok(count)
            }
            Grant::AlreadyGranted { count } => {
                self.metrics.count_card_payment("repeated");
                Ok(count)
            }
            Grant::Refused => Err(self.refused(&payment.imp_uid, "the order was paid otherwise")),
        }
    }

    fn refused(&self, imp_uid: &str, why: &str) -> ErrorCode {
        self.metrics.count_card_payment("refused");
        tracing::warn!(imp_uid, why, "card payment refused");
        ErrorCode::PaymentInvalid
    }

    /// `megaphone:send`: spends one of `user`'s megaphones on `text` and sends it to
    /// everyone online on every node, for its turn on air: megaphones show one at a time,
    /// each for `ON_AIR`, in the order sent. Two tabs sending at once with one megaphone
    /// left send one; a megaphone that could not go out, or whose turn would come more
    /// than `AIR_WAIT_MAX` ahead, is given back.
    pub async fn send_megaphone(&self, user: &User, text: &str) -> Result<MegaphoneSent, Refused> {
        let text = MegaphoneText::parse(text)?;
        let nickname = user.nickname.as_deref().ok_or(ErrorCode::NicknameNeeded)?;
        let key = format!("megaphone:user:{}", user.id);
        let hit = self
            .engine
            .hit(&key, MEGAPHONES_PER_USER, MEGAPHONE_WINDOW)
            .await
            .map_err(|e| internal("counting a megaphone", e))?;
        if !hit.allowed {
            return Err(Refused {
                code: ErrorCode::MegaphoneTooSoon,
                message: Some(megaphone::too_soon(hit.retry_after)),
            });
        }
        let now = self.shared_clock.now_ms();
        let spent = self
            .store
            .spend_megaphone(user.id, nickname, text.as_ref(), now)
            .await
            .map_err(|e| internal("spending a megaphone", e))?;
        let Some(spent) = spent else {
            // Nothing went out: the try does not count against the pace.
            let _ = self.engine.refund(&key).await;
            return Err(ErrorCode::NoMegaphones.into());
        };
        let message = &spent.message;
        let give_back = |why: ErrorCode| async move {
            if let Err(e) = self.store.return_megaphone(message.id).await {
                tracing::error!(error = %e, id = message.id, "a megaphone was not given back");
            }
            why
        };
        let turn = self
            .metrics
            .engine("take_air", self.engine.take_air(now, ON_AIR, AIR_WAIT_MAX))
            .await;
        let start = match turn {
            Ok(Some(start)) => start,
            Ok(None) => {
                let _ = self.engine.refund(&key).await;
                return Err(give_back(ErrorCode::MegaphoneBusy).await.into());
            }
            Err(e) => {
                tracing::warn!(error = %e, user = user.id, "no turn on air for a megaphone; given back");
                return Err(give_back(ErrorCode::Unavailable).await.into());
            }
        };
        let wait_ms = (start - now).max(0);
        let megaphone = frame(
            "megaphone",
            &Megaphone {
                id: message.id,
                nickname: message.nickname.clone(),
                message: message.message.clone(),
                sent_at: message.sent_at,
                wait_ms,
                show_ms: millis(ON_AIR),
            },
        );
        if let Err(e) = self
            .metrics
            .engine("broadcast", self.engine.broadcast(&megaphone))
            .await
        {
            tracing::warn!(error = %e, user = user.id, "a megaphone could not go out; given back");
            return Err(give_back(ErrorCode::Unavailable).await.into());
        }
        self.metrics.megaphones_sent.inc();
        let count = frame(
            "megaphoneCount",
            &MegaphoneCount {
                count: spent.remaining,
            },
        );
        self.realtime.deliver(&[user.id], &count).await;
        // A turn a second or more away is worth saying so.
        let notice = if wait_ms >= 1_000 {
            Notice::MegaphoneQueued
        } else {
            Notice::MegaphoneSent
        };
        Ok(MegaphoneSent {
            id: message.id,
            remaining: spent.remaining,
            wait_ms,
            message: notice.message().to_owned(),
        })
    }
}

/// Why a megaphone was not sent: the code, and a message of its own when the code's fixed
/// one would say less (how long to wait).
#[derive(Debug)]
pub struct Refused {
    pub code: ErrorCode,
    pub message: Option<String>,
}

impl From<ErrorCode> for Refused {
    fn from(code: ErrorCode) -> Self {
        Self {
            code,
            message: None,
        }
    }
}

fn unavailable(what: &str, e: &ProviderError) -> ErrorCode {
    tracing::warn!(error = %e, what, "PortOne failed");
    ErrorCode::PaymentUnavailable
}
