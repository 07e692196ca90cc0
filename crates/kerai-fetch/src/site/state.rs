//! What the runner's fetch tasks work on: a leased URL, and what a run's fetches share. Kept
//! apart from the runner so that the results (`results.rs`) read them without importing it.

use super::scope::Scope;
use crate::http::Http;
use crate::render::Renderer;
use crate::target::TargetConfig;
use chrono::{DateTime, Utc};

/// One leased URL.
#[derive(Debug, Clone)]
pub(super) struct Item {
    pub(super) id: i64,
    pub(super) url: String,
    pub(super) host: String,
    pub(super) depth: i32,
    pub(super) sitemap_lastmod: Option<DateTime<Utc>>,
    pub(super) etag: Option<String>,
    pub(super) last_modified: Option<String>,
    pub(super) last_scraped_at: Option<DateTime<Utc>>,
    pub(super) last_status: Option<String>,
    pub(super) source_type: Option<String>,
    pub(super) attempt: u32,
}

/// What every fetch of a run shares.
pub(super) struct Shared {
    pub(super) http: Http,
    pub(super) scope: Scope,
    pub(super) cfg: TargetConfig,
    pub(super) mode: String,
    pub(super) renderer: Option<Renderer>,
    /// The distinct URLs followed per URL shape, to catch crawler traps.
    pub(super) shapes: std::sync::Mutex<std::collections::HashMap<String, ShapeUrls>>,
}

/// The URLs of one shape followed so far (their hashes, at most `trap_limit`), and whether the
/// shape was found a trap and logged.
#[derive(Default)]
pub(super) struct ShapeUrls {
    urls: std::collections::HashSet<String>,
    logged: bool,
}

/// What to do with a link, by its shape.
#[derive(Debug, PartialEq)]
pub(super) enum Follow {
    Yes,
    /// Past the trap limit, the first such link: log the trap, then leave it.
    TrapFound,
    /// Past the trap limit, the trap already logged.
    No,
}

impl ShapeUrls {
    /// The verdict on the URL `hash` of this shape: distinct URLs count, so pages that all
    /// link to the same pages are no trap.
    pub(super) fn follow(&mut self, hash: &str, limit: usize) -> Follow {
        if self.urls.contains(hash) {
            Follow::Yes
        } else if self.urls.len() < limit {
            self.urls.insert(hash.to_string());
            Follow::Yes
        } else if !self.logged {
            self.logged = true;
            Follow::TrapFound
        } else {
            Follow::No
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shape_is_a_trap_past_its_limit_of_distinct_urls() {
        let mut s = ShapeUrls::default();
        assert_eq!(s.follow("a", 2), Follow::Yes);
        assert_eq!(s.follow("a", 2), Follow::Yes);
        assert_eq!(s.follow("b", 2), Follow::Yes);
        assert_eq!(s.follow("a", 2), Follow::Yes, "a URL already followed");
        assert_eq!(s.follow("c", 2), Follow::TrapFound);
        assert_eq!(s.follow("d", 2), Follow::No);
        assert_eq!(s.follow("b", 2), Follow::Yes);
    }
}
