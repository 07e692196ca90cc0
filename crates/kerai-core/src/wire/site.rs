//! Site crawl jobs (`sql/site.sql`): the URLs the fetcher adds to a job
//! (`kerai._job_add_urls`, and the `links` of `kerai._job_record`'s results), their sitemap
//! entries, and the counts `kerai._job_record` answers with.

use super::lenient;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A URL to add to a job. `kerai._job_add_urls` reads every key (`u->>'url'`, `u->>'url_hash'`,
/// `u->>'host'`, `u->>'depth'`, `u->>'discovered_from'`, `u->>'via'`, `u->'sitemap'`) and
/// drops duplicates by comparing whole objects, so every key is always written, `null` when
/// unset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NewUrl {
    pub url: String,
    pub url_hash: String,
    pub host: String,
    pub depth: u32,
    /// `seed`, `sitemap`, `link`, `retry` or `redirect` (a CHECK on `kerai.job_urls.via`).
    pub via: String,
    pub discovered_from: Option<String>,
    pub sitemap: Option<SitemapEntry>,
}

impl NewUrl {
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).expect("a new URL serialises")
    }
}

/// What a sitemap said about a URL (`kerai.job_urls.sitemap`). `kerai._job_record` reads
/// `sitemap->>'lastmod'`, `sitemap->>'changefreq'` and `sitemap->>'priority'`; an unknown
/// lastmod or changefreq is left out, the priority is always written. Read back leniently
/// (`kerai._job_claim_urls` gives the stored object): a value of the wrong type is unset.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SitemapEntry {
    /// RFC 3339.
    #[serde(
        default,
        deserialize_with = "lenient::string",
        skip_serializing_if = "Option::is_none"
    )]
    pub lastmod: Option<String>,
    #[serde(
        default,
        deserialize_with = "lenient::string",
        skip_serializing_if = "Option::is_none"
    )]
    pub changefreq: Option<String>,
    #[serde(default, deserialize_with = "lenient::f64")]
    pub priority: Option<f64>,
}

impl SitemapEntry {
    /// Read a stored entry; anything but an object is an empty entry.
    pub fn from_json(v: Value) -> SitemapEntry {
        serde_json::from_value(v).unwrap_or_default()
    }
}

/// Why a page failed or was skipped: a result's `error` in `kerai._job_record(job, worker,
/// results)`, which reads `r->'error'->>'kind'` and `r->'error'->>'message'`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobError {
    /// An `ErrorKind` code (`unreachable`, `robots_disallowed`, `storage`, ...).
    pub kind: String,
    pub message: String,
}

/// A line for the job's log, in a result's `logs`: `kerai._job_record` passes
/// `l->>'level'`, `l->>'event'`, `l->>'message'` and `l->>'url'` to `kerai._job_log`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobLog {
    /// `INFO`, `WARN` or `ERROR`.
    pub level: String,
    /// `CRAWLER_TRAP`, ...
    pub event: String,
    pub url: String,
    pub message: String,
}

/// What `kerai._job_record` recorded (it answers with every key; a missing one counts 0).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordCounts {
    #[serde(default, deserialize_with = "lenient::count")]
    pub new: u64,
    #[serde(default, deserialize_with = "lenient::count")]
    pub updated: u64,
    #[serde(default, deserialize_with = "lenient::count")]
    pub unchanged: u64,
    /// Stored as an alias of another page (same text, or its rel=canonical).
    #[serde(default, deserialize_with = "lenient::count")]
    pub duplicate: u64,
    #[serde(default, deserialize_with = "lenient::count")]
    pub failed: u64,
    #[serde(default, deserialize_with = "lenient::count")]
    pub skipped: u64,
    #[serde(default, deserialize_with = "lenient::count")]
    pub stale: u64,
    #[serde(default, deserialize_with = "lenient::count")]
    pub links: u64,
}

