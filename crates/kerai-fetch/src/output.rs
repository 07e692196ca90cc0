//! Output for people (aligned tables, ISO 8601 times) and for programs (JSON).

use chrono::{DateTime, SecondsFormat, Utc};

/// `--format`: a table for people, or JSON for programs.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Table,
    Json,
}

/// An aligned text table. Numbers are right-aligned.
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(header: &[&str]) -> Table {
        Table {
            header: header.iter().map(|s| s.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub fn render(&self) -> String {
        let cols = self.header.len();
        let mut widths: Vec<usize> = self.header.iter().map(|h| h.chars().count()).collect();
        for r in &self.rows {
            for (i, c) in r.iter().enumerate().take(cols) {
                widths[i] = widths[i].max(c.chars().count());
            }
        }
        let numeric: Vec<bool> = (0..cols)
            .map(|i| {
                !self.rows.is_empty()
                    && self.rows.iter().all(|r| {
                        r.get(i)
                            .is_none_or(|c| c.is_empty() || c.parse::<f64>().is_ok())
                    })
            })
            .collect();
        let line = |cells: &[String]| {
            let mut s = String::new();
            for i in 0..cols {
                let c = cells.get(i).map(String::as_str).unwrap_or("");
                let pad = widths[i] - c.chars().count();
                if i > 0 {
                    s.push_str("  ");
                }
                if numeric[i] {
                    s.push_str(&" ".repeat(pad));
                    s.push_str(c);
                } else {
                    s.push_str(c);
                    if i + 1 < cols {
                        s.push_str(&" ".repeat(pad));
                    }
                }
            }
            s.trim_end().to_string()
        };
        let mut out = vec![line(&self.header)];
        out.push(
            widths
                .iter()
                .map(|w| "-".repeat(*w))
                .collect::<Vec<_>>()
                .join("  "),
        );
        for r in &self.rows {
            out.push(line(r));
        }
        out.join("\n")
    }
}

/// ISO 8601 in UTC, to the second.
pub fn iso(t: &DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// Parse an ISO 8601 time given on the command line (a date alone means midnight UTC).
pub fn parse_iso(s: &str) -> Result<DateTime<Utc>, String> {
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Ok(t.with_timezone(&Utc));
    }
    if let Ok(d) = chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d") {
        return Ok(d.and_hms_opt(0, 0, 0).expect("midnight").and_utc());
    }
    if let Ok(t) = chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S") {
        return Ok(t.and_utc());
    }
    Err(format!(
        "\"{s}\" is not an ISO 8601 time; write for example 2026-05-01T00:00:00Z or 2026-05-01"
    ))
}

pub fn print_json(v: &serde_json::Value) {
    println!(
        "{}",
        serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string())
    );
}

/// The first `n` characters of a text on one line, with an ellipsis when cut.
pub fn snippet(text: &str, n: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= n {
        flat
    } else {
        let cut: String = flat.chars().take(n).collect();
        format!("{}…", cut.trim_end())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_align() {
        let mut t = Table::new(&["type", "new", "failed"]);
        t.row(vec!["html".into(), "12".into(), "0".into()]);
        t.row(vec!["pdf".into(), "3".into(), "1".into()]);
        assert_eq!(
            t.render(),
            "type  new  failed\n----  ---  ------\nhtml   12       0\npdf     3       1"
        );
    }

    #[test]
    fn iso_times() {
        assert_eq!(
            iso(&parse_iso("2026-05-01").unwrap()),
            "2026-05-01T00:00:00Z"
        );
        assert_eq!(
            iso(&parse_iso("2026-05-01T02:03:04+02:00").unwrap()),
            "2026-05-01T00:03:04Z"
        );
        assert!(parse_iso("yesterday")
            .unwrap_err()
            .contains("not an ISO 8601 time"));
    }
}
