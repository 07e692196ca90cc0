//! Progress of a running job: a redrawn bar on a terminal, plain lines every few seconds
//! otherwise (logs, CI), nothing when asked.

use super::record::Totals;
use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

pub struct Progress {
    bar: bool,
    quiet: bool,
    started: Instant,
    last: Instant,
    drawn: bool,
}

impl Progress {
    pub fn new(no_progress: bool, quiet: bool) -> Progress {
        let now = Instant::now();
        Progress {
            bar: !no_progress && std::io::stderr().is_terminal(),
            quiet,
            started: now,
            last: now,
            drawn: false,
        }
    }

    pub fn update(&mut self, t: &Totals, enqueued: u64, in_flight: usize) {
        if self.quiet {
            return;
        }
        let now = Instant::now();
        let every = if self.bar {
            Duration::from_millis(200)
        } else {
            Duration::from_secs(5)
        };
        if now.duration_since(self.last) < every {
            return;
        }
        self.last = now;
        let line = line(t, enqueued, in_flight, now.duration_since(self.started));
        let mut err = std::io::stderr();
        if self.bar {
            let done = t.done().min(enqueued.max(1));
            let width = 24usize;
            let filled = (done as f64 / enqueued.max(1) as f64 * width as f64) as usize;
            let _ = write!(
                err,
                "\r[{}{}] {line}\x1b[K",
                "=".repeat(filled),
                " ".repeat(width - filled.min(width))
            );
            self.drawn = true;
        } else {
            let _ = writeln!(err, "kerai: {line}");
        }
    }

    pub fn finish(&mut self) {
        if self.bar && self.drawn {
            let _ = writeln!(std::io::stderr());
        }
    }
}

fn line(t: &Totals, enqueued: u64, in_flight: usize, elapsed: Duration) -> String {
    let rate = t.done() as f64 / elapsed.as_secs_f64().max(0.001);
    format!(
        "{}/{} urls  new {}  updated {}  unchanged {}  errors {}  skipped {}  in flight {}  {:.1}/s",
        t.done(),
        enqueued,
        t.new,
        t.updated,
        t.unchanged,
        t.failed,
        t.skipped,
        in_flight,
        rate
    )
}
