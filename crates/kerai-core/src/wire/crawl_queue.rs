//! The citation loop's work queue (`sql/resolve.sql`): the request of an item
//! `kerai._worker_claim` leases, what the fetcher asks `kerai._worker_known` and what it
//! answers, and what it deposits with `kerai._worker_deposit`.

use super::lenient;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A queue item's request (`kerai.crawl_queue.request`, a row of `kerai._worker_claim`): what
/// the reference says, written by `kerai.crawl_cycle` with `jsonb_strip_nulls`, so an unknown
/// key is absent. Read leniently, as the resolvers always have: a text of another type is
/// unset; `year` and `authors` are kept as given (a year may be a number or a string, authors
/// family names or `{family, given}` objects); `policy` is the crawler agent's config.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WorkRequest {
    /// The reference's node id.
    #[serde(
        rename = "ref",
        default,
        deserialize_with = "lenient::string",
        skip_serializing_if = "Option::is_none"
    )]
    pub reference: Option<String>,
    /// `doi`, `arxiv`, `url`, `author_year`, `bibliography` or `concept`.
    #[serde(
        default,
        deserialize_with = "lenient::string",
        skip_serializing_if = "Option::is_none"
    )]
    pub ref_type: Option<String>,
    /// The reference as written.
    #[serde(
        default,
        deserialize_with = "lenient::string",
        skip_serializing_if = "Option::is_none"
    )]
    pub text: Option<String>,
    #[serde(
        default,
        deserialize_with = "lenient::string",
        skip_serializing_if = "Option::is_none"
    )]
    pub doi: Option<String>,
    #[serde(
        default,
        deserialize_with = "lenient::string",
        skip_serializing_if = "Option::is_none"
    )]
    pub url: Option<String>,
    #[serde(
        default,
        deserialize_with = "lenient::string",
        skip_serializing_if = "Option::is_none"
    )]
    pub arxiv: Option<String>,
    #[serde(
        default,
        deserialize_with = "lenient::string",
        skip_serializing_if = "Option::is_none"
    )]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub year: Value,
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub authors: Value,
    #[serde(
        default,
        deserialize_with = "lenient::string",
        skip_serializing_if = "Option::is_none"
    )]
    pub first_author: Option<String>,
    /// `a` of `2017a`.
    #[serde(
        default,
        deserialize_with = "lenient::string",
        skip_serializing_if = "Option::is_none"
    )]
    pub year_suffix: Option<String>,
    #[serde(
        default,
        deserialize_with = "lenient::string",
        skip_serializing_if = "Option::is_none"
    )]
    pub container: Option<String>,
    #[serde(
        default,
        deserialize_with = "lenient::string",
        skip_serializing_if = "Option::is_none"
    )]
    pub publisher: Option<String>,
    #[serde(
        default,
        deserialize_with = "lenient::string",
        skip_serializing_if = "Option::is_none"
    )]
    pub location: Option<String>,
    /// A concept reference's term.
    #[serde(
        default,
        deserialize_with = "lenient::string",
        skip_serializing_if = "Option::is_none"
    )]
    pub term: Option<String>,
    /// The sentence the reference was cited in.
    #[serde(
        default,
        deserialize_with = "lenient::string",
        skip_serializing_if = "Option::is_none"
    )]
    pub context: Option<String>,
    #[serde(
        default,
        deserialize_with = "lenient::f64",
        skip_serializing_if = "Option::is_none"
    )]
    pub score: Option<f64>,
    #[serde(
        default,
        deserialize_with = "lenient::i64",
        skip_serializing_if = "Option::is_none"
    )]
    pub chain_depth: Option<i64>,
    /// The crawler agent's config (`kerai.crawler_agents.config`).
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub policy: Value,
}

impl WorkRequest {
    /// Read a queue item's request; anything but an object is an empty request.
    pub fn from_json(v: Value) -> WorkRequest {
        serde_json::from_value(v).unwrap_or_default()
    }
}

/// What the fetcher records with deposited markdown (`kerai._worker_deposit(item, markdown,
/// result)`). The SQL reads `result->>'source_url'` and `result->'metadata'->>'doi'` /
/// `->>'arxiv'` (the work's keys), keeps the rest on the queue item and, when ingesting,
/// `source_url`, `source_type`, `fetched_at`, `license`, `content_type`, `found_via` and
/// `metadata` (`kerai._ingest_deposit`). Every key is always written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DepositResult {
    /// Where the copy came from (after redirects).
    pub source_url: String,
    /// `html`, `pdf`, ..., or `abstract`.
    pub source_type: String,
    /// The license family (`cc-by`, `public-domain`, `oa`, ...).
    pub license: String,
    /// RFC 3339.
    pub fetched_at: String,
    /// `full` or `abstract`.
    pub content_type: String,
    /// The route that found it (`doi`, `arxiv`, `url`, a search service, ...).
    pub found_via: String,
    /// The work's metadata (title, authors, year, doi, arxiv, ...) and the document's.
    pub metadata: Map<String, Value>,
}

/// The keys a work is known by, for `kerai._worker_known(item, keys)`. The SQL
/// (`kerai._work_keys`) reads `keys->'doi'`, `keys->'arxiv'` and `keys->'url'`; an absent key is
/// omitted, never `null`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkKeys {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doi: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arxiv: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

impl WorkKeys {
    /// No key at all: nothing to ask.
    pub fn is_empty(&self) -> bool {
        self.doi.is_none() && self.arxiv.is_none() && self.url.is_none()
    }
}

