//! Cron schedules for `kerai schedule`, with the syntax and meaning pg_cron gives them
//! (pg_cron parses with Vixie cron's code): 5 fields `minute hour day-of-month month
//! day-of-week` with `*`, lists, ranges, `*/step` and `a-b/step`, month and weekday names
//! (`jan`, `mon`), `$` as the whole day-of-month field for the last day of the month, the
//! macros `@yearly` `@annually` `@monthly` `@weekly` `@daily` `@midnight` `@hourly`
//! `@reboot` `@restart`, and pg_cron's interval form `N seconds` (1–59).
//!
//! As in Vixie cron, when both day fields are restricted (neither starts with `*`) a day
//! matches if *either* matches; otherwise both must. Times are UTC (pg_cron's default
//! `cron.timezone`).
//!
//! [`validate`] is a little stricter than pg_cron where pg_cron would silently accept a
//! mistake: more than 5 fields (pg_cron ignores the rest, so a 6-field cron with seconds
//! would be misread), trailing junk after a value, and backwards ranges (`5-1`, which
//! pg_cron accepts as matching nothing).

mod field;

use chrono::{DateTime, Datelike, Duration, NaiveDate, TimeZone, Timelike, Utc};

use field::{parse_field, Bits, DAY_OF_MONTH, DAY_OF_WEEK, HOUR, MINUTE, MONTH};

/// A parsed 5-field schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CronSpec {
    minute: Bits,
    hour: Bits,
    dom: Bits,
    month: Bits,
    dow: Bits,
    dom_star: bool,
    dow_star: bool,
    dom_last: bool,
}

/// What a schedule string means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schedule {
    /// A cron expression or macro.
    Cron(CronSpec),
    /// pg_cron's `N seconds`: every N seconds after the previous start.
    EverySeconds(u32),
    /// `@reboot` / `@restart`: once when the scheduler starts; never on the clock.
    Reboot,
}

const HELP: &str = "use 5 fields: minute hour day-of-month month day-of-week (e.g. \"0 3 * * 1\"), a macro such as @daily, or \"N seconds\"";

fn err(expr: &str, why: impl std::fmt::Display) -> String {
    format!("invalid cron schedule \"{expr}\": {why}; {HELP}")
}

/// Parses a schedule string as pg_cron would, or says why it is wrong (naming the input).
pub fn parse(expr: &str) -> Result<Schedule, String> {
    let text = expr.trim();
    if text.is_empty() {
        return Err(err(expr, "it is empty"));
    }
    if text.len() > 1000 {
        let start: String = text.chars().take(40).collect();
        return Err(err(
            &format!("{start}…"),
            "it is longer than 1000 characters",
        ));
    }
    if let Some(secs) = parse_seconds(text) {
        return match secs {
            Some(n @ 1..=59) => Ok(Schedule::EverySeconds(n)),
            _ => Err(err(
                expr,
                "an interval must be 1 to 59 seconds (use a cron expression for longer periods)",
            )),
        };
    }
    if let Some(name) = text.strip_prefix('@') {
        return macro_schedule(name).ok_or_else(|| err(expr, format!("unknown macro @{name}")));
    }
    let fields: Vec<&str> = text.split_whitespace().collect();
    if fields.len() != 5 {
        let extra = if fields.len() == 6 {
            " (kerai and pg_cron have no seconds field)"
        } else {
            ""
        };
        return Err(err(
            expr,
            format!("it has {} fields, not 5{extra}", fields.len()),
        ));
    }
    let (minute, _) = parse_field(fields[0], &MINUTE).map_err(|e| err(expr, e))?;
    let (hour, _) = parse_field(fields[1], &HOUR).map_err(|e| err(expr, e))?;
    let (dom, dom_star, dom_last) = if fields[2] == "$" {
        (Bits(0), false, true)
    } else {
        let (b, star) = parse_field(fields[2], &DAY_OF_MONTH).map_err(|e| err(expr, e))?;
        (b, star, false)
    };
    let (month, _) = parse_field(fields[3], &MONTH).map_err(|e| err(expr, e))?;
    let (mut dow, dow_star) = parse_field(fields[4], &DAY_OF_WEEK).map_err(|e| err(expr, e))?;
    if dow.has(0) || dow.has(7) {
        dow.set(0);
        dow.set(7);
    }
    Ok(Schedule::Cron(CronSpec {
        minute,
        hour,
        dom,
        month,
        dow,
        dom_star,
        dow_star,
        dom_last,
    }))
}

