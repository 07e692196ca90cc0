//! Cron schedules with pg_cron's syntax and Vixie cron's semantics.

use chrono::{DateTime, Utc};
use kerai_core::ops::cron::{next_runs, parse, validate, Schedule};

fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

fn runs(expr: &str, after: &str, n: usize) -> Vec<String> {
    next_runs(expr, t(after), n)
        .unwrap_or_else(|e| panic!("{e}"))
        .into_iter()
        .map(|d| d.format("%Y-%m-%dT%H:%M:%S").to_string())
        .collect()
}

#[test]
fn accepts_what_pg_cron_accepts() {
    for ok in [
        "* * * * *",
        "0 3 * * 1",
        "*/15 * * * *",
        "0,30 8-18/2 * * mon-fri",
        "0 0 1 jan,JUL *",
        "0 12 $ * *",
        "0 0 * * 7",
        "  5   4  *  *  sun ",
        "@yearly",
        "@annually",
        "@monthly",
        "@weekly",
        "@daily",
        "@midnight",
        "@hourly",
        "@reboot",
        "@restart",
        "5 seconds",
        "1 second",
        " 59 Seconds ",
    ] {
        assert_eq!(validate(ok), Ok(()), "{ok}");
    }
}

#[test]
fn rejects_with_reasons() {
    for (bad, says) in [
        ("", "empty"),
        ("* * * *", "4 fields"),
        ("0 0 12 * * *", "no seconds field"),
        ("61 * * * *", "minute value 61 is outside 0-59"),
        ("* 24 * * *", "hour value 24"),
        ("* * 0 * *", "day-of-month value 0"),
        ("* * 32 * *", "day-of-month value 32"),
        ("* * * 13 *", "month value 13"),
        ("* * * * 8", "day-of-week value 8"),
        ("*/0 * * * *", "step"),
        ("5/10 * * * *", "a step needs a range"),
        ("* * * * fri-sun", "runs backwards"),
        ("* * * foo *", "not a number"),
        ("* * 1,$ * *", "not a number"),
        ("@Daily", "unknown macro"),
        ("@fortnightly", "unknown macro"),
        ("0 seconds", "1 to 59 seconds"),
        ("60 seconds", "1 to 59 seconds"),
        ("a b c d e", "not a number"),
    ] {
        let e = validate(bad).unwrap_err();
        assert!(e.contains(says), "{bad:?}: {e}");
        assert!(
            e.contains(&format!("\"{bad}\"")),
            "{bad:?} not named in: {e}"
        );
    }
}

#[test]
fn overlong_input_is_refused_without_slicing_characters() {
    let long = "é".repeat(600);
    assert!(validate(&long).unwrap_err().contains("longer than 1000"));
}

#[test]
fn next_run_times() {
    assert_eq!(
        runs("0 3 * * 1", "2024-01-01T00:00:00Z", 3),
        [
            "2024-01-01T03:00:00",
            "2024-01-08T03:00:00",
            "2024-01-15T03:00:00"
        ]
    );
    assert_eq!(
        runs("*/15 * * * *", "2024-01-01T00:07:30Z", 3),
        [
            "2024-01-01T00:15:00",
            "2024-01-01T00:30:00",
            "2024-01-01T00:45:00"
        ]
    );
    // Strictly after.
    assert_eq!(
        runs("0 3 * * *", "2024-01-01T03:00:00Z", 1),
        ["2024-01-02T03:00:00"]
    );
    assert_eq!(
        runs("0 3 * * *", "2024-01-01T02:59:59.9Z", 1),
        ["2024-01-01T03:00:00"]
    );
    // Last day of the month, leap February included.
    assert_eq!(
        runs("0 12 $ * *", "2024-01-15T00:00:00Z", 3),
        [
            "2024-01-31T12:00:00",
            "2024-02-29T12:00:00",
            "2024-03-31T12:00:00"
        ]
    );
    // Both day fields restricted: either matches (13th or any Friday).
    assert_eq!(
        runs("0 0 13 * 5", "2024-09-01T00:00:00Z", 3),
        [
            "2024-09-06T00:00:00",
            "2024-09-13T00:00:00",
            "2024-09-20T00:00:00"
        ]
    );
    // Day-of-month starts with '*': both must match (odd days that are Fridays).
    assert_eq!(
        runs("0 0 */2 * 5", "2024-09-01T00:00:00Z", 3),
        [
            "2024-09-13T00:00:00",
            "2024-09-27T00:00:00",
            "2024-10-11T00:00:00"
        ]
    );
    // Sunday is 0 and 7.
    assert_eq!(
        runs("0 0 * * 7", "2024-01-01T00:00:00Z", 1),
        ["2024-01-07T00:00:00"]
    );
    assert_eq!(
        runs("0 0 * * sun", "2024-01-01T00:00:00Z", 1),
        ["2024-01-07T00:00:00"]
    );
    assert_eq!(
        runs("0 0 29 2 *", "2024-03-01T00:00:00Z", 1),
        ["2028-02-29T00:00:00"]
    );
    assert_eq!(
        runs("30 9 * jan-mar mon-fri", "2024-03-29T10:00:00Z", 2),
        ["2025-01-01T09:30:00", "2025-01-02T09:30:00"]
    );
    // Macros.
    assert_eq!(
        runs("@weekly", "2024-01-01T00:00:00Z", 2),
        ["2024-01-07T00:00:00", "2024-01-14T00:00:00"]
    );
    assert_eq!(
        runs("@yearly", "2024-01-01T00:00:00Z", 1),
        ["2025-01-01T00:00:00"]
    );
    assert_eq!(
        runs("@monthly", "2024-01-15T00:00:00Z", 1),
        ["2024-02-01T00:00:00"]
    );
    assert_eq!(
        runs("@daily", "2024-01-15T00:00:00Z", 1),
        ["2024-01-16T00:00:00"]
    );
    assert_eq!(
        runs("@hourly", "2024-01-15T10:00:00Z", 2),
        ["2024-01-15T11:00:00", "2024-01-15T12:00:00"]
    );
    // Never fires / not on the clock / intervals.
    assert!(runs("0 0 30 2 *", "2024-01-01T00:00:00Z", 1).is_empty());
    assert!(runs("@reboot", "2024-01-01T00:00:00Z", 3).is_empty());
    assert_eq!(
        runs("20 seconds", "2024-01-01T00:00:00Z", 2),
        ["2024-01-01T00:00:20", "2024-01-01T00:00:40"]
    );
    assert_eq!(parse("7 seconds"), Ok(Schedule::EverySeconds(7)));
}

#[test]
fn matches_every_minute_it_lists() {
    let Schedule::Cron(spec) = parse("*/7 1-3 * * *").unwrap() else {
        panic!()
    };
    let times = spec.next_runs(t("2024-05-01T00:00:00Z"), 30);
    assert_eq!(times.len(), 30);
    assert!(times.iter().all(|&x| spec.matches(x)));
    assert!(!spec.matches(t("2024-05-01T04:00:00Z")));
}
