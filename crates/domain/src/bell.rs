//! The pushes: the opening bell (when the evening's push is due, what it says and how long
//! it may wait for a phone that is away), and a 다시 텔레파시 invitation's.

use std::time::Duration;

use chrono::{DateTime, NaiveDate, NaiveTime, TimeZone, Utc};
use chrono_tz::Asia::Seoul;

use crate::round::ServiceWindow;
use crate::Notice;

/// How long a push service keeps the bell for a device that is off: past this, the news
/// is stale (a phone switched on at midnight is not told that the doors opened at eight).
pub const OPENING_TTL: Duration = Duration::from_secs(60 * 60);
/// A newer bell replaces one the push service still holds, rather than stacking.
pub const OPENING_TOPIC: &str = "opening";
/// How late after the opening a node may still start the evening's send (after an outage
/// of every node, say); a send that started goes on to the end.
pub const OPENING_LATE_LIMIT: Duration = Duration::from_secs(30 * 60);
/// Devices claimed at a time; each batch renews the lease.
pub const OPENING_BATCH: i64 = 500;
/// Pushes in flight at once.
pub const OPENING_CONCURRENCY: usize = 64;
/// How long a sender's lease lasts without a renewal before another node takes over.
pub const OPENING_LEASE: Duration = Duration::from_secs(60);
/// Devices one account may have the bell on; the oldest give way.
pub const PUSH_DEVICES_PER_USER: i64 = 10;
/// Where a click on the bell leads.
pub const OPENING_URL: &str = "/main";

/// The time the doors open each day, Seoul time: the service window's opening, or 20:00
/// (the spec's hours) when the service is always open.
pub fn opening_time(window: ServiceWindow) -> NaiveTime {
    match window {
        ServiceWindow::Daily { open, .. } => open,
        ServiceWindow::Always => NaiveTime::from_hms_opt(20, 0, 0).unwrap_or_default(),
    }
}

/// The moment the doors open on `evening` (its Seoul date).
pub fn opening_at(window: ServiceWindow, evening: NaiveDate) -> Option<DateTime<Utc>> {
    let opening = Seoul
        .from_local_datetime(&evening.and_time(opening_time(window)))
        .earliest()?;
    Some(opening.with_timezone(&Utc))
}

/// The bell's text: the evening's first four words on a line of their own, then the
/// invitation. The words come first, as a phone's lock screen shows the first line of a
/// text; no dash nor dots, which read stiffly there. Without words, the invitation alone.
pub fn opening_body<S: std::borrow::Borrow<str>>(first_words: &[S]) -> String {
    if first_words.is_empty() {
        return Notice::OpeningBody.message().to_owned();
    }
    format!(
        "첫 라운드 단어: {}\n{}",
        first_words.join(", "),
        Notice::OpeningBody.message()
    )
}

/// The evening (its Seoul date) whose bell is due at `now`: from the opening until
/// [`OPENING_LATE_LIMIT`] after it.
pub fn evening_due(window: ServiceWindow, now: DateTime<Utc>) -> Option<NaiveDate> {
    let date = now.with_timezone(&Seoul).date_naive();
    let opening = opening_at(window, date)?;
    let late = chrono::Duration::from_std(OPENING_LATE_LIMIT).ok()?;
    (opening <= now && now < opening + late).then_some(date)
}

/// A newer invitation's push replaces one a device still shows.
pub const AGAIN_INVITE_TOPIC: &str = "again";

/// Where a click on an invitation's push leads: the app, which asks for the invitation
/// and shows it while it waits for an answer.
pub fn again_invite_url(invite_id: &str) -> String {
    format!("/main?invite={invite_id}")
}

/// An invitation's text, on a lock screen: the word the two shared, and nobody's name.
pub fn again_invite_body(word: &str) -> String {
    format!("‘{word}’의 그 사람이 다시 이야기하고 싶어 해요")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    #[test]
    fn the_bell_names_the_first_words_before_the_invitation() {
        let body = opening_body(&["봄", "여름", "가을", "겨울"]);
        assert_eq!(
            body,
            "첫 라운드 단어: 봄, 여름, 가을, 겨울\n지금 들어오면 같은 단어를 고른 사람과 이야기할 수 있어요."
        );
        assert!(!body.contains('—') && !body.contains('·'), "{body}");
        let none: [&str; 0] = [];
        assert_eq!(opening_body(&none), Notice::OpeningBody.message());
    }

    #[test]
    fn the_doors_open_at_eight_seoul_time_of_the_evening() {
        let evening = NaiveDate::from_ymd_opt(2026, 11, 22).unwrap();
        assert_eq!(
            opening_at(ServiceWindow::Always, evening),
            Some(at("2026-11-22T11:00:00Z"))
        );
    }

    #[test]
    fn the_bell_is_due_from_eight_for_half_an_hour() {
        let w = ServiceWindow::default();
        // 19:59:59 and 20:30:00 Seoul are 10:59:59 and 11:30:00 UTC.
        assert_eq!(evening_due(w, at("2026-11-24T10:59:59Z")), None);
        let day = NaiveDate::from_ymd_opt(2026, 11, 24);
        assert_eq!(evening_due(w, at("2026-11-24T11:00:00Z")), day);
        assert_eq!(evening_due(w, at("2026-11-24T11:29:59Z")), day);
        assert_eq!(evening_due(w, at("2026-11-24T11:30:00Z")), None);
        assert_eq!(
            evening_due(ServiceWindow::Always, at("2026-11-24T11:00:01Z")),
            day
        );
    }

    #[test]
    fn the_bell_follows_the_configured_opening() {
        let w = ServiceWindow::parse("09:00-18:00").unwrap();
        assert_eq!(opening_time(w), NaiveTime::from_hms_opt(9, 0, 0).unwrap());
        // 09:00 Seoul is midnight UTC.
        assert_eq!(
            evening_due(w, at("2026-11-24T00:00:00Z")),
            NaiveDate::from_ymd_opt(2026, 11, 24)
        );
        assert_eq!(evening_due(w, at("2026-11-24T11:00:00Z")), None);
    }
}