/// pg_cron's `N second(s)`, case-insensitive: `Some(Some(n))`, `Some(None)` when the shape
/// is right but the number is not, `None` when it is not an interval at all.
fn parse_seconds(text: &str) -> Option<Option<u32>> {
    let lower = text.to_ascii_lowercase();
    let num = lower
        .strip_suffix("seconds")
        .or_else(|| lower.strip_suffix("second"))?
        .trim_end();
    if num.is_empty() || !num.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(num.parse().ok())
}

fn macro_schedule(name: &str) -> Option<Schedule> {
    let all = |spec| Bits::all(spec);
    let only = |v: u32| {
        let mut b = Bits(0);
        b.set(v);
        b
    };
    let base = CronSpec {
        minute: only(0),
        hour: only(0),
        dom: all(&DAY_OF_MONTH),
        month: all(&MONTH),
        dow: all(&DAY_OF_WEEK),
        dom_star: false,
        dow_star: false,
        dom_last: false,
    };
    let spec = match name {
        "reboot" | "restart" => return Some(Schedule::Reboot),
        "yearly" | "annually" => CronSpec {
            dom: only(1),
            month: only(1),
            dow_star: true,
            ..base
        },
        "monthly" => CronSpec {
            dom: only(1),
            dow_star: true,
            ..base
        },
        "weekly" => {
            let mut sunday = only(0);
            sunday.set(7);
            CronSpec {
                dow: sunday,
                dom_star: true,
                ..base
            }
        }
        "daily" | "midnight" => base,
        "hourly" => CronSpec {
            hour: all(&HOUR),
            ..base
        },
        _ => return None,
    };
    Some(Schedule::Cron(spec))
}

/// Checks a schedule string (see [`parse`]).
pub fn validate(expr: &str) -> Result<(), String> {
    parse(expr).map(|_| ())
}

fn last_day_of_month(date: NaiveDate) -> bool {
    date.succ_opt().is_none_or(|next| next.day() == 1)
}

impl CronSpec {
    fn day_matches(&self, date: NaiveDate) -> bool {
        let dom = (self.dom_last && last_day_of_month(date)) || self.dom.has(date.day());
        let dow = self.dow.has(date.weekday().num_days_from_sunday());
        self.month.has(date.month())
            && if self.dom_star || self.dow_star {
                dom && dow
            } else {
                dom || dow
            }
    }

    /// Whether the schedule fires in the minute containing `t`.
    pub fn matches(&self, t: DateTime<Utc>) -> bool {
        self.minute.has(t.minute()) && self.hour.has(t.hour()) && self.day_matches(t.date_naive())
    }

    /// Up to `n` firing times strictly after `after`, searching at most 10 years ahead (a
    /// schedule like `0 0 30 2 *` never fires and gives none).
    pub fn next_runs(&self, after: DateTime<Utc>, n: usize) -> Vec<DateTime<Utc>> {
        let mut out = Vec::new();
        let start = after
            .with_second(0)
            .and_then(|t| t.with_nanosecond(0))
            .unwrap_or(after)
            + Duration::minutes(1);
        let mut date = start.date_naive();
        let last = date + Duration::days(366 * 10);
        while out.len() < n && date <= last {
            if self.day_matches(date) {
                for hour in (0..24).filter(|&h| self.hour.has(h)) {
                    for minute in (0..60).filter(|&m| self.minute.has(m)) {
                        let Some(t) = date
                            .and_hms_opt(hour, minute, 0)
                            .map(|d| Utc.from_utc_datetime(&d))
                        else {
                            continue;
                        };
                        if t >= start && out.len() < n {
                            out.push(t);
                        }
                    }
                }
            }
            date = match date.succ_opt() {
                Some(d) => d,
                None => break,
            };
        }
        out
    }
}

impl Schedule {
    /// Up to `n` run times strictly after `after`: clock times for cron schedules,
    /// `after + k·N s` for `N seconds`, none for `@reboot`.
    pub fn next_runs(&self, after: DateTime<Utc>, n: usize) -> Vec<DateTime<Utc>> {
        match self {
            Schedule::Cron(spec) => spec.next_runs(after, n),
            Schedule::EverySeconds(s) => (1..=n as i64)
                .map(|k| after + Duration::seconds(k * i64::from(*s)))
                .collect(),
            Schedule::Reboot => Vec::new(),
        }
    }
}

/// Parses `expr` and lists up to `n` run times strictly after `after` (see
/// [`Schedule::next_runs`]); an empty list means the schedule never fires on the clock.
pub fn next_runs(expr: &str, after: DateTime<Utc>, n: usize) -> Result<Vec<DateTime<Utc>>, String> {
    Ok(parse(expr)?.next_runs(after, n))
}
