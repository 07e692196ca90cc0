//! One page's result in a site crawl job: an element of the array the fetcher passes to
//! `kerai._job_record(job, worker, results)` (`sql/site.sql`).
//!
//! The SQL reads `url_id` and `outcome` always; `error->>'kind'`, `error->>'message'` and
//! `source_type` for every outcome; `http` (kept whole as `kerai.page_versions.http_metadata`,
//! and `http->>'status'`, `'etag'`, `'last_modified'`, `'content_type'`, `'bytes'`,
//! `'elapsed_ms'` read from it), `final_url`, `content_hash`, `raw_html`, `markdown`, `metadata`,
//! `links`, `logs`, `canonical` (`url`, `url_hash`) and `signature` (`minhash`, `bands`) for a
//! fetched page, and `attempts` (how many requests were sent) for every outcome. An unset
//! field is left out; `links` is written whenever the fetcher looked for links (an empty list
//! clears the page's out-links).

use super::site::{JobError, JobLog, NewUrl};
use crate::site::near_duplicates::PageSignature;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// What became of a URL. `kerai._job_record` refuses any other outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Fetched with a body: a new version unless the content hash is the current one.
    Fetched,
    /// The server (or the sitemap's lastmod) says the page has not changed.
    NotModified,
    Failed,
    /// Not fetched on purpose (robots.txt, scope, type).
    Skipped,
}

/// What the HTTP exchange said: kept whole with the page's version.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HttpMetadata {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// `HEAD` when a HEAD request settled it (a GET is not named).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub etag: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elapsed_ms: Option<u64>,
    /// Every URL a redirect went through, in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirects: Option<Vec<String>>,
    /// Why no request was needed (`sitemap lastmod`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// One page's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobResult {
    /// `kerai.job_urls.id` of the leased URL.
    pub url_id: i64,
    pub url: String,
    pub outcome: Outcome,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http: Option<HttpMetadata>,
    /// `html`, `pdf`, `docx`, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<JobError>,
    /// Where the redirects ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_hash: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_html: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub markdown: Option<String>,
    /// Provenance and what conversion found (title, language, license, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub links: Option<Vec<NewUrl>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logs: Option<Vec<JobLog>>,
    /// How many times the URL was requested for this result (retries included; a HEAD probe
    /// and the GET after it count once). Unset: once, or none for a skipped URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempts: Option<u32>,
    /// The page's `rel=canonical` URL when it is another URL in the target's scope: the page
    /// is then stored as an alias of that page, which is queued if it is not known yet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canonical: Option<NewUrl>,
    /// The text's near-duplicate signature (`None` for a page too short to judge).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<PageSignature>,
}

impl JobResult {
    /// A result with only the URL and the outcome set.
    pub fn new(url_id: i64, url: &str, outcome: Outcome) -> JobResult {
        JobResult {
            url_id,
            url: url.to_string(),
            outcome,
            http: None,
            source_type: None,
            error: None,
            final_url: None,
            content_hash: None,
            raw_html: None,
            markdown: None,
            metadata: None,
            links: None,
            logs: None,
            attempts: None,
            canonical: None,
            signature: None,
        }
    }

    /// A failed or skipped result with its reason.
    pub fn refused(url_id: i64, url: &str, outcome: Outcome, error: JobError) -> JobResult {
        JobResult {
            error: Some(error),
            ..JobResult::new(url_id, url, outcome)
        }
    }

    /// A list of results, as `kerai._job_record` takes it.
    pub fn batch(results: &[JobResult]) -> Value {
        serde_json::to_value(results).expect("job results serialise")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The keys and outcome names `kerai._job_record` reads.
    #[test]
    fn results_have_the_keys_the_sql_reads() {
        let mut r = JobResult::new(7, "https://e.org/a", Outcome::Fetched);
        r.http = Some(HttpMetadata {
            status: Some(200),
            etag: Some("\"e\"".into()),
            bytes: Some(12),
            ..HttpMetadata::default()
        });
        r.source_type = Some("html".into());
        r.final_url = Some("https://e.org/b".into());
        r.content_hash = Some("h".into());
        r.markdown = Some("# A".into());
        r.metadata = Some(Map::from_iter([("title".to_string(), json!("A"))]));
        r.links = Some(Vec::new());
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({"url_id": 7, "url": "https://e.org/a", "outcome": "fetched",
                   "http": {"status": 200, "etag": "\"e\"", "bytes": 12}, "source_type": "html",
                   "final_url": "https://e.org/b", "content_hash": "h", "markdown": "# A",
                   "metadata": {"title": "A"}, "links": []})
        );
        let f = JobResult::refused(
            8,
            "https://e.org/x",
            Outcome::NotModified,
            JobError {
                kind: "k".into(),
                message: "m".into(),
            },
        );
        assert_eq!(
            JobResult::batch(&[f]),
            json!([{"url_id": 8, "url": "https://e.org/x", "outcome": "not_modified",
                    "error": {"kind": "k", "message": "m"}}])
        );
    }

    /// `canonical->>'url'`, `canonical->>'url_hash'`, `signature->'minhash'` and
    /// `signature->'bands'` (arrays of bigint) are what the duplicate checks read.
    #[test]
    fn duplicates_keys_are_the_ones_the_sql_reads() {
        let mut r = JobResult::new(7, "https://e.org/a?ref=x", Outcome::Fetched);
        r.canonical = Some(NewUrl {
            url: "https://e.org/a".into(),
            url_hash: "h".into(),
            host: "e.org".into(),
            depth: 1,
            via: "link".into(),
            discovered_from: Some("https://e.org/a?ref=x".into()),
            sitemap: None,
        });
        r.signature = Some(PageSignature {
            minhash: vec![-1, 2],
            bands: vec![i64::MIN],
        });
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["canonical"]["url"], "https://e.org/a");
        assert_eq!(v["canonical"]["url_hash"], "h");
        assert_eq!(
            v["signature"],
            json!({"minhash": [-1, 2], "bands": [i64::MIN]})
        );
        let back: JobResult = serde_json::from_value(v).unwrap();
        assert_eq!(back, r);
    }
}
