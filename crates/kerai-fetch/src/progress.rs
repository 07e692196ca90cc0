//! Progress of long work (site crawls, embedding, the citation loop), in the conventions of
//! Rust command-line tools: on a terminal a live bar (indicatif) with counts, rate, elapsed
//! time and an estimate; without one (CI, cron, a pipe), or with `--no-progress`, one plain
//! line every few seconds and one at the end; nothing at all with `--quiet` or `--json`. Everything goes
//! to standard error, so standard output stays machine-clean.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// How often a plain line is written without a terminal.
const LINE_EVERY: Duration = Duration::from_secs(5);

enum Sink {
    /// Nothing shown yet: the bar appears at the first count, so work that finds nothing to
    /// do shows nothing.
    Waiting {
        terminal: bool,
    },
    Bar(ProgressBar),
    Lines {
        last: Instant,
    },
    Off,
}

/// How to show progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Show {
    /// A bar on a terminal, plain lines otherwise.
    Auto,
    /// Plain lines even on a terminal (`--no-progress`).
    Lines,
    /// Nothing (`--quiet`, `--json`).
    Nothing,
}

/// One meter: `label` (what runs), counted in `unit`s.
pub struct Meter {
    sink: Sink,
    label: String,
    unit: &'static str,
    started: Instant,
    pos: u64,
    total: Option<u64>,
    detail: String,
}

impl Meter {
    /// A meter for `label`. A bar needs standard error to be a terminal (and `TERM` not
    /// `dumb`).
    pub fn new(label: &str, unit: &'static str, total: Option<u64>, show: Show) -> Meter {
        let terminal = show == Show::Auto
            && std::io::stderr().is_terminal()
            && std::env::var("TERM").map_or(true, |t| t != "dumb");
        let sink = match show {
            Show::Nothing => Sink::Off,
            _ => Sink::Waiting { terminal },
        };
        Meter {
            sink,
            label: label.to_string(),
            unit,
            started: Instant::now(),
            pos: 0,
            total,
            detail: String::new(),
        }
    }

    /// The total is known now (or changed: a crawl discovers URLs as it goes).
    pub fn set_total(&mut self, total: u64) {
        if self.total == Some(total) {
            return;
        }
        let had = self.total.is_some();
        self.total = Some(total);
        self.start();
        if let Sink::Bar(bar) = &self.sink {
            if !had {
                bar.set_style(style(true));
            }
            bar.set_length(total);
        }
    }

    /// `pos` units done; `detail` says more (new / updated / failed ...).
    pub fn set(&mut self, pos: u64, detail: impl Into<String>) {
        self.pos = pos;
        self.detail = detail.into();
        self.start();
        match &mut self.sink {
            Sink::Bar(bar) => {
                bar.set_position(pos);
                bar.set_message(self.detail.clone());
            }
            Sink::Lines { last } => {
                if last.elapsed() >= LINE_EVERY {
                    *last = Instant::now();
                    let line = self.line(false);
                    let _ = writeln!(std::io::stderr(), "{line}");
                }
            }
            Sink::Off | Sink::Waiting { .. } => {}
        }
    }

    /// Show the meter, at its first news.
    fn start(&mut self) {
        if let Sink::Waiting { terminal } = self.sink {
            self.sink = if terminal {
                let bar = ProgressBar::with_draw_target(self.total, ProgressDrawTarget::stderr());
                bar.set_style(style(self.total.is_some()));
                bar.set_prefix(self.label.clone());
                bar.enable_steady_tick(Duration::from_millis(200));
                Sink::Bar(bar)
            } else {
                Sink::Lines {
                    last: Instant::now(),
                }
            };
        }
    }

    /// The work ended: the bar is replaced by a last line, and a plain last line is written.
    pub fn finish(&mut self) {
        match &self.sink {
            Sink::Bar(bar) => {
                bar.finish_and_clear();
                let _ = writeln!(std::io::stderr(), "{}", self.line(true));
            }
            Sink::Lines { .. } => {
                let _ = writeln!(std::io::stderr(), "{}", self.line(true));
            }
            _ => {}
        }
        self.sink = Sink::Off;
    }

    /// `kerai: crawl: 12/40 pages, 3.1/s, 4 s elapsed, about 9 s left; new 12`
    fn line(&self, done: bool) -> String {
        let elapsed = self.started.elapsed();
        let rate = self.pos as f64 / elapsed.as_secs_f64().max(0.001);
        let count = match self.total {
            Some(t) => format!("{}/{t} {}", self.pos, self.unit),
            None => format!("{} {}", self.pos, self.unit),
        };
        let left = match self.total {
            Some(t) if !done && rate > 0.0 && t > self.pos => {
                format!(", about {} left", secs((t - self.pos) as f64 / rate))
            }
            _ => String::new(),
        };
        let detail = if self.detail.is_empty() {
            String::new()
        } else {
            format!("; {}", self.detail)
        };
        format!(
            "kerai: {}{}: {count}, {rate:.1}/s, {} elapsed{left}{detail}",
            self.label,
            if done { " done" } else { "" },
            secs(elapsed.as_secs_f64())
        )
    }
}

impl Drop for Meter {
    fn drop(&mut self) {
        if let Sink::Bar(bar) = &self.sink {
            bar.finish_and_clear();
        }
    }
}

fn style(bounded: bool) -> ProgressStyle {
    let template = if bounded {
        "{spinner} {prefix} [{bar:24}] {pos}/{len} {per_sec} {elapsed} elapsed, eta {eta} {wide_msg}"
    } else {
        "{spinner} {prefix} {pos} {per_sec} {elapsed} elapsed {wide_msg}"
    };
    ProgressStyle::with_template(template)
        .expect("a valid progress template")
        .progress_chars("=> ")
}

/// `75 s`, `3 min 5 s`, `1 h 2 min`.
fn secs(s: f64) -> String {
    let s = s.round() as u64;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, (s % 3600) / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_lines_say_count_rate_elapsed_and_what_is_left() {
        let mut m = Meter::new("crawl", "pages", Some(40), Show::Lines);
        m.pos = 10;
        m.detail = "new 10".into();
        let line = m.line(false);
        assert!(line.starts_with("kerai: crawl: 10/40 pages, "), "{line}");
        assert!(
            line.contains(" elapsed") && line.ends_with("; new 10"),
            "{line}"
        );
        let done = m.line(true);
        assert!(done.starts_with("kerai: crawl done: 10/40 pages"), "{done}");
        assert!(!done.contains("left"), "{done}");
    }

    #[test]
    fn durations_read_as_people_say_them() {
        assert_eq!(secs(4.4), "4 s");
        assert_eq!(secs(185.0), "3 min 5 s");
        assert_eq!(secs(3720.0), "1 h 2 min");
    }
}
