//! Normalising the values of sitemap fields (USP's rules): dates, priorities, change
//! frequencies, and which strings count as page URLs.

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, TimeZone, Utc};

use super::types::{ChangeFreq, DEFAULT_PRIORITY};

/// Whether `s` is an absolute http(s) URL with a host (relative and other-scheme URLs are not
/// page URLs).
pub fn is_http_url(s: &str) -> bool {
    if s.is_empty() || s.chars().any(char::is_whitespace) {
        return false;
    }
    match url::Url::parse(s) {
        Ok(u) => {
            matches!(u.scheme(), "http" | "https") && u.host_str().is_some_and(|h| !h.is_empty())
        }
        Err(_) => false,
    }
}

/// `<priority>`: a number in 0..=1, else [`DEFAULT_PRIORITY`].
pub fn priority(raw: Option<&str>) -> f64 {
    raw.map(str::trim)
        .filter(|s| !s.is_empty())
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|p| (0.0..=1.0).contains(p))
        .unwrap_or(DEFAULT_PRIORITY)
}

/// `<changefreq>`: `None` when missing or empty, the value when valid, `Always` otherwise.
pub fn changefreq(raw: Option<&str>) -> Option<ChangeFreq> {
    let v = raw.map(str::trim).filter(|s| !s.is_empty())?;
    Some(ChangeFreq::from_value(v).unwrap_or(ChangeFreq::Always))
}

/// A date in any of the forms sitemaps and feeds use: W3C datetime / ISO 8601
/// (`2009`, `2009-12`, `2009-12-17`, `2009-12-17T12:04Z`, `2009-12-17T12:04:56.5+02:00`,
/// a space instead of `T`, offsets with or without a colon) or RFC 2822
/// (`Thu, 17 Dec 2009 12:04:56 +0200`). A value without a zone is taken as UTC.
pub fn parse_date(raw: &str) -> Option<DateTime<FixedOffset>> {
    let s = raw.trim();
    if s.is_empty() {
        return None;
    }
    if let Ok(d) = DateTime::parse_from_rfc3339(s) {
        return Some(d);
    }
    if let Ok(d) = DateTime::parse_from_rfc2822(s) {
        return Some(d);
    }
    let t = s.replacen(' ', "T", 1);
    let zoned = if let Some(base) = t.strip_suffix('Z').or_else(|| t.strip_suffix('z')) {
        format!("{base}+00:00")
    } else {
        t.clone()
    };
    for fmt in [
        "%Y-%m-%dT%H:%M:%S%.f%:z",
        "%Y-%m-%dT%H:%M:%S%.f%z",
        "%Y-%m-%dT%H:%M%:z",
        "%Y-%m-%dT%H:%M%z",
    ] {
        if let Ok(d) = DateTime::parse_from_str(&zoned, fmt) {
            return Some(d);
        }
    }
    let utc = |n: NaiveDateTime| Utc.from_utc_datetime(&n).fixed_offset();
    for fmt in ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%dT%H:%M"] {
        if let Ok(n) = NaiveDateTime::parse_from_str(&t, fmt) {
            return Some(utc(n));
        }
    }
    let midnight = |d: NaiveDate| d.and_hms_opt(0, 0, 0).map(utc);
    if let Ok(d) = NaiveDate::parse_from_str(s, "%Y-%m-%d") {
        return midnight(d);
    }
    if let Ok(d) = NaiveDate::parse_from_str(&format!("{s}-01"), "%Y-%m-%d") {
        return midnight(d);
    }
    if s.len() == 4 && s.bytes().all(|b| b.is_ascii_digit()) {
        return NaiveDate::parse_from_str(&format!("{s}-01-01"), "%Y-%m-%d")
            .ok()
            .and_then(midnight);
    }
    None
}

/// Splits a comma-separated list, trimming items and dropping empty ones.
pub fn split_list(raw: Option<&str>) -> Vec<String> {
    raw.map(|s| {
        s.split(',')
            .map(str::trim)
            .filter(|x| !x.is_empty())
            .map(str::to_string)
            .collect()
    })
    .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iso(s: &str) -> Option<String> {
        parse_date(s).map(|d| d.to_rfc3339())
    }

    #[test]
    fn dates() {
        assert_eq!(
            iso("2009-12-17T12:04:56+02:00").unwrap(),
            "2009-12-17T12:04:56+02:00"
        );
        assert_eq!(
            iso("Thu, 17 Dec 2009 12:04:56 +0200").unwrap(),
            "2009-12-17T12:04:56+02:00"
        );
        assert_eq!(iso("2009-08-16").unwrap(), "2009-08-16T00:00:00+00:00");
        assert_eq!(iso("2009-08").unwrap(), "2009-08-01T00:00:00+00:00");
        assert_eq!(iso("2009").unwrap(), "2009-01-01T00:00:00+00:00");
        assert_eq!(
            iso("2009-12-17T12:04Z").unwrap(),
            "2009-12-17T12:04:00+00:00"
        );
        assert_eq!(
            iso("2009-12-17 12:04:56").unwrap(),
            "2009-12-17T12:04:56+00:00"
        );
        assert_eq!(
            iso("2009-12-17T12:04:56+0200").unwrap(),
            "2009-12-17T12:04:56+02:00"
        );
        assert_eq!(
            iso("2004-10-01T18:23:17.25+00:00").unwrap(),
            "2004-10-01T18:23:17.250+00:00"
        );
        assert_eq!(iso(""), None);
        assert_eq!(iso("yesterday"), None);
        assert_eq!(iso("2009-13-45"), None);
    }

    #[test]
    fn priorities_and_frequencies() {
        assert_eq!(priority(Some("0.8")), 0.8);
        assert_eq!(priority(Some("1")), 1.0);
        assert_eq!(priority(Some("1.1")), DEFAULT_PRIORITY);
        assert_eq!(priority(Some("high")), DEFAULT_PRIORITY);
        assert_eq!(priority(Some("NaN")), DEFAULT_PRIORITY);
        assert_eq!(priority(None), DEFAULT_PRIORITY);
        assert_eq!(changefreq(Some(" Monthly ")), Some(ChangeFreq::Monthly));
        assert_eq!(
            changefreq(Some("when we feel like it")),
            Some(ChangeFreq::Always)
        );
        assert_eq!(changefreq(Some("")), None);
    }

    #[test]
    fn http_urls() {
        assert!(is_http_url("http://test_ultimate-sitemap-parser.com/a"));
        assert!(is_http_url("HTTPS://x.org"));
        assert!(!is_http_url("/relative"));
        assert!(!is_http_url("ftp://x.org/f"));
        assert!(!is_http_url("Some other stuff"));
        assert!(!is_http_url("http://"));
    }
}
