//! The time the server decides by; tests move it by hand.

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};

/// A source of the current time.
pub trait Clock: Send + Sync + 'static {
    fn now(&self) -> DateTime<Utc>;

    fn now_ms(&self) -> i64 {
        self.now().timestamp_millis()
    }
}

/// The system's clock.
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// The system's clock moved by a shift: the demo's clock, which `POST /api/dev/clock`
/// sets to a time of day (to see the evening's bell or the closed hours without waiting
/// for them, say).
#[derive(Default)]
pub struct ShiftedClock {
    shift_ms: AtomicI64,
    /// Set by `set`, cleared by `reset`: a shift of zero is still a moved clock.
    moved: AtomicBool,
}

impl ShiftedClock {
    /// Moves the clock so that it reads `at` now.
    pub fn set(&self, at: DateTime<Utc>) {
        let shift = at.timestamp_millis() - Utc::now().timestamp_millis();
        self.shift_ms.store(shift, Ordering::Relaxed);
        self.moved.store(true, Ordering::Relaxed);
    }

    /// Back to the system's time.
    pub fn reset(&self) {
        self.shift_ms.store(0, Ordering::Relaxed);
        self.moved.store(false, Ordering::Relaxed);
    }

    /// Whether the clock was moved (and not reset since).
    pub fn is_moved(&self) -> bool {
        self.moved.load(Ordering::Relaxed)
    }
}

impl Clock for ShiftedClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now() + chrono::Duration::milliseconds(self.shift_ms.load(Ordering::Relaxed))
    }
}

/// The time the nodes agree on: this node's clock corrected by its measured skew from the
/// engine's clock (kept fresh by real time's clock sync). What is compared across nodes
/// (rounds, expiries, the order of events) reads this one.
pub struct SharedClock {
    local: Arc<dyn Clock>,
    offset_ms: AtomicI64,
}

impl SharedClock {
    pub fn new(local: Arc<dyn Clock>) -> Self {
        Self {
            local,
            offset_ms: AtomicI64::new(0),
        }
    }

    /// The shared time now, in ms.
    pub fn now_ms(&self) -> i64 {
        self.local.now_ms() + self.offset_ms.load(Ordering::Relaxed)
    }

    /// Records this node's skew from the engine's clock.
    pub fn set_offset_ms(&self, offset_ms: i64) {
        self.offset_ms.store(offset_ms, Ordering::Relaxed);
    }
}

/// A clock that stands still until moved, for tests.
pub struct ManualClock(Mutex<DateTime<Utc>>);

impl ManualClock {
    pub fn new(start: DateTime<Utc>) -> Self {
        Self(Mutex::new(start))
    }

    pub fn advance(&self, by: std::time::Duration) {
        let mut now = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *now += chrono::Duration::from_std(by).unwrap_or_default();
    }

    /// Moves the clock back, as a clock corrected by a skew measured again may step.
    pub fn rewind(&self, by: std::time::Duration) {
        let mut now = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *now -= chrono::Duration::from_std(by).unwrap_or_default();
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_demo_clock_reads_what_it_was_set_to_and_runs_on() {
        let clock = ShiftedClock::default();
        assert!(!clock.is_moved());
        let at: DateTime<Utc> = "2026-12-01T10:59:55Z".parse().unwrap_or_default();
        clock.set(at);
        assert!(clock.is_moved());
        let read = clock.now();
        assert!((read - at).num_milliseconds().abs() < 1_000, "{read}");
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(clock.now() > read);
        clock.reset();
        assert!(!clock.is_moved());
        assert!((clock.now() - Utc::now()).num_milliseconds().abs() < 1_000);
    }
}
