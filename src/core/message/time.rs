//! ISO-8601 timestamps (`2025-12-08T22:41:05.306Z`) to milliseconds since the Unix epoch.

/// Parses `YYYY-MM-DDTHH:MM:SS[.fff][Z|±HH:MM]` into milliseconds since the Unix epoch.
/// Returns `None` for anything else; never panics.
pub fn parse_iso8601_millis(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let num = |from: usize, len: usize| -> Option<i64> {
        let digits = b.get(from..from + len)?;
        digits.iter().try_fold(0i64, |acc, d| {
            d.is_ascii_digit().then(|| acc * 10 + i64::from(d - b'0'))
        })
    };
    let sep = |at: usize, c: u8| b.get(at).is_some_and(|x| *x == c);
    if !(sep(4, b'-') && sep(7, b'-') && (sep(10, b'T') || sep(10, b' ')) && sep(13, b':')) {
        return None;
    }
    let (year, month, day) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    let (hour, minute) = (num(11, 2)?, num(14, 2)?);
    let second = if sep(16, b':') { num(17, 2)? } else { 0 };
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    let mut pos = if sep(16, b':') { 19 } else { 16 };
    let mut millis = 0i64;
    if sep(pos, b'.') {
        pos += 1;
        let mut scale = 100i64;
        while let Some(d) = b.get(pos).filter(|d| d.is_ascii_digit()) {
            millis += i64::from(d - b'0') * scale;
            scale /= 10;
            pos += 1;
        }
    }
    let offset_minutes = match b.get(pos) {
        None | Some(b'Z') | Some(b'z') => 0,
        Some(sign @ (b'+' | b'-')) => {
            let h = num(pos + 1, 2)?;
            let m = if sep(pos + 3, b':') {
                num(pos + 4, 2)?
            } else {
                num(pos + 3, 2).unwrap_or(0)
            };
            let total = h * 60 + m;
            if *sign == b'+' {
                total
            } else {
                -total
            }
        }
        Some(_) => return None,
    };
    let days = days_from_civil(year, month, day);
    let secs = days * 86_400 + hour * 3_600 + minute * 60 + second - offset_minutes * 60;
    Some(secs * 1_000 + millis)
}

/// `ms` milliseconds since the Unix epoch as an ISO 8601 UTC time with milliseconds
/// (`2025-12-08T22:41:05.306Z`), the form pi and JavaScript's `toISOString` write.
pub fn format_iso8601_millis(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    let rest = ms.rem_euclid(86_400_000);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3_600_000,
        rest / 60_000 % 60,
        rest / 1_000 % 60,
        rest % 1_000
    )
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_pi_and_claude_timestamps() {
        // The pi fixture pairs this ISO time with the numeric 1765233665292 (13 ms earlier).
        assert_eq!(
            parse_iso8601_millis("2025-12-08T22:41:05.306Z"),
            Some(1_765_233_665_306)
        );
        assert_eq!(parse_iso8601_millis("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_iso8601_millis("1970-01-01T01:00:00+01:00"), Some(0));
        assert_eq!(parse_iso8601_millis("2026-02-12"), None);
        assert_eq!(parse_iso8601_millis("2026-13-12T00:00:00Z"), None);
        assert_eq!(parse_iso8601_millis("x"), None);
    }

    #[test]
    fn formats_what_it_parses() {
        for s in [
            "2025-12-08T22:41:05.306Z",
            "1970-01-01T00:00:00.000Z",
            "2000-02-29T23:59:59.999Z",
            "1969-12-31T23:59:59.999Z",
        ] {
            assert_eq!(
                parse_iso8601_millis(s)
                    .map(format_iso8601_millis)
                    .as_deref(),
                Some(s)
            );
        }
    }
}
