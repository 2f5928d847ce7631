//! The time the server decides by; tests move it by hand.

use std::sync::Mutex;

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
/// sets to a time of day (to see the evening's bell without waiting for it, say).
#[derive(Default)]
pub struct ShiftedClock(std::sync::atomic::AtomicI64);

impl ShiftedClock {
    /// Moves the clock so that it reads `at` now.
    pub fn set(&self, at: DateTime<Utc>) {
        let shift = at.timestamp_millis() - Utc::now().timestamp_millis();
        self.0.store(shift, std::sync::atomic::Ordering::Relaxed);
    }

    /// Back to the system's time.
    pub fn reset(&self) {
        self.0.store(0, std::sync::atomic::Ordering::Relaxed);
    }
}

impl Clock for ShiftedClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
            + chrono::Duration::milliseconds(self.0.load(std::sync::atomic::Ordering::Relaxed))
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
        let at: DateTime<Utc> = "2026-12-01T10:59:55Z".parse().unwrap_or_default();
        clock.set(at);
        let read = clock.now();
        assert!((read - at).num_milliseconds().abs() < 1_000, "{read}");
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(clock.now() > read);
        clock.reset();
        assert!((clock.now() - Utc::now()).num_milliseconds().abs() < 1_000);
    }
}
