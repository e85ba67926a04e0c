//! Calendar days in Europe/Madrid: "today", quota days and tax dates.

use chrono::{DateTime, Days, NaiveDate, TimeZone, Utc};
use chrono_tz::Europe::Madrid;

/// The Madrid calendar date at an instant.
pub fn date(at: DateTime<Utc>) -> NaiveDate {
    at.with_timezone(&Madrid).date_naive()
}

/// The instant a Madrid day begins.
pub fn start_of(day: NaiveDate) -> DateTime<Utc> {
    let midnight = day.and_hms_opt(0, 0, 0).expect("midnight exists");
    Madrid
        .from_local_datetime(&midnight)
        .earliest()
        .expect("Madrid never skips midnight")
        .with_timezone(&Utc)
}

/// The instant the Madrid day after `at`'s day begins.
pub fn next_midnight(at: DateTime<Utc>) -> DateTime<Utc> {
    start_of(date(at) + Days::new(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    #[test]
    fn madrid_days_follow_the_offset() {
        assert_eq!(date(utc("2026-11-21T22:59:59Z")).to_string(), "2026-11-21");
        assert_eq!(date(utc("2026-11-21T23:00:00Z")).to_string(), "2026-11-22");
        assert_eq!(date(utc("2026-07-01T21:59:59Z")).to_string(), "2026-07-01");
        assert_eq!(date(utc("2026-07-01T22:00:00Z")).to_string(), "2026-07-02");
    }

    #[test]
    fn next_midnight_handles_winter_summer_and_changeover_days() {
        assert_eq!(
            next_midnight(utc("2026-11-21T10:00:00Z")),
            utc("2026-11-21T23:00:00Z")
        );
        assert_eq!(
            next_midnight(utc("2026-07-01T10:00:00Z")),
            utc("2026-07-01T22:00:00Z")
        );
        // 2026-03-29 has 23 hours in Madrid; 2026-10-25 has 25.
        assert_eq!(
            next_midnight(utc("2026-03-29T12:00:00Z")),
            utc("2026-03-29T22:00:00Z")
        );
        assert_eq!(
            next_midnight(utc("2026-10-25T12:00:00Z")),
            utc("2026-10-25T23:00:00Z")
        );
        assert_eq!(
            next_midnight(utc("2026-11-21T23:00:00Z")),
            utc("2026-11-22T23:00:00Z")
        );
    }
}