impl RecordCounts {
    /// Read `kerai._job_record`'s answer; anything but an object counts nothing.
    pub fn from_json(v: Value) -> RecordCounts {
        serde_json::from_value(v).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `kerai._job_add_urls` reads these keys, and compares whole objects.
    #[test]
    fn new_urls_have_every_key_the_sql_reads() {
        let u = NewUrl {
            url: "https://e.org/a".into(),
            url_hash: "h".into(),
            host: "e.org".into(),
            depth: 1,
            via: "link".into(),
            discovered_from: Some("https://e.org/".into()),
            sitemap: None,
        };
        assert_eq!(
            u.to_json(),
            json!({"url": "https://e.org/a", "url_hash": "h", "host": "e.org", "depth": 1,
                   "via": "link", "discovered_from": "https://e.org/", "sitemap": null})
        );
        let seed = NewUrl {
            via: "sitemap".into(),
            discovered_from: None,
            sitemap: Some(SitemapEntry {
                lastmod: Some("2026-01-02T03:04:05+00:00".into()),
                changefreq: None,
                priority: Some(0.5),
            }),
            ..u
        };
        assert_eq!(
            seed.to_json(),
            json!({"url": "https://e.org/a", "url_hash": "h", "host": "e.org", "depth": 1,
                   "via": "sitemap", "discovered_from": null,
                   "sitemap": {"lastmod": "2026-01-02T03:04:05+00:00", "priority": 0.5}})
        );
    }

    /// `kerai._job_record` reads `sitemap->>'lastmod'`, `->>'changefreq'`, `->>'priority'`.
    #[test]
    fn sitemap_entries_have_the_keys_the_sql_reads() {
        let e = SitemapEntry {
            lastmod: Some("2026-01-02T03:04:05+00:00".into()),
            changefreq: Some("daily".into()),
            priority: Some(0.8),
        };
        let v = serde_json::to_value(&e).unwrap();
        assert_eq!(
            v,
            json!({"lastmod": "2026-01-02T03:04:05+00:00", "changefreq": "daily", "priority": 0.8})
        );
        assert_eq!(SitemapEntry::from_json(v), e);
        assert_eq!(
            SitemapEntry::from_json(json!({"lastmod": 5})),
            SitemapEntry::default()
        );
        assert_eq!(
            SitemapEntry::from_json(Value::Null),
            SitemapEntry::default()
        );
    }

    /// `kerai._job_record` reads `error->>'kind'` / `->>'message'` and each log line's
    /// `level`, `event`, `message` and `url`.
    #[test]
    fn errors_and_log_lines_have_the_keys_the_sql_reads() {
        let e = JobError {
            kind: "storage".into(),
            message: "m".into(),
        };
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            json!({"kind": "storage", "message": "m"})
        );
        let l = JobLog {
            level: "WARN".into(),
            event: "CRAWLER_TRAP".into(),
            url: "https://e.org/1".into(),
            message: "trap".into(),
        };
        assert_eq!(
            serde_json::to_value(&l).unwrap(),
            json!({"level": "WARN", "event": "CRAWLER_TRAP", "url": "https://e.org/1",
                   "message": "trap"})
        );
    }

    /// `kerai._job_record` answers `{new, updated, unchanged, duplicate, failed, skipped, stale, links}`.
    #[test]
    fn record_counts_read_the_keys_the_sql_writes() {
        let c = RecordCounts::from_json(json!({"new": 1, "updated": 2, "unchanged": 3,
            "duplicate": 8, "failed": 4, "skipped": 5, "stale": 6, "links": 7}));
        assert_eq!(
            c,
            RecordCounts {
                new: 1,
                updated: 2,
                unchanged: 3,
                duplicate: 8,
                failed: 4,
                skipped: 5,
                stale: 6,
                links: 7
            }
        );
        assert_eq!(
            serde_json::to_value(c).unwrap(),
            json!({"new": 1, "updated": 2, "unchanged": 3, "duplicate": 8, "failed": 4,
                   "skipped": 5, "stale": 6, "links": 7})
        );
        assert_eq!(
            RecordCounts::from_json(json!({"new": "x", "links": 2})),
            RecordCounts {
                links: 2,
                ..RecordCounts::default()
            }
        );
    }
}
