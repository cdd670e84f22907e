//! Instants, stored as Unix epoch milliseconds and shown in each dialect's format.

use time::format_description::well_known::Rfc3339;
use time::macros::format_description;
use time::OffsetDateTime;

/// A UTC instant with millisecond precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(pub i64);

impl Timestamp {
    pub fn now() -> Timestamp {
        Timestamp((OffsetDateTime::now_utc().unix_timestamp_nanos() / 1_000_000) as i64)
    }

    pub fn from_millis(ms: i64) -> Timestamp {
        Timestamp(ms)
    }

    pub fn millis(self) -> i64 {
        self.0
    }

    /// The instant `duration` after this one; the end of time rather than a wrap past it.
    pub fn plus(self, duration: std::time::Duration) -> Timestamp {
        Timestamp(self.0.saturating_add(millis_of(duration)))
    }

    /// The instant `duration` before this one; the start of time rather than a wrap past it.
    pub fn minus(self, duration: std::time::Duration) -> Timestamp {
        Timestamp(self.0.saturating_sub(millis_of(duration)))
    }

    pub fn unix_seconds(self) -> i64 {
        self.0.div_euclid(1000)
    }

    fn datetime(self) -> OffsetDateTime {
        OffsetDateTime::from_unix_timestamp_nanos(self.0 as i128 * 1_000_000).unwrap_or(OffsetDateTime::UNIX_EPOCH)
    }

    /// v1 `createdAt`: ISO 8601 UTC with milliseconds, `2026-11-20T10:15:30.123Z`.
    pub fn iso8601_millis(self) -> String {
        let format = format_description!("[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z");
        self.datetime().format(&format).unwrap_or_default()
    }

    /// v2 `date`: `YYYY-MM-DD HH:MM:SS`.
    pub fn v2_date(self) -> String {
        let format = format_description!("[year]-[month]-[day] [hour]:[minute]:[second]");
        self.datetime().format(&format).unwrap_or_default()
    }

    /// v2 `date_update`: `DD/MM/YYYY HH:MM:SS`.
    pub fn v2_date_update(self) -> String {
        let format = format_description!("[day]/[month]/[year] [hour]:[minute]:[second]");
        self.datetime().format(&format).unwrap_or_default()
    }

    /// Parses an ISO 8601 / RFC 3339 instant (list filters `from` and `to`).
    pub fn parse_iso8601(raw: &str) -> Option<Timestamp> {
        // The instant, read without converting to UTC first: `to_offset` panics when the UTC
        // date falls outside the years `time` represents (9999-12-31T23:00:00-05:00).
        let dt = OffsetDateTime::parse(raw, &Rfc3339).ok()?;
        Some(Timestamp((dt.unix_timestamp_nanos() / 1_000_000) as i64))
    }
}

/// Whole milliseconds of `duration`, or `i64::MAX` for a duration too long to count in them
/// (`as i64` would wrap `Duration::from_secs(u64::MAX)` to a negative number).
fn millis_of(duration: std::time::Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_of_both_generations() {
        let t = Timestamp::parse_iso8601("2026-11-20T10:15:30.123Z").unwrap();
        assert_eq!(t.iso8601_millis(), "2026-11-20T10:15:30.123Z");
        assert_eq!(t.v2_date(), "2026-11-20 10:15:30");
        assert_eq!(t.v2_date_update(), "20/11/2026 10:15:30");
        assert_eq!(t.unix_seconds(), 1_795_169_730);
    }

    #[test]
    fn offsets_are_converted_to_utc() {
        let t = Timestamp::parse_iso8601("2026-11-20T12:15:30+02:00").unwrap();
        assert_eq!(t.iso8601_millis(), "2026-11-20T10:15:30.000Z");
        assert!(Timestamp::parse_iso8601("yesterday").is_none());
        // Its UTC date is in the year 10000, which `time` cannot hold: read as the instant.
        let late = Timestamp::parse_iso8601("9999-12-31T23:00:00-05:00").unwrap();
        assert_eq!(late.millis(), 253_402_315_200_000);
    }

    #[test]
    fn arithmetic_saturates_instead_of_wrapping() {
        let forever = std::time::Duration::from_secs(u64::MAX);
        assert_eq!(Timestamp(1_000).plus(forever), Timestamp(i64::MAX));
        assert_eq!(Timestamp(-1_000).minus(forever), Timestamp(i64::MIN));
        assert_eq!(
            Timestamp(1_000).plus(std::time::Duration::from_millis(5)),
            Timestamp(1_005)
        );
        assert_eq!(
            Timestamp(1_000).minus(std::time::Duration::from_millis(5)),
            Timestamp(995)
        );
    }
}
