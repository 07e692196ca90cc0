//! One field of a 5-field cron expression, with Vixie cron's grammar as pg_cron uses it:
//! `list = range {"," range}`, `range = "*" ["/" step] | value ["-" value ["/" step]]`,
//! values numeric or (month, day-of-week) three-letter English names, case-insensitive.

/// The five fields: name, lowest and highest value, names (index + lowest = value).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldSpec {
    pub name: &'static str,
    pub low: u32,
    pub high: u32,
    pub names: &'static [&'static str],
}

pub const MINUTE: FieldSpec = FieldSpec {
    name: "minute",
    low: 0,
    high: 59,
    names: &[],
};
pub const HOUR: FieldSpec = FieldSpec {
    name: "hour",
    low: 0,
    high: 23,
    names: &[],
};
pub const DAY_OF_MONTH: FieldSpec = FieldSpec {
    name: "day-of-month",
    low: 1,
    high: 31,
    names: &[],
};
pub const MONTH: FieldSpec = FieldSpec {
    name: "month",
    low: 1,
    high: 12,
    names: &[
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ],
};
/// 0 and 7 are both Sunday.
pub const DAY_OF_WEEK: FieldSpec = FieldSpec {
    name: "day-of-week",
    low: 0,
    high: 7,
    names: &["sun", "mon", "tue", "wed", "thu", "fri", "sat", "sun"],
};

/// The set of values a field allows (bit `v` set when value `v` matches).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Bits(pub u64);

impl Bits {
    pub fn all(spec: &FieldSpec) -> Bits {
        let mut b = Bits(0);
        for v in spec.low..=spec.high {
            b.set(v);
        }
        b
    }

    pub fn set(&mut self, v: u32) {
        self.0 |= 1u64 << v;
    }

    pub fn has(&self, v: u32) -> bool {
        v < 64 && self.0 & (1u64 << v) != 0
    }
}

fn value(token: &str, spec: &FieldSpec) -> Result<u32, String> {
    if token.is_empty() {
        return Err(format!("{} field has an empty value", spec.name));
    }
    if let Some(i) = spec
        .names
        .iter()
        .position(|n| n.eq_ignore_ascii_case(token))
    {
        return Ok(i as u32 + spec.low);
    }
    if !token.bytes().all(|b| b.is_ascii_digit()) {
        let hint = if spec.names.is_empty() {
            String::new()
        } else {
            format!(
                " (names are {}-{})",
                spec.names[0],
                spec.names[spec.names.len().min(7) - 1]
            )
        };
        return Err(format!(
            "{} value \"{token}\" is not a number{hint}",
            spec.name
        ));
    }
    let v: u32 = token
        .parse()
        .map_err(|_| format!("{} value {token} is too large", spec.name))?;
    if v < spec.low || v > spec.high {
        return Err(format!(
            "{} value {v} is outside {}-{}",
            spec.name, spec.low, spec.high
        ));
    }
    Ok(v)
}

/// Parses one field; returns its bits and whether it started with `*` (Vixie's `*_STAR`
/// flag, which decides how day-of-month and day-of-week combine).
pub fn parse_field(text: &str, spec: &FieldSpec) -> Result<(Bits, bool), String> {
    let mut bits = Bits(0);
    for part in text.split(',') {
        let (range, step) = match part.split_once('/') {
            Some((r, s)) => {
                let step: u32 = s.parse().ok().filter(|&s| s > 0).ok_or_else(|| {
                    format!("{} step \"{s}\" must be a positive number", spec.name)
                })?;
                (r, Some(step))
            }
            None => (part, None),
        };
        let (from, to) = if range == "*" {
            (spec.low, spec.high)
        } else if let Some((a, b)) = range.split_once('-') {
            let (a, b) = (value(a, spec)?, value(b, spec)?);
            if a > b {
                return Err(format!("{} range {a}-{b} runs backwards", spec.name));
            }
            (a, b)
        } else {
            let v = value(range, spec)?;
            if step.is_some() {
                // Vixie cron (and so pg_cron) rejects "5/10": a step needs a range or "*".
                return Err(format!(
                    "{} \"{part}\": a step needs a range or * (write {v}-{}/…)",
                    spec.name, spec.high
                ));
            }
            (v, v)
        };
        let mut v = from;
        while v <= to {
            bits.set(v);
            v += step.unwrap_or(1);
        }
    }
    Ok((bits, text.starts_with('*')))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vals(text: &str, spec: &FieldSpec) -> Vec<u32> {
        let (b, _) = parse_field(text, spec).unwrap();
        (0..64).filter(|&v| b.has(v)).collect()
    }

    #[test]
    fn grammar() {
        assert_eq!(vals("*/15", &MINUTE), [0, 15, 30, 45]);
        assert_eq!(vals("1,2,10-12", &HOUR), [1, 2, 10, 11, 12]);
        assert_eq!(vals("10-20/5", &MINUTE), [10, 15, 20]);
        assert_eq!(vals("jan-MAR,dec", &MONTH), [1, 2, 3, 12]);
        assert_eq!(vals("mon-fri", &DAY_OF_WEEK), [1, 2, 3, 4, 5]);
        assert_eq!(vals("7", &DAY_OF_WEEK), [7]);
        assert!(parse_field("5/10", &MINUTE).is_err());
        assert!(parse_field("60", &MINUTE).is_err());
        assert!(parse_field("0", &DAY_OF_MONTH).is_err());
        assert!(parse_field("*/0", &MINUTE).is_err());
        assert!(parse_field("mon", &MONTH).is_err());
        assert!(parse_field("jan", &HOUR).is_err());
        assert!(parse_field("1,,2", &HOUR).is_err());
        assert!(parse_field("5-1", &HOUR).is_err());
        assert!(parse_field("1-", &HOUR).is_err());
        assert!(parse_field("99999999999", &HOUR).is_err());
    }
}
