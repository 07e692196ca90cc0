//! Human sizes and durations in config files: `max_size = "20 MB"`, `timeout = "30s"`.
//! Plain numbers are bytes and seconds.

use serde::{Deserialize, Deserializer, Serializer};
use std::time::Duration;

/// Parse "20 MB", "512kb", "1GiB", "1048576" into bytes.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim().to_ascii_lowercase().replace(' ', "");
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = num
        .parse()
        .map_err(|_| format!("\"{s}\" is not a size; write for example \"20 MB\""))?;
    let mult: f64 = match unit {
        "" | "b" => 1.0,
        "k" | "kb" => 1e3,
        "kib" => 1024.0,
        "m" | "mb" => 1e6,
        "mib" => 1024.0 * 1024.0,
        "g" | "gb" => 1e9,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        _ => {
            return Err(format!(
                "\"{s}\" has an unknown size unit; use B, KB, MB, GB (or KiB, MiB, GiB)"
            ))
        }
    };
    Ok((n * mult) as u64)
}

/// Parse "30s", "5m", "1h30m", "250ms", "90" (seconds) into a duration.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim().to_ascii_lowercase().replace(' ', "");
    if t.is_empty() {
        return Err("an empty duration; write for example \"30s\"".into());
    }
    if let Ok(secs) = t.parse::<f64>() {
        return Ok(Duration::from_secs_f64(secs));
    }
    let mut total = 0.0;
    let mut rest = t.as_str();
    while !rest.is_empty() {
        let split = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let (num, tail) = rest.split_at(split);
        let n: f64 = num.parse().map_err(|_| {
            format!("\"{s}\" is not a duration; write for example \"30s\" or \"1h\"")
        })?;
        let unit_len = tail
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(tail.len());
        let (unit, next) = tail.split_at(unit_len);
        total += n * match unit {
            "ms" => 0.001,
            "s" | "sec" | "secs" => 1.0,
            "m" | "min" | "mins" => 60.0,
            "h" | "hr" | "hours" | "hour" => 3600.0,
            "d" | "day" | "days" => 86400.0,
            _ => {
                return Err(format!(
                    "\"{s}\" has an unknown time unit \"{unit}\"; use ms, s, m, h or d"
                ))
            }
        };
        rest = next;
    }
    Ok(Duration::from_secs_f64(total))
}

/// Write a duration the way people read it back: "90s", "5m", "1h".
pub fn format_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if !ms.is_multiple_of(1000) {
        return format!("{ms}ms");
    }
    let s = d.as_secs();
    if s != 0 && s.is_multiple_of(3600) {
        format!("{}h", s / 3600)
    } else if s != 0 && s.is_multiple_of(60) {
        format!("{}m", s / 60)
    } else {
        format!("{s}s")
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum NumOrText {
    Num(f64),
    Text(String),
}

pub mod bytes {
    use super::*;

    pub fn serialize<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(*v)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        match NumOrText::deserialize(d)? {
            NumOrText::Num(n) if n >= 0.0 => Ok(n as u64),
            NumOrText::Num(n) => Err(serde::de::Error::custom(format!(
                "a size cannot be negative ({n})"
            ))),
            NumOrText::Text(t) => parse_bytes(&t).map_err(serde::de::Error::custom),
        }
    }
}

pub mod duration {
    use super::*;

    pub fn serialize<S: Serializer>(v: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format_duration(*v))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        match NumOrText::deserialize(d)? {
            NumOrText::Num(n) if n >= 0.0 => Ok(Duration::from_secs_f64(n)),
            NumOrText::Num(n) => Err(serde::de::Error::custom(format!(
                "a duration cannot be negative ({n})"
            ))),
            NumOrText::Text(t) => parse_duration(&t).map_err(serde::de::Error::custom),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_bytes("20 MB").unwrap(), 20_000_000);
        assert_eq!(parse_bytes("1GiB").unwrap(), 1 << 30);
        assert_eq!(parse_bytes("512").unwrap(), 512);
        assert!(parse_bytes("ten").unwrap_err().contains("not a size"));
        assert!(parse_bytes("3 parsecs")
            .unwrap_err()
            .contains("unknown size unit"));
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30s").unwrap(), Duration::from_secs(30));
        assert_eq!(parse_duration("1h30m").unwrap(), Duration::from_secs(5400));
        assert_eq!(parse_duration("250ms").unwrap(), Duration::from_millis(250));
        assert_eq!(parse_duration("90").unwrap(), Duration::from_secs(90));
        assert!(parse_duration("soon").is_err());
        assert_eq!(format_duration(Duration::from_secs(3600)), "1h");
        assert_eq!(format_duration(Duration::from_secs(90)), "90s");
        assert_eq!(format_duration(Duration::from_millis(1500)), "1500ms");
    }
}
