//! Business time: every date the product shows or decides on is Asia/Seoul.

use chrono::{DateTime, NaiveDate, NaiveTime, TimeZone, Utc};
use chrono_tz::Asia::Seoul;

/// A length of time in milliseconds, as stored times are kept (saturating).
pub fn millis(d: std::time::Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// The calendar date in Seoul at `now`.
pub fn seoul_date(now: DateTime<Utc>) -> NaiveDate {
    now.with_timezone(&Seoul).date_naive()
}

/// The start of the Seoul day of `now` (midnight in Seoul), in Unix milliseconds.
pub fn seoul_midnight_ms(now: DateTime<Utc>) -> i64 {
    let midnight = seoul_date(now).and_time(NaiveTime::MIN);
    Seoul
        .from_local_datetime(&midnight)
        .earliest()
        .map_or(now.timestamp_millis(), |t| t.timestamp_millis())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seoul_is_nine_hours_ahead() {
        let now: DateTime<Utc> = "2026-12-31T15:30:00Z".parse().unwrap();
        assert_eq!(seoul_date(now).to_string(), "2027-01-01");
        let now: DateTime<Utc> = "2026-12-31T14:59:59Z".parse().unwrap();
        assert_eq!(seoul_date(now).to_string(), "2026-12-31");
    }

    #[test]
    fn the_seoul_day_starts_at_15_utc() {
        let ms = |s: &str| s.parse::<DateTime<Utc>>().unwrap().timestamp_millis();
        let midnight = ms("2026-11-21T15:00:00Z");
        assert_eq!(
            seoul_midnight_ms("2026-11-22T12:00:00Z".parse().unwrap()),
            midnight
        );
        assert_eq!(
            seoul_midnight_ms("2026-11-21T15:00:00Z".parse().unwrap()),
            midnight
        );
        assert_eq!(
            seoul_midnight_ms("2026-11-21T14:59:59Z".parse().unwrap()),
            ms("2026-11-20T15:00:00Z")
        );
    }
}
