//! Capture times: WARC-Date (`2024-05-01T12:00:00Z`), ARC's and CDXJ's 14-digit
//! `YYYYMMDDhhmmss`, HTTP dates (`Last-Modified`), all turned into seconds since the epoch and
//! back. Hand-written (days from the civil date, Howard Hinnant's algorithm) because only these
//! three fixed forms are read, and a date crate would add a dependency for thirty lines.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Seconds since 1970-01-01T00:00:00Z (negative before).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Stamp(pub i64);

impl Stamp {
    /// From a calendar date and time (UTC); `None` when a field is out of range.
    pub fn from_civil(y: i64, mo: u32, d: u32, h: u32, mi: u32, s: u32) -> Option<Stamp> {
        if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || s > 60 {
            return None;
        }
        let y = if mo <= 2 { y - 1 } else { y };
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let mp = (i64::from(mo) + 9) % 12;
        let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        let days = era * 146_097 + doe - 719_468;
        Some(Stamp(
            days * 86_400 + i64::from(h) * 3600 + i64::from(mi) * 60 + i64::from(s),
        ))
    }

    /// The calendar fields (year, month, day, hour, minute, second).
    pub fn civil(self) -> (i64, u32, u32, u32, u32, u32) {
        let days = self.0.div_euclid(86_400);
        let secs = self.0.rem_euclid(86_400);
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
        let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
        let y = yoe + era * 400 + i64::from(m <= 2);
        (
            y,
            m,
            d,
            (secs / 3600) as u32,
            (secs % 3600 / 60) as u32,
            (secs % 60) as u32,
        )
    }

    /// `YYYYMMDDhhmmss`, or a prefix of it (`1997`, `199703`): the missing fields are the
    /// earliest (the Wayback Machine's reading of a partial timestamp).
    pub fn parse14(text: &str) -> Option<Stamp> {
        let text = text.trim();
        if text.len() < 4 || text.len() > 14 || !text.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let field = |at: usize, default: u32| -> Option<u32> {
            match text.get(at..at + 2) {
                Some(f) => f.parse().ok(),
                None if text.len() <= at => Some(default),
                None => None,
            }
        };
        Stamp::from_civil(
            text[..4].parse().ok()?,
            field(4, 1)?,
            field(6, 1)?,
            field(8, 0)?,
            field(10, 0)?,
            field(12, 0)?.min(59),
        )
    }

    /// WARC-Date: ISO 8601 `YYYY-MM-DDThh:mm:ss[.fraction]Z` (WARC 1.1 allows the fraction and
    /// coarser forms such as `YYYY-MM-DD`).
    pub fn parse_warc(text: &str) -> Option<Stamp> {
        let digits: String = text
            .trim()
            .trim_end_matches('Z')
            .split('.')
            .next()?
            .chars()
            .filter(char::is_ascii_digit)
            .collect();
        Stamp::parse14(&digits)
    }

    /// An HTTP date (RFC 9110 IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`; also RFC 850's
    /// `Sunday, 06-Nov-94 08:49:37 GMT` and asctime's `Sun Nov  6 08:49:37 1994`).
    pub fn parse_http(text: &str) -> Option<Stamp> {
        const MONTHS: [&str; 12] = [
            "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
        ];
        let month = |m: &str| {
            MONTHS
                .iter()
                .position(|x| m.eq_ignore_ascii_case(x))
                .map(|i| i as u32 + 1)
        };
        let words: Vec<&str> = text
            .split([' ', ',', '-'])
            .filter(|w| !w.is_empty())
            .collect();
        let (day, mon, year, clock) = match words.as_slice() {
            [_, d, m, y, t, ..] if d.bytes().all(|b| b.is_ascii_digit()) => (*d, *m, *y, *t),
            [_, m, d, t, y] => (*d, *m, *y, *t),
            _ => return None,
        };
        let mut year: i64 = year.parse().ok()?;
        if year < 100 {
            year += if year < 70 { 2000 } else { 1900 };
        }
        let mut hms = clock.split(':').map(|f| f.parse::<u32>().ok());
        let (h, mi, s) = (hms.next()??, hms.next()??, hms.next()??);
        Stamp::from_civil(year, month(mon)?, day.parse().ok()?, h, mi, s)
    }

    /// `YYYYMMDDhhmmss`.
    pub fn to14(self) -> String {
        let (y, mo, d, h, mi, s) = self.civil();
        format!("{y:04}{mo:02}{d:02}{h:02}{mi:02}{s:02}")
    }

    /// An HTTP date (RFC 9110 IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`).
    pub fn to_http(self) -> String {
        const WEEKDAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
        const MONTHS: [&str; 12] = [
            "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
        ];
        let (y, mo, d, h, mi, s) = self.civil();
        format!(
            "{}, {d:02} {} {y} {h:02}:{mi:02}:{s:02} GMT",
            WEEKDAYS[self.0.div_euclid(86_400).rem_euclid(7) as usize],
            MONTHS[(mo - 1) as usize],
        )
    }

    /// `YYYY-MM-DDThh:mm:ssZ`, as WARC-Date and pages.jsonl write it.
    pub fn to_iso(self) -> String {
        let (y, mo, d, h, mi, s) = self.civil();
        format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z")
    }

    pub fn system_time(self) -> SystemTime {
        if self.0 >= 0 {
            UNIX_EPOCH + Duration::from_secs(self.0 as u64)
        } else {
            UNIX_EPOCH - Duration::from_secs(self.0.unsigned_abs())
        }
    }

    pub fn now() -> Stamp {
        Stamp(
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs() as i64),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_date_forms_agree() {
        let warc = Stamp::parse_warc("1997-03-15T08:49:37Z").unwrap();
        assert_eq!(Stamp::parse14("19970315084937"), Some(warc));
        assert_eq!(
            Stamp::parse_http("Sat, 15 Mar 1997 08:49:37 GMT"),
            Some(warc)
        );
        assert_eq!(
            Stamp::parse_http("Saturday, 15-Mar-97 08:49:37 GMT"),
            Some(warc)
        );
        assert_eq!(Stamp::parse_http("Sat Mar 15 08:49:37 1997"), Some(warc));
        assert_eq!(warc.to14(), "19970315084937");
        assert_eq!(warc.to_iso(), "1997-03-15T08:49:37Z");
        assert_eq!(warc.to_http(), "Sat, 15 Mar 1997 08:49:37 GMT");
        assert_eq!(
            Stamp::parse_warc("2024-05-01T12:00:00.123456Z")
                .unwrap()
                .to14(),
            "20240501120000"
        );
    }

    #[test]
    fn a_partial_timestamp_is_the_start_of_its_period_and_nonsense_is_refused() {
        assert_eq!(Stamp::parse14("1997").unwrap().to14(), "19970101000000");
        assert_eq!(Stamp::parse14("199703").unwrap().to14(), "19970301000000");
        assert_eq!(Stamp::parse14("19971301"), None);
        assert_eq!(Stamp::parse14("19x7"), None);
        assert_eq!(Stamp::parse14("1997031508493712"), None);
        assert_eq!(Stamp::parse_http("yesterday"), None);
    }

    #[test]
    fn round_trips_through_the_civil_date_across_eras() {
        for secs in [-86_400 * 365 * 80, -1, 0, 1, 951_782_400, 4_102_444_800] {
            let (y, mo, d, h, mi, s) = Stamp(secs).civil();
            assert_eq!(Stamp::from_civil(y, mo, d, h, mi, s), Some(Stamp(secs)));
        }
    }
}
