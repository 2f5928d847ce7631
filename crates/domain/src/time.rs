//! Business time: every date the product shows or decides on is Asia/Seoul.

use chrono::{DateTime, NaiveDate, Utc};
use chrono_tz::Asia::Seoul;

/// The calendar date in Seoul at `now`.
pub fn seoul_date(now: DateTime<Utc>) -> NaiveDate {
    now.with_timezone(&Seoul).date_naive()
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
}
