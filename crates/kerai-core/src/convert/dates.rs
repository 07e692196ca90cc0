//! Dates from documents to ISO 8601: PDF `D:` strings, W3CDTF from OOXML/OPF, spreadsheet
//! serial day numbers.

/// `D:YYYYMMDDHHmmSSOHH'mm'` (any suffix may be missing) to `YYYY-MM-DDTHH:MM:SS[Z|±HH:MM]`,
/// or to `YYYY-MM-DD` when only a date is given. `None` when it is not a PDF date.
pub(crate) fn pdf_date(raw: &str) -> Option<String> {
    let s = raw.trim().trim_start_matches("D:");
    let digits: String = s.chars().take_while(|c| c.is_ascii_digit()).collect();
    if digits.len() < 4 {
        return None;
    }
    let num = |a: usize, b: usize, default: u32| -> Option<u32> {
        if digits.len() >= b {
            digits[a..b].parse().ok()
        } else {
            Some(default)
        }
    };
    let (y, mo, d) = (num(0, 4, 0)?, num(4, 6, 1)?, num(6, 8, 1)?);
    let (h, mi, se) = (num(8, 10, 0)?, num(10, 12, 0)?, num(12, 14, 0)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || se > 60 {
        return None;
    }
    if digits.len() < 10 {
        return Some(format!("{y:04}-{mo:02}-{d:02}"));
    }
    let rest = &s[digits.len()..];
    let zone = match rest.chars().next() {
        Some('Z') | None => "Z".to_string(),
        Some(sign @ ('+' | '-')) => {
            let tz: String = rest[1..]
                .chars()
                .filter(|c| c.is_ascii_digit())
                .take(4)
                .collect();
            let th: u32 = tz.get(0..2).and_then(|v| v.parse().ok()).unwrap_or(0);
            let tm: u32 = tz.get(2..4).and_then(|v| v.parse().ok()).unwrap_or(0);
            format!("{sign}{th:02}:{tm:02}")
        }
        Some(_) => "Z".to_string(),
    };
    Some(format!(
        "{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{se:02}{zone}"
    ))
}

/// W3CDTF / ISO 8601 as found in OOXML core properties and OPF metadata: kept when it starts
/// with a plausible `YYYY[-MM[-DD]]`, trimmed otherwise `None`.
pub(crate) fn iso_date(raw: &str) -> Option<String> {
    let s = raw.trim();
    let b = s.as_bytes();
    let ok = b.len() >= 4
        && b[..4].iter().all(u8::is_ascii_digit)
        && (b.len() == 4 || b[4] == b'-')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | ':' | '.' | '+'));
    ok.then(|| s.to_string())
}

/// A spreadsheet serial day number (1900 date system, with Excel's phantom 29 Feb 1900, or
/// the 1904 system) to `YYYY-MM-DD`, plus `THH:MM:SS` when there is a time of day.
pub(crate) fn excel_serial(serial: f64, date1904: bool) -> Option<String> {
    if !serial.is_finite() || !(0.0..2_958_466.0).contains(&serial) {
        return None;
    }
    let days = serial.floor() as i64;
    let secs = ((serial - serial.floor()) * 86_400.0).round() as i64;
    let (mut days, secs) = if secs >= 86_400 {
        (days + 1, 0)
    } else {
        (days, secs)
    };
    if date1904 {
        days += 1462;
    }
    if !date1904 && days < 61 {
        days += 1; // serials before the phantom 1900-02-29
    }
    // Serial 25569 (1900 system) is 1970-01-01.
    let (y, m, d) = civil_from_days(days - 25_569);
    let date = format!("{y:04}-{m:02}-{d:02}");
    if secs == 0 {
        Some(date)
    } else {
        Some(format!(
            "{date}T{:02}:{:02}:{:02}",
            secs / 3600,
            secs % 3600 / 60,
            secs % 60
        ))
    }
}

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian calendar.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pdf_dates() {
        assert_eq!(
            pdf_date("D:20250210081500+01'00'").as_deref(),
            Some("2025-02-10T08:15:00+01:00")
        );
        assert_eq!(
            pdf_date("D:20250210081500Z").as_deref(),
            Some("2025-02-10T08:15:00Z")
        );
        assert_eq!(pdf_date("D:20250210").as_deref(), Some("2025-02-10"));
        assert_eq!(pdf_date("D:2025").as_deref(), Some("2025-01-01"));
        assert_eq!(pdf_date("yesterday"), None);
        assert_eq!(pdf_date("D:20251399"), None);
    }

    #[test]
    fn excel_serials() {
        assert_eq!(excel_serial(46037.0, false).as_deref(), Some("2026-01-15"));
        assert_eq!(excel_serial(1.0, false).as_deref(), Some("1900-01-01"));
        assert_eq!(excel_serial(61.0, false).as_deref(), Some("1900-03-01"));
        assert_eq!(
            excel_serial(45000.5, false).as_deref(),
            Some("2023-03-15T12:00:00")
        );
        assert_eq!(excel_serial(0.0, true).as_deref(), Some("1904-01-01"));
        assert_eq!(excel_serial(f64::NAN, false), None);
    }

    #[test]
    fn iso_dates() {
        assert_eq!(
            iso_date(" 2025-03-14T09:30:00Z ").as_deref(),
            Some("2025-03-14T09:30:00Z")
        );
        assert_eq!(iso_date("2024").as_deref(), Some("2024"));
        assert_eq!(iso_date("March 2024"), None);
    }
}
