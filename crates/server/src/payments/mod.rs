//! What users pay for: megaphones bought by card through PortOne (`megaphones`), and the
//! custom word set paid by bank transfer (`wordsets`). [`Payments`] holds the handles
//! these need; the console's and the command line's actions on transfers and word sets are
//! functions over the store (`wordsets::confirm_transfer` and the rest).

pub mod megaphones;
pub mod wordsets;

use std::sync::Arc;
use std::time::Duration;

use telepathy_engine::Engine;
use telepathy_providers::CardPayments;
use telepathy_store::Store;

use crate::clock::{Clock, SharedClock};
use crate::metrics::Metrics;
use crate::realtime::Realtime;

/// Megaphones and word sets on a node, with the handles they need.
pub struct Payments {
    /// The card payment provider (PortOne V1, or demo mode's stand-in).
    pub card: Arc<dyn CardPayments>,
    pub store: Store,
    pub engine: Arc<dyn Engine>,
    /// Tells a buyer's sockets their new megaphone count.
    pub realtime: Realtime,
    pub metrics: Arc<Metrics>,
    pub clock: Arc<dyn Clock>,
    pub shared_clock: Arc<SharedClock>,
    /// Demo mode's bank: a transfer open this long counts as paid (see
    /// `Payments::demo_confirm`).
    pub demo_transfer_paid_after: Option<Duration>,
}