/// `kerai._worker_known`'s answer when the work is known (it answers `NULL` otherwise).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum KnownWork {
    /// Ingested: the item's reference is linked to `document` now.
    Linked { document: String },
    /// Deposited by queue item `item` and not yet ingested: linked when it is.
    Waiting { item: i64 },
    /// An answer this fetcher does not know; the database has decided all the same.
    #[serde(untagged)]
    Other(Value),
}

impl KnownWork {
    /// Read `kerai._worker_known`'s answer; never fails (an unknown answer is [`KnownWork::Other`]).
    pub fn from_json(v: Value) -> KnownWork {
        serde_json::from_value(v.clone()).unwrap_or(KnownWork::Other(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The keys `kerai.crawl_cycle` writes into a request (sql/resolve.sql).
    #[test]
    fn work_requests_read_the_keys_the_sql_writes() {
        let v = json!({"ref": "8c6f0c3e-0000-4000-8000-000000000001", "ref_type": "bibliography",
            "text": "Friston, K. (2010). The free-energy principle.", "doi": "10.1038/nrn2787",
            "url": "https://e.org/a", "arxiv": "2101.00001", "title": "The free-energy principle",
            "year": 2010, "authors": [{"family": "Friston", "given": "K."}],
            "first_author": "friston", "year_suffix": "a", "container": "Nat. Rev. Neurosci.",
            "publisher": "Nature", "location": "London", "term": "free energy",
            "context": "as shown by", "score": 0.75, "chain_depth": 1,
            "policy": {"allowed_licenses": ["cc-by"]}});
        let r = WorkRequest::from_json(v.clone());
        assert_eq!(
            r.reference.as_deref(),
            Some("8c6f0c3e-0000-4000-8000-000000000001")
        );
        assert_eq!(r.ref_type.as_deref(), Some("bibliography"));
        assert_eq!(r.year, json!(2010));
        assert_eq!((r.score, r.chain_depth), (Some(0.75), Some(1)));
        assert_eq!(r.policy["allowed_licenses"][0], "cc-by");
        // Every key is a field: a renamed one would not come back.
        assert_eq!(serde_json::to_value(&r).unwrap(), v);
        // Absent keys (jsonb_strip_nulls) and values of another type are unset.
        let odd = WorkRequest::from_json(json!({"doi": 5, "year": "2019"}));
        assert_eq!((odd.doi, odd.year), (None, json!("2019")));
        assert_eq!(WorkRequest::from_json(Value::Null), WorkRequest::default());
    }

    /// `kerai._worker_deposit` and `kerai._ingest_deposit` read these keys.
    #[test]
    fn deposit_results_have_the_keys_the_sql_reads() {
        let mut metadata = Map::new();
        metadata.insert("doi".into(), json!("10.1/x"));
        metadata.insert("arxiv".into(), json!("2101.00001"));
        let r = DepositResult {
            source_url: "https://e.org/a.pdf".into(),
            source_type: "pdf".into(),
            license: "cc-by".into(),
            fetched_at: "2026-01-02T03:04:05+00:00".into(),
            content_type: "full".into(),
            found_via: "doi".into(),
            metadata,
        };
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(
            v,
            json!({"source_url": "https://e.org/a.pdf", "source_type": "pdf", "license": "cc-by",
                   "fetched_at": "2026-01-02T03:04:05+00:00", "content_type": "full",
                   "found_via": "doi", "metadata": {"doi": "10.1/x", "arxiv": "2101.00001"}})
        );
        assert_eq!(v["metadata"]["doi"], "10.1/x");
        assert_eq!(serde_json::from_value::<DepositResult>(v).unwrap(), r);
    }

    /// `kerai._work_keys` reads `doi`, `arxiv` and `url`; unset keys are left out.
    #[test]
    fn work_keys_serialise_as_the_sql_reads_them() {
        let k = WorkKeys {
            doi: Some("10.1/x".into()),
            arxiv: Some("2101.00001".into()),
            url: Some("https://e.org/a".into()),
        };
        assert_eq!(
            serde_json::to_value(&k).unwrap(),
            json!({"doi": "10.1/x", "arxiv": "2101.00001", "url": "https://e.org/a"})
        );
        let doi_only = WorkKeys {
            doi: Some("10.1/x".into()),
            ..WorkKeys::default()
        };
        assert_eq!(
            serde_json::to_value(&doi_only).unwrap(),
            json!({"doi": "10.1/x"})
        );
        assert!(WorkKeys::default().is_empty() && !doi_only.is_empty());
    }

    /// `kerai._worker_known` answers `{"status": "linked", "document"}` or
    /// `{"status": "waiting", "item"}`.
    #[test]
    fn known_work_reads_both_answers_of_the_sql() {
        let linked =
            json!({"status": "linked", "document": "8c6f0c3e-0000-4000-8000-000000000001"});
        assert_eq!(
            KnownWork::from_json(linked.clone()),
            KnownWork::Linked {
                document: "8c6f0c3e-0000-4000-8000-000000000001".into()
            }
        );
        assert_eq!(
            serde_json::to_value(KnownWork::from_json(linked.clone())).unwrap(),
            linked
        );
        let waiting = json!({"status": "waiting", "item": 42});
        assert_eq!(
            KnownWork::from_json(waiting.clone()),
            KnownWork::Waiting { item: 42 }
        );
        assert_eq!(
            serde_json::to_value(KnownWork::Waiting { item: 42 }).unwrap(),
            waiting
        );
        let odd = json!({"status": "merged", "into": 1});
        assert_eq!(KnownWork::from_json(odd.clone()), KnownWork::Other(odd));
    }
}
