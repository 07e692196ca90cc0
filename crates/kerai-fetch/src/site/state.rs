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
    /// The distinct URLs followed per URL shape (their hashes, at most `trap_limit` + 1 each),
    /// to catch crawler traps.
    pub(super) shapes:
        std::sync::Mutex<std::collections::HashMap<String, std::collections::HashSet<String>>>,
}
