//! Progress of a running job (`crate::progress`): a live bar on a terminal, plain lines every
//! few seconds otherwise (logs, CI), nothing when asked.

use super::record::Totals;
use crate::progress::{Meter, Show};

pub struct Progress {
    meter: Meter,
}

impl Progress {
    pub fn new(no_progress: bool, quiet: bool) -> Progress {
        Progress {
            meter: Meter::new(
                "crawl",
                "urls",
                None,
                match (quiet, no_progress) {
                    (true, _) => Show::Nothing,
                    (false, true) => Show::Lines,
                    (false, false) => Show::Auto,
                },
            ),
        }
    }

    pub fn update(&mut self, t: &Totals, enqueued: u64, in_flight: usize) {
        self.meter.set_total(enqueued.max(t.done()));
        self.meter.set(
            t.done(),
            format!(
                "new {} updated {} unchanged {} duplicates {} errors {} skipped {}, {in_flight} in flight",
                t.new, t.updated, t.unchanged, t.duplicate, t.failed, t.skipped
            ),
        );
    }

    pub fn finish(&mut self) {
        self.meter.finish();
    }
}
