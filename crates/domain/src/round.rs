//! Rounds and the service window.
//!
//! A round is `floor((now − ROUND_EPOCH) / 30 s)`; every node computes it from one shared
//! clock, so all agree. The service window is a daily span in Asia/Seoul that may wrap past
//! midnight (20:00–02:00).

use chrono::{DateTime, Duration, NaiveTime, TimeZone, Utc};
use chrono_tz::Asia::Seoul;

/// Length of a round (spec: default timer 30 seconds).
pub const ROUND_MS: i64 = 30_000;

/// The instant round 0 began: 2024-01-01 00:00:00 in Seoul.
pub const ROUND_EPOCH_MS: i64 = 1_704_034_800_000;

/// A round and where `now` stands in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoundAt {
    pub number: i64,
    /// Milliseconds until the next round starts (1..=30 000).
    pub remaining_ms: i64,
}

impl RoundAt {
    pub fn of(now: DateTime<Utc>) -> Self {
        let since = now.timestamp_millis() - ROUND_EPOCH_MS;
        let number = since.div_euclid(ROUND_MS);
        Self {
            number,
            remaining_ms: ROUND_MS - since.rem_euclid(ROUND_MS),
        }
    }

    /// Whole seconds left, rounded up, as the countdown shows them.
    pub fn remaining_secs(&self) -> i64 {
        (self.remaining_ms + 999) / 1000
    }
}

/// When the service is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServiceWindow {
    /// Always open (demo mode, tests).
    Always,
    /// Open daily from `open` until `close` (Seoul time); wraps midnight when `close <= open`.
    Daily { open: NaiveTime, close: NaiveTime },
}

impl Default for ServiceWindow {
    /// 20:00–02:00, the spec's operating hours.
    fn default() -> Self {
        Self::Daily {
            open: NaiveTime::from_hms_opt(20, 0, 0).unwrap_or_default(),
            close: NaiveTime::from_hms_opt(2, 0, 0).unwrap_or_default(),
        }
    }
}

