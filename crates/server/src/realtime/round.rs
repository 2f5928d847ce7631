//! The round as everyone sees it: the hours the service keeps, the round's number and
//! time left, and its four words (the catalogue's topic, or an approved custom set's).

use std::sync::Arc;

use telepathy_domain::round::{RoundAt, ServiceWindow};
use telepathy_domain::words::{custom_set_for_round, topic_for_round, CustomSet};
use telepathy_store::TopWord;

use super::Realtime;
use crate::wire::{RoundState, RoundWord};

/// How long a node answers tonight's word from its last read.
const TONIGHT_FRESH_MS: i64 = 30_000;

/// Tonight's word, as read from the store at `read_ms` for the evening from `since_ms`.
#[derive(Clone)]
pub(super) struct TonightRead {
    read_ms: i64,
    since_ms: i64,
    top: Option<TopWord>,
}

impl Realtime {
    /// The hours the service keeps now, the one home of that rule. Demo mode is always open
    /// by default, so nobody trying it at noon is locked out; once its clock is moved
    /// (`POST /api/dev/clock`), the spec's hours (20:00–02:00) hold on the moved clock, so a
    /// demo shows the closed hours and the opening, and moving it back opens it again.
    /// Configured hours hold either way.
    pub fn service_window(&self) -> ServiceWindow {
        match (self.window, &self.demo_clock) {
            (ServiceWindow::Always, Some(clock)) if clock.is_moved() => ServiceWindow::default(),
            (window, _) => window,
        }
    }

    /// The round as everyone sees it now.
    pub fn round_state(&self) -> RoundState {
        let now_ms = self.clock.now_ms();
        let now = chrono::DateTime::from_timestamp_millis(now_ms).unwrap_or_default();
        let at = RoundAt::of(now);
        let window = self.service_window();
        let is_open = window.is_open(now);
        RoundState {
            is_open,
            round: at.number,
            remaining: at.remaining_secs(),
            words: self.words_of(at.number),
            server_time: now_ms,
            next_open_at: if is_open {
                None
            } else {
                window.next_opening(now).map(|t| t.to_rfc3339())
            },
        }
    }

    /// The four words of round `round`: an approved custom set's on its turn, else the
    /// catalogue's topic.
    pub fn words_of(&self, round: i64) -> Vec<RoundWord> {
        let sets = self.custom_sets();
        match custom_set_for_round(round, &sets) {
            Some(set) => set
                .words
                .iter()
                .map(|w| RoundWord {
                    word: w.clone(),
                    paid: false,
                    custom: true,
                })
                .collect(),
            None => {
                let topic = topic_for_round(round);
                topic
                    .words
                    .iter()
                    .map(|w| RoundWord {
                        word: (*w).to_owned(),
                        paid: topic.paid,
                        custom: false,
                    })
                    .collect()
            }
        }
    }

    /// The word that connected the most people this evening (the one open now, or the
    /// last), with how many rooms it made and how many words made as many. Read from the rooms of the store at
    /// most every half minute per node.
    pub async fn tonight(&self) -> Result<Option<TopWord>, telepathy_store::StoreError> {
        let now_ms = self.clock.now_ms();
        let now = chrono::DateTime::from_timestamp_millis(now_ms).unwrap_or_default();
        let since_ms = self.service_window().evening_start(now).timestamp_millis();
        let known = self
            .tonight
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        if let Some(read) = known.filter(|r| {
            r.since_ms == since_ms && (0..TONIGHT_FRESH_MS).contains(&(now_ms - r.read_ms))
        }) {
            return Ok(read.top);
        }
        let top = self.store.top_word_since(since_ms).await?;
        *self
            .tonight
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(TonightRead {
            read_ms: now_ms,
            since_ms,
            top: top.clone(),
        });
        Ok(top)
    }

    /// The approved sets this node knows, sorted as the rotation needs.
    pub fn custom_sets(&self) -> Arc<Vec<CustomSet>> {
        self.custom_sets
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Reads the approved sets again. A failure keeps the sets known so far (and is
    /// logged): the rounds go on.
    pub async fn refresh_wordsets(&self) {
        let approved = match self.store.approved_wordsets().await {
            Ok(approved) => approved,
            Err(e) => {
                tracing::warn!(error = %e, "reading the approved word sets");
                return;
            }
        };
        let sets: Vec<CustomSet> = approved
            .into_iter()
            .filter_map(|w| {
                let words: Vec<String> = w.words.split(' ').map(str::to_owned).collect();
                match <[String; 4]>::try_from(words) {
                    Ok(words) => Some(CustomSet {
                        id: w.id,
                        active_from_round: w.active_from_round,
                        words,
                    }),
                    Err(_) => {
                        tracing::error!(id = w.id, "an approved word set without four words");
                        None
                    }
                }
            })
            .collect();
        *self
            .custom_sets
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Arc::new(sets);
    }
}