impl ServiceWindow {
    /// Reads `always` or `HH:MM-HH:MM`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("always") {
            return Ok(Self::Always);
        }
        let (a, b) = text
            .split_once('-')
            .ok_or_else(|| format!("`{text}` is neither `always` nor HH:MM-HH:MM"))?;
        let time = |s: &str| {
            NaiveTime::parse_from_str(s.trim(), "%H:%M").map_err(|_| format!("`{s}` is not HH:MM"))
        };
        let (open, close) = (time(a)?, time(b)?);
        if open == close {
            return Err("the window opens and closes at the same time; use `always`".into());
        }
        Ok(Self::Daily { open, close })
    }

    pub fn is_open(&self, now: DateTime<Utc>) -> bool {
        match *self {
            Self::Always => true,
            Self::Daily { open, close } => {
                let t = now.with_timezone(&Seoul).time();
                if open < close {
                    open <= t && t < close
                } else {
                    t >= open || t < close
                }
            }
        }
    }

    /// Where the service evening that holds `now` began, or the last one if it is closed:
    /// the latest opening at or before `now`. Always open, the evening is the day in
    /// Seoul, from midnight.
    pub fn evening_start(&self, now: DateTime<Utc>) -> DateTime<Utc> {
        let local = now.with_timezone(&Seoul);
        let start_of = |time: NaiveTime| {
            let today = Seoul
                .from_local_datetime(&local.date_naive().and_time(time))
                .earliest()
                .unwrap_or(local);
            if today <= local {
                today
            } else {
                today - Duration::days(1)
            }
        };
        match *self {
            Self::Always => start_of(NaiveTime::MIN),
            Self::Daily { open, .. } => start_of(open),
        }
        .with_timezone(&Utc)
    }

    /// The next opening strictly after `now` (for the countdown); `None` when always open.
    pub fn next_opening(&self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let Self::Daily { open, .. } = *self else {
            return None;
        };
        let local = now.with_timezone(&Seoul);
        let today = local.date_naive().and_time(open);
        let candidate = Seoul.from_local_datetime(&today).single()?;
        let next = if candidate > local {
            candidate
        } else {
            candidate + Duration::days(1)
        };
        Some(next.with_timezone(&Utc))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    #[test]
    fn an_evening_starts_at_the_last_opening() {
        let spec = ServiceWindow::default();
        for (now, start) in [
            ("2026-11-27T12:30:00Z", "2026-11-27T11:00:00Z"), // 21:30 in Seoul
            ("2026-11-27T16:30:00Z", "2026-11-27T11:00:00Z"), // 01:30, past midnight
            ("2026-11-27T05:00:00Z", "2026-11-26T11:00:00Z"), // 14:00, closed: last night
            ("2026-11-27T11:00:00Z", "2026-11-27T11:00:00Z"), // the opening itself
        ] {
            assert_eq!(spec.evening_start(at(now)), at(start), "at {now}");
        }
        assert_eq!(
            ServiceWindow::Always.evening_start(at("2026-11-27T05:00:00Z")),
            at("2026-11-26T15:00:00Z"),
            "always open: since midnight in Seoul"
        );
    }

    #[test]
    fn rounds_are_thirty_seconds_from_the_epoch() {
        let epoch = DateTime::from_timestamp_millis(ROUND_EPOCH_MS).unwrap();
        assert_eq!(
            epoch.with_timezone(&Seoul).to_string(),
            "2024-01-01 00:00:00 KST"
        );
        assert_eq!(
            RoundAt::of(epoch),
            RoundAt {
                number: 0,
                remaining_ms: 30_000
            }
        );
        let r = RoundAt::of(epoch + Duration::milliseconds(29_999));
        assert_eq!((r.number, r.remaining_ms, r.remaining_secs()), (0, 1, 1));
        let r = RoundAt::of(epoch + Duration::milliseconds(30_000));
        assert_eq!((r.number, r.remaining_secs()), (1, 30));
        let r = RoundAt::of(epoch + Duration::milliseconds(44_500));
        assert_eq!((r.number, r.remaining_secs()), (1, 16));
        assert_eq!(RoundAt::of(epoch - Duration::milliseconds(1)).number, -1);
    }

    #[test]
    fn the_default_window_wraps_midnight_in_seoul() {
        let w = ServiceWindow::default();
        let check = |utc: &str, open: bool| assert_eq!(w.is_open(at(utc)), open, "{utc}");
        check("2026-11-22T10:59:59Z", false); // 19:59:59 KST
        check("2026-11-22T11:00:00Z", true); // 20:00
        check("2026-11-22T15:00:00Z", true); // 00:00
        check("2026-11-22T16:59:59Z", true); // 01:59:59
        check("2026-11-22T17:00:00Z", false); // 02:00
        check("2026-11-22T03:00:00Z", false); // 12:00
    }

    #[test]
    fn next_opening_is_the_next_eight_pm_in_seoul() {
        let w = ServiceWindow::default();
        let next = |utc: &str| w.next_opening(at(utc)).unwrap().to_rfc3339();
        assert_eq!(next("2026-11-22T03:00:00Z"), "2026-11-22T11:00:00+00:00");
        assert_eq!(next("2026-11-22T11:00:00Z"), "2026-11-23T11:00:00+00:00");
        assert_eq!(next("2026-11-22T16:00:00Z"), "2026-11-23T11:00:00+00:00");
        assert_eq!(
            ServiceWindow::Always.next_opening(at("2026-11-22T03:00:00Z")),
            None
        );
    }

    #[test]
    fn parses_windows() {
        assert_eq!(ServiceWindow::parse("always"), Ok(ServiceWindow::Always));
        assert_eq!(
            ServiceWindow::parse("20:00-02:00"),
            Ok(ServiceWindow::default())
        );
        let day = ServiceWindow::parse("09:00 - 18:00").unwrap();
        assert!(day.is_open(at("2026-11-22T03:00:00Z")));
        assert!(!day.is_open(at("2026-11-22T10:00:00Z")));
        assert!(ServiceWindow::parse("20:00").is_err());
        assert!(ServiceWindow::parse("25:00-02:00").is_err());
        assert!(ServiceWindow::parse("10:00-10:00").is_err());
    }
}
